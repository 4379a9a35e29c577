"""A fast path that cannot serve this Python is said once in the debug console, never
lost in silence: sys.monitoring (else sys.settrace) and the instrumented code copies."""

from __future__ import annotations

import sys

import pytest

from dapperdbg.common import code_cache
from dapperdbg.instrumentation import bytecode
from dapperdbg.instrumentation.self_check import copies_unavailable, forget_verdict
from dapperdbg.tracing.fast_paths import copies_notice, tracer_notice


@pytest.mark.parametrize("backend,requested,fallback,says", [
    ("monitoring", None, None, None),
    ("monitoring", "monitoring", None, None),
    # The user's own choice is not news.
    ("settrace", "settrace", None, None),
    ("settrace", None, None, "has no sys.monitoring"),
    ("settrace", None, "tool id 0 is in use by pdb", "cannot be used (tool id 0 is in use by pdb)"),
    ("settrace", "monitoring", "tool id 0 is in use by pdb", "cannot be used"),
])
def test_tracer_notice(backend, requested, fallback, says):
    notice = tracer_notice(backend, requested, fallback)
    if says is None:
        assert notice is None
    else:
        assert says in notice and "sys.settrace" in notice and notice.endswith("\n")


def test_copies_work_on_this_python():
    # On 3.14 they once did not (LOAD_SMALL_INT), and nothing said so.
    forget_verdict()
    assert copies_unavailable() is None


def test_copies_that_cannot_read_this_pythons_bytecode_are_reported(monkeypatch):
    # As a Python with a new way to load a name would look: no probe load is recognised.
    monkeypatch.setattr(bytecode, "_NAME_OPS", frozenset())
    # The verdict is kept on disk for this Python; this one must be reached, not read.
    monkeypatch.setattr(code_cache, "load", lambda *args: None)
    monkeypatch.setattr(code_cache, "store", lambda *args: None)
    forget_verdict()
    try:
        reason = copies_unavailable()
    finally:
        forget_verdict()
    assert reason
    assert reason in copies_notice(reason)
    assert f"Python {sys.version_info[0]}.{sys.version_info[1]}" in copies_notice(reason)


def console_notices(debuggee) -> list[str]:
    debuggee.wait_event("dapper/exiting")
    return [event["body"]["output"] for event in debuggee.events
            if event["event"] == "output" and event["body"].get("category") == "console"
            and event["body"]["output"].startswith("Dapper:")]


@pytest.mark.parametrize("tracer", [None, "settrace"])
def test_a_session_says_once_when_this_python_has_no_sys_monitoring(launch, write, tracer):
    program = write("quiet.py", "x = 1\n")
    debuggee = launch("--program", program, tracer=tracer)
    debuggee.configure()
    debuggee.request("configurationDone")
    notices = console_notices(debuggee)
    debuggee.finish(0)
    if tracer is None and sys.version_info < (3, 12):
        assert len(notices) == 1 and "has no sys.monitoring" in notices[0], notices
    else:
        assert notices == []
