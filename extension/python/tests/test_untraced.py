"""Running untraced while nothing needs tracing (3.9-3.11 with instrumented copies,
docs/instrumentation.md; with sys.monitoring, no event but the exceptions' while there is no
breakpoint: 3.12 runs every code object that a tool watches slower, even with its events
disabled): what needs tracing later switches it on for threads already running, and it
goes off again once nothing needs it. Run on every backend and with the
copies off too: the stops must be the same everywhere."""

from __future__ import annotations

import sys
import time

import pytest

# A worker thread calls work() in a loop until the flag file exists; the main thread
# waits for it. Before it ends, the program says whether the worker ran untraced at the
# end (after the debugger has cleared everything).
PROGRAM = """
import os, sys, threading, time

def work(n):
    value = n * 2
    if n % 50 == 49:
        try:
            raise ValueError(n)
        except ValueError:
            pass
    return value

def worker(flag, seen):
    n = 0
    while not os.path.exists(flag):
        work(n)
        n += 1
        time.sleep(0.001)
    seen.append(untraced())

def untraced():
    if sys.gettrace() is not None:
        return False
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is None:
        return True
    # Raised exceptions are watched for the exception filters; nothing else.
    watched = monitoring.get_events(monitoring.DEBUGGER_ID)
    return watched & ~(monitoring.events.RAISE | monitoring.events.PY_UNWIND) == 0

seen = []
thread = threading.Thread(target=worker, args=(sys.argv[1], seen), name="worker")
thread.start()
thread.join()
print("untraced at the end:", seen[0])
"""

MODES = {"copies": None, "traced": {"DAPPER_INSTRUMENT": "0"}}


def start(launch, write, backend, mode, tmp_path):
    path = write("main.py", PROGRAM)
    flag = tmp_path / "stop"
    debuggee = launch("--program", path, flag, tracer=backend, env=MODES[mode])
    debuggee.configure({"program": str(path)})
    debuggee.request("configurationDone")
    time.sleep(0.3)  # The worker is in its loop, untraced where it can be.
    return debuggee, path, flag


def stopped_in_worker(debuggee, reason):
    body = debuggee.stopped(reason)
    threads = {t["name"]: t["id"] for t in debuggee.request("threads")["threads"]}
    frame = debuggee.top_frame(threads["worker"])
    return body, threads["worker"], frame


def finish(debuggee, flag, untraced_expected):
    flag.write_text("")
    debuggee.finish(0)
    assert debuggee.stdout() == f"untraced at the end: {untraced_expected}\n"


def untraced_expected(backend, mode) -> bool:
    if backend == "monitoring":
        return True
    return mode == "copies" and sys.version_info < (3, 12)


# What is set while the worker runs: (request, arguments with {path}, stop reason,
# expected (function, line) of the stop, the request that clears it).
LATE = {
    "a function breakpoint": (
        "setFunctionBreakpoints", {"breakpoints": [{"name": "work"}]},
        "function breakpoint", ("work", 4),
        ("setFunctionBreakpoints", {"breakpoints": []})),
    "the raised exception filter": (
        "setExceptionBreakpoints", {"filters": ["raised"]},
        "exception", ("work", 7),
        ("setExceptionBreakpoints", {"filters": []})),
    "a breakpoint on a loop header (the tracer's line)": (
        "setBreakpoints", {"source": {"path": "{path}"}, "breakpoints": [{"line": 14}]},
        "breakpoint", ("worker", 14),
        ("setBreakpoints", {"source": {"path": "{path}"}, "breakpoints": []})),
    "a conditional breakpoint (a probe)": (
        "setBreakpoints", {"source": {"path": "{path}"},
                           "breakpoints": [{"line": 4, "condition": "n % 100 == 7"}]},
        "breakpoint", ("work", 4),
        ("setBreakpoints", {"source": {"path": "{path}"}, "breakpoints": []})),
}


def _with_path(arguments: dict, path) -> dict:
    source = arguments.get("source")
    if source is None:
        return arguments
    return {**arguments, "source": {"path": str(path)}}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("case", list(LATE))
def test_set_while_running_untraced_then_cleared(launch, write, backend, tmp_path, case, mode):
    request, arguments, reason, where, clear = LATE[case]
    debuggee, path, flag = start(launch, write, backend, mode, tmp_path)
    debuggee.request(request, _with_path(arguments, path))
    _, thread_id, frame = stopped_in_worker(debuggee, reason)
    assert (frame["name"], frame["line"]) == where
    debuggee.request(clear[0], _with_path(clear[1], path))
    debuggee.request("continue", {"threadId": thread_id})
    time.sleep(0.2)  # The worker loops on, untraced again where it can be.
    finish(debuggee, flag, untraced_expected(backend, mode))


@pytest.mark.parametrize("mode", list(MODES))
def test_pause_a_thread_running_untraced_and_step(launch, write, backend, tmp_path, mode):
    debuggee, _, flag = start(launch, write, backend, mode, tmp_path)
    threads = {t["name"]: t["id"] for t in debuggee.request("threads")["threads"]}
    debuggee.request("pause", {"threadId": threads["worker"]})
    body, thread_id, frame = stopped_in_worker(debuggee, "pause")
    assert frame["name"] in ("worker", "work")
    debuggee.request("next", {"threadId": thread_id})
    _, _, stepped = stopped_in_worker(debuggee, "step")
    assert stepped["name"] in ("worker", "work")
    debuggee.request("continue", {"threadId": thread_id})
    time.sleep(0.2)
    finish(debuggee, flag, untraced_expected(backend, mode))


# The module body is still running (waiting at module level) when the breakpoint
# arrives; the function it is set in is defined only after, from the module's code as
# it was compiled: that code has no probe, and must stop all the same, on every thread.
DEFINED_LATER = """
import os, sys, threading, time
print("waiting", flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
def work(n):
    return n * 2
work(1)
thread = threading.Thread(target=work, args=(2,), name="worker")
thread.start()
thread.join()
print("done")
"""


@pytest.mark.parametrize("mode", list(MODES))
def test_a_function_the_running_module_defines_later_stops(launch, write, backend, tmp_path,
                                                           mode):
    path = write("later.py", DEFINED_LATER)
    flag = tmp_path / "go"
    debuggee = launch("--program", path, flag, tracer=backend, env=MODES[mode])
    debuggee.configure({"program": str(path)})
    debuggee.request("configurationDone")
    deadline = time.monotonic() + 10
    while "waiting" not in debuggee.stdout():
        assert time.monotonic() < deadline, debuggee.stderr()
        time.sleep(0.02)
    debuggee.set_breakpoints(path, [6])
    flag.write_text("")
    for thread_name in ("MainThread", "worker"):
        stopped = debuggee.stopped()
        names = {t["id"]: t["name"] for t in debuggee.request("threads")["threads"]}
        assert names[stopped["threadId"]] == thread_name
        frame = debuggee.top_frame(stopped["threadId"])
        assert (frame["name"], frame["line"]) == ("work", 6)
        debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)
    assert debuggee.stdout() == "waiting\ndone\n"
