"""The command line of ``python -m dapperdbg`` (README, "Attaching to a program you started"):

    python -m dapperdbg --listen [HOST:]PORT [--wait-for-client]
                     (PATH | -m MODULE | -c CODE) [args...]
    python -m dapperdbg --connect [HOST:]PORT (PATH | -m MODULE | -c CODE) [args...]

``--listen``: the program listens and a debugger attaches to it (``"connect"`` in the
attach configuration). ``--connect``: the debugger listens (``"listen"`` in the attach
configuration) and the program connects to it before it starts.

Dapper's options come first. The target ends them, as it ends Python's own options:
everything after it belongs to the program, even words that look like options.
"""

from __future__ import annotations

from ..common.records import Factory, Record

USAGE = (
    "usage: python -m dapperdbg --listen [HOST:]PORT [--wait-for-client] "
    "(PATH | -m MODULE | -c CODE) [args...]\n"
    "       python -m dapperdbg --connect [HOST:]PORT (PATH | -m MODULE | -c CODE) [args...]"
)

# Only loopback unless the user names a host: whoever connects controls the program.
DEFAULT_HOST = "127.0.0.1"


class UsageError(ValueError):
    """The command line is invalid; the message says why."""


class ListenArguments(Record):
    host: str
    port: int
    wait_for_client: bool
    target_kind: str  # "program", "module" or "code", as the launcher's
    target: str
    args: list[str] = Factory(list)
    # "listen" (the program listens) or "connect" (the program connects to the debugger).
    mode: str = "listen"


def parse_endpoint(text: str, option: str = "--listen") -> tuple[str, int]:
    """``PORT``, ``HOST:PORT`` or ``[IPv6]:PORT``; port 0 asks for any free port."""
    host, separator, port_text = text.rpartition(":")
    if not separator:
        host, port_text = DEFAULT_HOST, text
    elif host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise UsageError(f"{option} {text!r}: write an IPv6 address in brackets, [::1]:PORT")
    if not host:
        raise UsageError(f"{option} {text!r}: the host before ':' is empty")
    if not port_text.isdigit():
        raise UsageError(f"{option} {text!r}: the port must be a number from 0 to 65535")
    port = int(port_text)
    if port > 65535:
        raise UsageError(f"{option} {text!r}: the port must be a number from 0 to 65535")
    return host, port


def _target_option(word: str, argv: list[str], index: int) -> tuple[str, str, int] | None:
    """``-m NAME``/``-mNAME`` and ``-c CODE``/``-cCODE``: (kind, value, next index)."""
    for option, kind in (("-m", "module"), ("-c", "code")):
        if word == option:
            if index + 1 >= len(argv):
                raise UsageError(f"{option} needs a value")
            return kind, argv[index + 1], index + 2
        if word.startswith(option) and not word.startswith("--"):
            return kind, word[len(option):], index + 1
    return None


def parse_arguments(argv: list[str]) -> ListenArguments:
    endpoint: tuple[str, int] | None = None
    mode = ""
    wait = False
    index = 0
    while index < len(argv):
        word = argv[index]
        name, has_value, inline_value = word.partition("=")
        if name in ("--listen", "--connect"):
            if endpoint is not None:
                raise UsageError(f"{name} given twice" if name == f"--{mode}"
                                 else "--listen and --connect exclude each other")
            if has_value:
                value, index = inline_value, index + 1
            elif index + 1 < len(argv):
                value, index = argv[index + 1], index + 2
            else:
                raise UsageError(f"{name} needs [HOST:]PORT")
            endpoint, mode = parse_endpoint(value, name), name[2:]
            if mode == "connect" and endpoint[1] == 0:
                raise UsageError(f"--connect {value!r}: the port must be a number from 1 "
                                 "to 65535")
            continue
        if word == "--wait-for-client":
            wait = True
            index += 1
            continue
        target = _target_option(word, argv, index)
        if target is not None:
            kind, value, index = target
        elif word == "--" and index + 1 < len(argv):
            kind, value, index = "program", argv[index + 1], index + 2
        elif word.startswith("-"):
            raise UsageError(f"unknown option {word!r}")
        else:
            kind, value, index = "program", word, index + 1
        if endpoint is None:
            raise UsageError(_REQUIRED)
        if kind != "code" and not value:
            raise UsageError(f"the {kind} to run is empty")
        if wait and mode == "connect":
            raise UsageError("--wait-for-client goes with --listen: with --connect the "
                             "program always waits for the debugger's configuration")
        return ListenArguments(endpoint[0], endpoint[1], wait, kind, value, list(argv[index:]),
                               mode)
    if endpoint is None:
        raise UsageError(_REQUIRED)
    raise UsageError("missing the program: PATH, -m MODULE or -c CODE")


_REQUIRED = "--listen [HOST:]PORT or --connect [HOST:]PORT is required"
