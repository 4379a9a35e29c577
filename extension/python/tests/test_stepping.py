"""Stepping (next, stepIn, stepOut) and pause, on every tracer backend."""

from __future__ import annotations

import socket
import sys
import time

import pytest

PROGRAM = """
def add(a, b):
    total = a + b
    return total

def main():
    x = add(1, 2)
    y = add(x, 3)
    return y

main()
print("done")
"""

# (breakpoints, steps: [(request, expected frame name, expected line, expected reason)])
SCENARIOS = {
    "next through a function and out of it": (
        [6],
        # Out of main at the point of return: the module's call line, then its next.
        [("next", "main", 7, "step"), ("next", "main", 8, "step"),
         ("next", "<module>", 10, "step"), ("next", "<module>", 11, "step")],
    ),
    "stepIn then stepOut": (
        [6],
        [("stepIn", "add", 2, "step"), ("stepOut", "main", 6, "step"),
         ("next", "main", 7, "step"), ("stepIn", "add", 2, "step"),
         ("next", "add", 3, "step")],
    ),
    "stepIn off the end of a function returns to the caller": (
        [3],
        # Where add returned (x not assigned yet), as next and stepOut stop there.
        [("stepIn", "main", 6, "step"), ("stepIn", "main", 7, "step"),
         ("stepIn", "add", 2, "step")],
    ),
    "next over a call stops at a breakpoint inside it": (
        [6, 2],
        [("next", "add", 2, "breakpoint"), ("stepOut", "main", 6, "step")],
    ),
    "stepOut of the module frame runs to the end": (
        [10],
        [],
    ),
}


ANNOTATED = """\
class P:
    x: int
    y: str = ""
names = list(P.__annotations__)
print(names)
"""


def test_step_in_passes_through_the_functions_that_compute_annotations(
        launch, write, backend):
    # 3.14 runs a class's annotations in a generated P.__annotate__ on the lines of the
    # class body, when they are first read: a step does not stop in it.
    path = write("annotated.py", ANNOTATED)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.set_breakpoints(path, [4])
    debuggee.request("configurationDone")
    debuggee.stopped()
    debuggee.request("stepIn", {"threadId": 1})
    frame = debuggee.top_frame(debuggee.stopped("step")["threadId"])
    assert (frame["name"], frame["line"]) == ("<module>", 5)
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "['x', 'y']\n"


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_stepping(launch, write, backend, scenario):
    breakpoints, steps = SCENARIOS[scenario]
    path = write("steps.py", PROGRAM)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.set_breakpoints(path, breakpoints)
    debuggee.request("configurationDone")
    debuggee.stopped()
    seen, expected = [], []
    for request, name, line, reason in steps:
        debuggee.request(request, {"threadId": 1})
        stopped = debuggee.wait_event("stopped")
        frame = debuggee.top_frame(stopped["threadId"])
        seen.append((request, frame["name"], frame["line"], stopped["reason"]))
        expected.append((request, name, line, reason))
    assert seen == expected
    if scenario.startswith("stepOut of the module"):
        debuggee.request("stepOut", {"threadId": 1})
    else:
        debuggee.set_breakpoints(path, [])
        debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "done\n"


def test_step_requests_need_a_stopped_thread(launch, write, backend):
    path = write("steps.py", PROGRAM)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    response = debuggee.request_raw("next", {"threadId": 1})
    assert not response["success"] and "not stopped" in response["message"]
    debuggee.request("configurationDone")
    debuggee.finish(0)


def test_pause_a_running_loop(launch, write, backend, tmp_path):
    program = """
        import os, sys, time
        def spin(flag):
            while not os.path.exists(flag):
                time.sleep(0.01)
        spin(sys.argv[1])
        print("released")
    """
    path = write("spin.py", program)
    flag = tmp_path / "go"
    debuggee = launch("--program", path, flag, tracer=backend)
    debuggee.configure()
    debuggee.request("configurationDone")
    import time

    time.sleep(0.2)
    debuggee.request("pause", {"threadId": 1})
    stopped = debuggee.stopped("pause")
    frame = debuggee.top_frame(stopped["threadId"])
    assert frame["name"] == "spin" and frame["line"] in (3, 4)
    flag.write_text("")
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "released\n"


