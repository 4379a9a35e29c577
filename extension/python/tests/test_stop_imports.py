"""What only a stopped session uses is imported at the first stop, not at start
(common/stop_imports.py): a process that never stops never loads it, and
the thread that stops first imports all of it before the stop is announced, so the IPC
thread never imports while a stopped thread may hold an import lock."""

from __future__ import annotations

PROGRAM = """
import sys

LATE = [
    "dapperdbg.inspection.inspector",
    "dapperdbg.inspection.rendering",
    "dapperdbg.inspection.presenters",
    "dapperdbg.inspection.evaluation",
    "dapperdbg.inspection.stopped_work",
    "dapperdbg.requests.inspection",
    "dapperdbg.requests.execution",
    "dapperdbg.requests.data_breakpoints",
    "dapperdbg.requests.hot_reload",
    "dapperdbg.session.hot_reload",
    "dapperdbg.hotreload.engine",
]


def loaded():
    return [name for name in LATE if name in sys.modules]


print("at start:", loaded())
value = 1
print("at the end:", loaded())
"""


def start(launch, write, backend, breakpoint_lines):
    program = write("main.py", PROGRAM)
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program)})
    debuggee.set_breakpoints(program, breakpoint_lines)
    debuggee.request("setExceptionBreakpoints", {"filters": ["uncaught"]})
    debuggee.request("threads")
    debuggee.request("configurationDone")
    return debuggee


def test_a_process_that_never_stops_never_imports_them(launch, write, backend):
    debuggee = start(launch, write, backend, [])
    debuggee.finish(0)
    assert debuggee.stdout() == "at start: []\nat the end: []\n"


def test_the_thread_that_stops_imports_them_before_the_stop_is_announced(
        launch, write, backend):
    line = PROGRAM.lstrip("\n").splitlines().index("value = 1") + 1
    debuggee = start(launch, write, backend, [line])
    stopped = debuggee.stopped()
    frame = debuggee.top_frame(stopped["threadId"])
    assert frame["line"] == line
    # Neither stackTrace nor evaluate imports the hot reload or data breakpoint modules:
    # only the stop can have.
    missing = debuggee.request("evaluate", {
        "expression": "[name for name in LATE if name not in sys.modules]",
        "frameId": frame["id"], "context": "repl"})
    assert missing["result"] == "[]"
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)
    assert debuggee.stdout().splitlines()[0] == "at start: []"
