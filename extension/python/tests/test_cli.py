"""The launcher's command line and the IPC address syntax."""

from __future__ import annotations

import pytest

from dapperdbg.ipc.connection import AddressError, parse_address
from dapperdbg.launcher.cli import UsageError, parse_arguments

BASE = ["--ipc", "unix:/s", "--session-id", "id"]

GOOD = [
    (BASE + ["--program", "p.py"], ("program", "p.py", [], False)),
    (BASE + ["--program", "p.py", "a", "-b"], ("program", "p.py", ["a", "-b"], False)),
    (BASE + ["--program", "p.py", "--", "--x"], ("program", "p.py", ["--x"], False)),
    (BASE + ["--program", "p.py", "--", "--", "y"], ("program", "p.py", ["--", "y"], False)),
    (BASE + ["--no-debug", "--module", "pkg.mod", "1"], ("module", "pkg.mod", ["1"], True)),
    (["--session-id=id", "--ipc=unix:/s", "--code=print(1)"], ("code", "print(1)", [], False)),
    (BASE + ["--code", ""], ("code", "", [], False)),
    (BASE + ["--program", "p.py", "--no-debug"], ("program", "p.py", ["--no-debug"], False)),
]


@pytest.mark.parametrize("argv,expected", GOOD)
def test_good_command_lines(argv, expected):
    parsed = parse_arguments(argv)
    assert (parsed.target_kind, parsed.target, parsed.args, parsed.no_debug) == expected
    assert parsed.ipc == "unix:/s" and parsed.session_id == "id"


BAD = [
    ([], "missing the target"),
    (BASE, "missing the target"),
    (["--ipc", "unix:/s", "--program", "p"], "missing required option --session-id"),
    (BASE + ["--frobnicate", "--program", "p"], "unknown option '--frobnicate'"),
    (BASE + ["stray", "--program", "p"], "unexpected argument 'stray'"),
    (BASE + ["--ipc", "tcp:h:1", "--program", "p"], "given twice"),
    (BASE + ["--program"], "needs a value"),
    (BASE + ["--module", ""], "is empty"),
]


@pytest.mark.parametrize("argv,message", BAD)
def test_bad_command_lines(argv, message):
    with pytest.raises(UsageError, match=message):
        parse_arguments(argv)


@pytest.mark.parametrize("text,expected", [
    ("unix:/tmp/x.sock", ("unix", "/tmp/x.sock")),
    ("tcp:127.0.0.1:4000", ("tcp", ("127.0.0.1", 4000))),
    ("tcp:[::1]:4000", ("tcp", ("::1", 4000))),
    ("tcp:localhost:65535", ("tcp", ("localhost", 65535))),
    ("fd:7", ("fd", 7)),
])
def test_good_addresses(text, expected):
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", [
    "", "unix:", "tcp:", "tcp:host", "tcp::80", "tcp:h:x", "tcp:h:0", "tcp:h:70000",
    "pipe:x", "/tmp/x", "fd:", "fd:x", "fd:-1",
])
def test_bad_addresses(text):
    with pytest.raises(AddressError):
        parse_address(text)