@pytest.fixture
def waker():
    """A socket the program connects to and then blocks reading from (outside Python) until
    the test wakes it: a stop in that read is no race against a sleep, however slow the
    machine."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(10)
    accepted = []

    def wake():
        connection, _ = server.accept()
        accepted.append(connection)
        connection.sendall(b"x")

    wake.port = server.getsockname()[1]
    yield wake
    for connection in accepted:
        connection.close()
    server.close()


def pause_once_blocked(launch, path, backend):
    """Run ``path`` and pause its main thread once it printed "blocked" (it is then
    reading from the waker's socket, outside Python)."""
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.request("configurationDone")
    deadline = time.monotonic() + 10
    while "blocked" not in debuggee.stdout():
        assert time.monotonic() < deadline, debuggee.stderr()
        time.sleep(0.02)
    debuggee.request("pause", {"threadId": 1})
    return debuggee


def test_pause_a_thread_blocked_outside_python(launch, write, backend, waker):
    path = write("blocked.py", f"""
        import socket
        waker = socket.create_connection(("127.0.0.1", {waker.port})); print("blocked", flush=True)
        waker.recv(1)
        print("awake")
    """)
    debuggee = pause_once_blocked(launch, path, backend)
    stopped = debuggee.stopped("pause")
    assert stopped["allThreadsStopped"] is True
    frame = debuggee.top_frame(1)
    assert (frame["name"], frame["line"]) == ("<module>", 3)
    debuggee.request("continue", {"threadId": 1})
    waker()
    debuggee.finish(0)
    assert debuggee.stdout() == "blocked\nawake\n"
    # No second stop: the pause was fulfilled, not left pending.
    assert not [e for e in debuggee.events if e.get("event") == "stopped"]


def test_threads_started_after_a_pause_of_a_blocked_thread_stop_at_breakpoints(
        launch, write, backend, waker):
    # The pause of a blocked thread is announced by a debugger thread that then ends; a
    # thread the program starts later may get its ident (the C library reuses a joined
    # thread's stack), and must not be taken for the debugger's.
    path = write("later.py", f"""
        import socket, threading
        waker = socket.create_connection(("127.0.0.1", {waker.port})); print("blocked", flush=True)
        waker.recv(1)
        def work(n):
            return n * 2
        for n in range(5):
            worker = threading.Thread(target=work, args=(n,))
            worker.start()
            worker.join()
        print("done")
    """)
    debuggee = pause_once_blocked(launch, path, backend)
    debuggee.stopped("pause")
    time.sleep(0.2)  # The debugger thread that announced the pause ends.
    debuggee.set_breakpoints(path, [5])
    debuggee.request("continue", {"threadId": 1})
    waker()
    for _ in range(5):
        stopped = debuggee.stopped()
        frame = debuggee.top_frame(stopped["threadId"])
        assert (frame["name"], frame["line"]) == ("work", 5)
        debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)
    assert debuggee.stdout() == "blocked\ndone\n"


TARGETS_PROGRAM = """
class Box:
    def __init__(self, size):
        self.size = size

def double(x):
    return x * 2

def describe(box, extra):
    return f"{box.size}+{extra}"

text = describe(Box(double(2)), double(5))
print(text)
"""


@pytest.mark.parametrize("label, expected_frame", [
    ("double", ("double", 6)),
    ("Box", ("Box.__init__" if sys.version_info >= (3, 11) else "__init__", 3)),
    ("describe", ("describe", 9)),
])
def test_step_into_a_chosen_call(launch, write, backend, label, expected_frame):
    path = write("targets.py", TARGETS_PROGRAM)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.set_breakpoints(path, [11])
    debuggee.request("configurationDone")
    debuggee.stopped()
    frame = debuggee.top_frame(1)
    targets = debuggee.request("stepInTargets", {"frameId": frame["id"]})["targets"]
    # In the order the calls run: arguments before the call they are passed to.
    assert [t["label"] for t in targets] == ["double", "Box", "double", "describe"]
    assert targets[0]["column"] == 21 and targets[0]["line"] == 11
    chosen = next(t for t in targets if t["label"] == label)
    debuggee.request("stepIn", {"threadId": 1, "targetId": chosen["id"]})
    debuggee.stopped("step")
    frame = debuggee.top_frame(1)
    assert (frame["name"], frame["line"]) == expected_frame
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "4+10\n"


def test_step_in_target_that_expired(launch, write, backend):
    path = write("targets.py", TARGETS_PROGRAM)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.set_breakpoints(path, [11, 12])
    debuggee.request("configurationDone")
    debuggee.stopped()
    frame = debuggee.top_frame(1)
    [first, *_] = debuggee.request("stepInTargets", {"frameId": frame["id"]})["targets"]
    debuggee.request("continue", {"threadId": 1})
    debuggee.stopped()
    response = debuggee.request_raw("stepIn", {"threadId": 1, "targetId": first["id"]})
    assert not response["success"] and "expired" in response["message"]
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


# (step request from a stop on `return total` in add (line 3), whether showReturnValue is on,
#  the value expected for "(return) add" in the caller's Locals or None)
RETURN_VALUE_CASES = {
    "stepOut shows the value the function returned": ("stepOut", True, "3"),
    "next off the end of a function shows it too": ("next", True, "3"),
    "without showReturnValue nothing is shown": ("stepOut", False, None),
}


def stopped_showing_returns(launch, path, backend, show: bool, line: int):
    """A debuggee of ``path`` with showReturnValue on or off, stopped at ``line``."""
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure({"showReturnValue": show})
    debuggee.set_breakpoints(path, [line])
    debuggee.request("configurationDone")
    debuggee.stopped()
    return debuggee


@pytest.mark.parametrize("case", list(RETURN_VALUE_CASES))
def test_return_value_of_the_function_a_step_left(launch, write, backend, case):
    request, show, expected = RETURN_VALUE_CASES[case]
    path = write("steps.py", PROGRAM)
    debuggee = stopped_showing_returns(launch, path, backend, show, 3)
    debuggee.request(request, {"threadId": 1})
    stopped = debuggee.stopped("step")
    frame = debuggee.top_frame(stopped["threadId"])
    # Stopped where add returned: `x = add(1, 2)`, x not assigned yet.
    assert (frame["name"], frame["line"]) == ("main", 6)
    shown = debuggee.locals_of(frame["id"]).get("(return) add")
    assert (shown and shown["value"]) == expected or (shown is None and expected is None), shown
    debuggee.set_breakpoints(path, [])
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


INTERRUPTED_STEP = """
import threading, time
go = threading.Event()
def a():
    go.set()
    time.sleep(0.8)
    x = 1
    print("a", x)
def b():
    go.wait()
    time.sleep(0.1)
    z = 3
    print("b", z)
threads = [threading.Thread(target=a, name="a"), threading.Thread(target=b, name="b")]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
"""


def test_a_step_interrupted_by_another_threads_stop_ends_where_it_would_have(
        launch, write, backend):
    # Thread a steps over its sleep; b stops at a breakpoint meanwhile, and a, waking,
    # parks on the line its step was going to end on. After continue, a's step ends
    # there (line 6), not on the line after it.
    path = write("interrupted.py", INTERRUPTED_STEP)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.set_breakpoints(path, [4, 11])
    debuggee.request("configurationDone")
    a = debuggee.stopped()["threadId"]  # b waits for a's go.set() meanwhile.
    debuggee.request("next", {"threadId": a})
    assert debuggee.top_frame(debuggee.stopped("step")["threadId"])["line"] == 5
    debuggee.request("next", {"threadId": a})
    b = debuggee.stopped()["threadId"]
    assert b != a and debuggee.top_frame(b)["line"] == 11
    # The main thread, blocked in join(), is shown at the user's line that called it:
    # justMyCode hides the library frames above it, as a stop in user code does.
    main = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"]
    assert [(f["name"], f["line"]) for f in main] == [("<module>", 17)]
    deadline = time.monotonic() + 10
    while debuggee.top_frame(a)["line"] != 6:  # a wakes and parks on line 6.
        assert time.monotonic() < deadline, "thread a never parked"
        time.sleep(0.05)
    debuggee.request("continue", {"threadId": b})
    stopped = debuggee.stopped("step")
    assert stopped["threadId"] == a
    frame = debuggee.top_frame(a)
    assert (frame["name"], frame["line"]) == ("a", 6)
    assert "x" not in debuggee.locals_of(frame["id"])
    debuggee.request("continue", {"threadId": a})
    debuggee.finish(0)
    assert sorted(debuggee.stdout().splitlines()) == ["a 1", "b 3"]


CANCELLED = """
import asyncio
async def worker():
    try:
        await asyncio.sleep(10)
    finally:
        print("cleanup")
async def plain():
    await asyncio.sleep(10)
    print("never")
async def main():
    for make in (worker, plain):
        task = asyncio.create_task(make())
        await asyncio.sleep(0.05)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            print("cancelled")
asyncio.run(main())
print("end")
"""


@pytest.mark.parametrize("start, expected", [
    # The coroutine is cancelled while the step waits at its await: the step ends in
    # its finally block,
    (4, ("worker", 6)),
    # or, with nothing to run in it, in the task that awaits the cancelled task, where
    # its except block takes the cancellation (not in the event loop, nor after it).
    (8, ("main", 17)),
])
def test_a_step_over_an_await_whose_task_is_cancelled(launch, write, backend, start, expected):
    path = write("cancelled.py", CANCELLED)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.set_breakpoints(path, [start])
    debuggee.request("configurationDone")
    debuggee.stopped()
    debuggee.set_breakpoints(path, [])
    debuggee.request("next", {"threadId": 1})
    frame = debuggee.top_frame(debuggee.stopped("step")["threadId"])
    assert (frame["name"], frame["line"]) == expected
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "cleanup\ncancelled\ncancelled\nend\n"


CALLS_ON_A_LINE = """
def g(n):
    return n + 3

def f(n):
    return n * 2

def main():
    v = f(g(1))
    w = [g(k) for k in range(1000)]
    return v, len(w)

main()
"""


@pytest.mark.parametrize("show", [True, False])
def test_next_over_calls_shows_what_each_returned(launch, write, backend, show):
    # Each function the stepped line called shows its value, in the order they
    # returned; a function called a thousand times on a line shows its last value once.
    path = write("calls.py", CALLS_ON_A_LINE)
    debuggee = stopped_showing_returns(launch, path, backend, show, 8)
    shown = []
    for _ in range(2):
        debuggee.request("next", {"threadId": 1})
        frame = debuggee.top_frame(debuggee.stopped("step")["threadId"])
        names = debuggee.locals_of(frame["id"])
        shown.append([(name, names[name]["value"]) for name in names
                      if name.startswith("(return)")])
    # Before 3.12 a comprehension is a function of its own that calls g: the line
    # called no function of the user's directly.
    expected = [[("(return) g", "4"), ("(return) f", "8")],
                [("(return) g", "1002")] if sys.version_info >= (3, 12) else []]
    assert shown == (expected if show else [[], []])
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
