"""Breakpoints end to end, on every tracer backend this Python has."""

from __future__ import annotations

import time

import pytest

MAIN = """
import helper

def compute(a, b):
    total = a + b
    return total * 2

result = compute(2, 3)
print("result", result, helper.twice(result))
"""
HELPER = """
def twice(value):
    doubled = value * 2
    return doubled
"""


def start(launch, write, backend, breakpoints, launch_config=None, program=MAIN, args=()):
    """Launch MAIN (with helper.py next to it), set breakpoints given as {path: [lines]},
    finish configuration. Returns (debuggee, {name: path})."""
    paths = {"main": write("main.py", program), "helper": write("helper.py", HELPER)}
    debuggee = launch("--program", paths["main"], *args, tracer=backend)
    # As the engine does, the launch configuration names the program.
    debuggee.configure({"program": str(paths["main"]), **(launch_config or {})})
    for name, lines in breakpoints.items():
        debuggee.set_breakpoints(paths[name], lines)
    debuggee.request("configurationDone")
    return debuggee, paths


def test_breakpoint_in_main_file_stack_scopes_and_continue(launch, write, backend):
    debuggee, paths = start(launch, write, backend, {"main": [4]})
    stopped = debuggee.stopped()
    assert stopped["threadId"] == 1
    assert stopped["allThreadsStopped"] is True
    assert len(stopped["hitBreakpointIds"]) == 1

    threads = debuggee.request("threads")["threads"]
    assert threads == [{"id": 1, "name": "MainThread"}]

    trace = debuggee.request("stackTrace", {"threadId": 1})
    frames = trace["stackFrames"]
    assert [(f["name"], f["line"]) for f in frames] == [("compute", 4), ("<module>", 7)]
    assert trace["totalFrames"] == 2
    assert frames[0]["source"] == {"name": "main.py", "path": str(paths["main"])}
    assert frames[0]["column"] == 1

    paged = debuggee.request("stackTrace", {"threadId": 1, "startFrame": 1, "levels": 1})
    assert [f["name"] for f in paged["stackFrames"]] == ["<module>"]
    assert paged["totalFrames"] == 2

    scopes = debuggee.request("scopes", {"frameId": frames[0]["id"]})["scopes"]
    assert [s["name"] for s in scopes] == ["Locals", "Globals"]
    local_vars = debuggee.variables(scopes[0]["variablesReference"])
    assert {name: v["value"] for name, v in local_vars.items()} == {"a": "2", "b": "3"}
    assert local_vars["a"]["type"] == "int"
    assert local_vars["a"]["evaluateName"] == "a"
    global_vars = debuggee.variables(scopes[1]["variablesReference"])
    # Functions are grouped under "function variables" (inspection.py).
    functions = debuggee.variables(global_vars["function variables"]["variablesReference"])
    assert "compute" in functions and "__builtins__" not in global_vars

    assert debuggee.request("continue", {"threadId": 1}) == {"allThreadsContinued": True}
    debuggee.finish(0)
    assert debuggee.stdout() == "result 10 20\n"


def test_breakpoint_in_imported_module(launch, write, backend):
    debuggee, paths = start(launch, write, backend, {"helper": [3]})
    debuggee.stopped()
    frames = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"]
    assert [(f["name"], f["line"], f["source"]["path"]) for f in frames] == [
        ("twice", 3, str(paths["helper"])),
        ("<module>", 8, str(paths["main"])),
    ]
    assert debuggee.locals_of(frames[0]["id"])["value"]["value"] == "10"
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_breakpoint_hits_every_time(launch, write, backend):
    program = "for i in range(3):\n    x = i\nprint('done')\n"
    debuggee, _ = start(launch, write, backend, {"main": [2]}, program=program)
    seen = []
    for _ in range(3):
        stopped = debuggee.stopped()
        frame = debuggee.top_frame(stopped["threadId"])
        seen.append(debuggee.locals_of(frame["id"])["i"]["value"])
        debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert seen == ["0", "1", "2"]


def test_frame_ids_expire_on_resume(launch, write, backend):
    program = "for i in range(2):\n    x = i\n"
    debuggee, _ = start(launch, write, backend, {"main": [2]}, program=program)
    debuggee.stopped()
    frame = debuggee.top_frame(1)
    debuggee.request("continue", {"threadId": 1})
    debuggee.stopped()
    response = debuggee.request_raw("scopes", {"frameId": frame["id"]})
    assert not response["success"] and "expired" in response["message"]
    response = debuggee.request_raw("stackTrace", {"threadId": 99})
    assert not response["success"] and "not stopped" in response["message"]
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_breakpoint_set_while_running_is_hit(launch, write, backend, tmp_path):
    # The loop runs in the module frame, already on the stack when the breakpoint
    # arrives: the hard case for both backends.
    program = """
        import os, sys, time
        flag = sys.argv[1]
        ticks = 0
        while not os.path.exists(flag):
            ticks += 1
            time.sleep(0.01)
        print("ticks seen")
    """
    flag = tmp_path / "go"
    debuggee, paths = start(launch, write, backend, {}, program=program, args=[flag])
    import time

    time.sleep(0.2)  # The program is inside its loop now.
    [breakpoint] = debuggee.set_breakpoints(paths["main"], [5])
    assert breakpoint["verified"]
    stopped = debuggee.stopped()
    assert stopped["hitBreakpointIds"] == [breakpoint["id"]]
    frame = debuggee.top_frame(1)
    assert frame["line"] == 5
    debuggee.set_breakpoints(paths["main"], [])
    flag.write_text("")
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "ticks seen\n"


def test_breakpoint_in_a_function_called_later(launch, write, backend, tmp_path):
    # The function's code object has already run once without a breakpoint (so the
    # monitoring backend disabled it) when the breakpoint arrives.
    program = """
        import os, sys, time
        def work(n):
            return n + 1
        flag = sys.argv[1]
        n = 0
        while not os.path.exists(flag):
            n = work(n)
            time.sleep(0.01)
    """
    flag = tmp_path / "go"
    debuggee, paths = start(launch, write, backend, {}, program=program, args=[flag])
    import time

    time.sleep(0.2)
    debuggee.set_breakpoints(paths["main"], [3])
    debuggee.stopped()
    assert debuggee.top_frame(1)["name"] == "work"
    debuggee.set_breakpoints(paths["main"], [])
    flag.write_text("")
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_breakpoint_in_a_thread(launch, write, backend):
    program = """
        import threading
        def worker():
            value = 42
            return value
        thread = threading.Thread(target=worker, name="worker-1")
        thread.start()
        thread.join()
    """
    debuggee, _ = start(launch, write, backend, {"main": [4]}, program=program)
    stopped = debuggee.stopped()
    assert stopped["threadId"] != 1
    names = {t["id"]: t["name"] for t in debuggee.request("threads")["threads"]}
    assert names[1] == "MainThread"
    assert names[stopped["threadId"]] == "worker-1"
    assert "dapper.ipc" not in names.values()
    frames = debuggee.request("stackTrace", {"threadId": stopped["threadId"]})["stackFrames"]
    assert frames[0]["name"] == "worker"
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)


def test_stop_on_entry(launch, write, backend):
    debuggee, _ = start(launch, write, backend, {}, launch_config={"stopOnEntry": True})
    stopped = debuggee.stopped("entry")
    frames = debuggee.request("stackTrace", {"threadId": stopped["threadId"]})["stackFrames"]
    assert [(f["name"], f["line"]) for f in frames] == [("<module>", 1)]
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


@pytest.mark.parametrize("condition,hit_condition,expected_values", [
    ("i % 2 == 1", None, ["1", "3"]),
    (None, "3", ["2"]),
    (None, ">=4", ["3", "4"]),
    (None, "%2", ["1", "3"]),
    ("i > 0", "2", ["2"]),
])
def test_conditions_and_hit_conditions(launch, write, backend, condition, hit_condition,
                                       expected_values):
    program = "for i in range(5):\n    x = i\n"
    path = write("main.py", program)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure({"program": str(path)})
    extra = {}
    if condition:
        extra["condition"] = condition
    if hit_condition:
        extra["hitCondition"] = hit_condition
    [breakpoint] = debuggee.set_breakpoints(path, [2], **extra)
    assert breakpoint["verified"], breakpoint
    debuggee.request("configurationDone")
    seen = []
    for _ in expected_values:
        debuggee.stopped()
        seen.append(debuggee.locals_of(debuggee.top_frame(1)["id"])["i"]["value"])
        debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert seen == expected_values


def test_log_message_prints_and_does_not_stop(launch, write, backend):
    program = "for i in range(3):\n    x = i\n"
    path = write("main.py", program)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.set_breakpoints(path, [2], logMessage="i is {i} {{literal}}")
    debuggee.request("configurationDone")
    debuggee.finish(0)
    outputs = [debuggee.wait_event("output")["output"] for _ in range(3)]
    assert outputs == ["i is 0 {literal}\n", "i is 1 {literal}\n", "i is 2 {literal}\n"]


def test_failing_condition_stops_and_says_why(launch, write, backend):
    path = write("main.py", "x = 1\ny = 2\n")
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.set_breakpoints(path, [2], condition="undefined_name > 1")
    debuggee.request("configurationDone")
    debuggee.stopped()
    output = debuggee.wait_event("output")
    assert "NameError" in output["output"]
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_a_detach_while_stopped_lets_the_program_finish(launch, write, backend):
    debuggee, _ = start(launch, write, backend, {"main": [4]})
    debuggee.stopped()
    debuggee.send_request("dapper/detach")  # not answered
    debuggee.disconnect()
    assert debuggee.wait_exit() == 0
    assert debuggee.stdout() == "result 10 20\n"


def test_an_engine_gone_without_a_detach_ends_the_launched_program(launch, write, backend):
    """The engine was killed: the launched program must not run on as an orphan. It gets
    SIGTERM, as from the engine's own terminate."""
    debuggee, _ = start(launch, write, backend, {"main": [4]})
    debuggee.stopped()
    debuggee.disconnect()
    assert debuggee.wait_exit() == -15
    assert debuggee.stdout() == ""
    assert "connection closed without a detach" in debuggee.stderr()


def test_lines_counted_from_zero(launch, write, backend):
    path = write("main.py", "x = 1\n\ny = 2\n")
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure(client={"linesStartAt1": False, "columnsStartAt1": False})
    [breakpoint] = debuggee.set_breakpoints(path, [1])  # 0-based line 1 = "" → moves
    assert breakpoint["line"] == 2
    debuggee.request("configurationDone")
    debuggee.stopped()
    frame = debuggee.top_frame(1)
    assert (frame["line"], frame["column"]) == (2, 0)
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_breakpoint_in_a_suspended_generator(launch, write, backend, tmp_path):
    # The generator is suspended (on no thread's stack) when the breakpoint arrives;
    # it must still be hit when the generator resumes.
    program = """
        import os, sys, time
        def numbers():
            n = 0
            while True:
                yield n
                n += 1
        flag = sys.argv[1]
        source = numbers()
        next(source)
        while not os.path.exists(flag):
            time.sleep(0.01)
        print(next(source))
    """
    flag = tmp_path / "go"
    debuggee, paths = start(launch, write, backend, {}, program=program, args=[flag])
    import time

    time.sleep(0.2)
    debuggee.set_breakpoints(paths["main"], [6])
    flag.write_text("")
    debuggee.stopped()
    frame = debuggee.top_frame(1)
    assert (frame["name"], frame["line"]) == ("numbers", 6)
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "1\n"


def test_stop_on_entry_of_a_module_target(launch, write, backend):
    write("pkg/__init__.py", "import os\nparent = 1\n")
    write("pkg/tool.py", "import json\nvalue = 1\n")
    debuggee = launch("--module", "pkg.tool", tracer=backend)
    debuggee.configure({"stopOnEntry": True})
    debuggee.request("configurationDone")
    stopped = debuggee.stopped("entry")
    frames = debuggee.request("stackTrace", {"threadId": stopped["threadId"]})["stackFrames"]
    assert [(f["name"], f["source"]["name"], f["line"]) for f in frames] == [
        ("<module>", "tool.py", 1)]
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_breakpoints_in_the_debugger_itself_are_refused(launch, write, backend):
    from conftest import PACKAGE_DIR

    path = write("main.py", "x = 1\n")
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    own_file = PACKAGE_DIR / "dapperdbg" / "requests" / "dispatch.py"
    [breakpoint] = debuggee.set_breakpoints(own_file, [70])
    assert not breakpoint["verified"]
    assert "debugger" in breakpoint["message"]
    debuggee.request("configurationDone")
    debuggee.finish(0)


def test_all_threads_stop_together_and_continue_releases_them(launch, write, backend):
    program = """
        import threading
        flag = []
        def spinner():
            count = 0
            while not flag:
                count += 1
            return count
        def stopper():
            flag.append(1)
        spin = threading.Thread(target=spinner, name="spinner")
        spin.start()
        stop = threading.Thread(target=stopper, name="stopper")
        stop.start()
        stop.join()
        spin.join()
        print("joined")
    """
    debuggee, _ = start(launch, write, backend, {"main": [9]}, program=program)
    first = debuggee.stopped()
    assert first["allThreadsStopped"] is True
    listed = {t["name"]: t["id"] for t in debuggee.request("threads")["threads"]}
    assert {"MainThread", "spinner", "stopper"} <= set(listed)
    assert first["threadId"] == listed["stopper"]
    # The spinning thread parks on a line of its loop (within moments: it runs Python
    # code); from then on its count no longer changes. Until it has parked, it is shown as
    # it is at that moment (a thread blocked outside Python never parks), so a read may
    # come just before its last step: the count must settle, then stay settled.
    counts = []
    deadline = time.monotonic() + 10
    while len(counts) < 3 or len(set(counts[-3:])) != 1:
        assert time.monotonic() < deadline, f"the spinning thread never settled: {counts}"
        frame = debuggee.top_frame(listed["spinner"])
        assert frame["name"] == "spinner" and frame["line"] in (5, 6)
        scopes = debuggee.request("scopes", {"frameId": frame["id"]})["scopes"]
        response = debuggee.request_raw(
            "variables", {"variablesReference": scopes[0]["variablesReference"]})
        if not response["success"]:
            assert "running" in response["message"] and time.monotonic() < deadline
            time.sleep(0.05)
            continue
        found = {v["name"]: v["value"] for v in response["body"]["variables"]}
        counts.append(found["count"])
        time.sleep(0.2)
    # The main thread, blocked in a join, is shown where it is.
    frames = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"]
    assert frames[-1]["name"] == "<module>" and frames[-1]["line"] == 14
    debuggee.request("continue", {"threadId": first["threadId"]})
    debuggee.finish(0)
    assert debuggee.stdout() == "joined\n"


def test_threads_that_hit_breakpoints_together_are_announced_by_one_stop(launch, write,
                                                                          backend):
    # Both threads reach the breakpoint; the second is still evaluating its (slow)
    # condition when the first stops, and stops at it afterwards: one `stopped` event
    # for the pair, as every thread is stopped by the first.
    program = """
        import threading, time
        barrier = threading.Barrier(2)
        def work(delay):
            barrier.wait()
            value = delay
            return value
        workers = [threading.Thread(target=work, args=(d,), name=f"w{d}") for d in (0, 2)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        print("done")
    """
    paths = {"main": write("main.py", program)}
    debuggee = launch("--program", paths["main"], tracer=backend)
    debuggee.configure({"program": str(paths["main"])})
    [breakpoint] = debuggee.set_breakpoints(paths["main"], [6],
                                            condition="time.sleep(delay) is None")
    debuggee.request("configurationDone")
    first = debuggee.stopped()
    assert first["allThreadsStopped"] is True
    assert first["hitBreakpointIds"] == [breakpoint["id"]]
    listed = {t["name"]: t["id"] for t in debuggee.request("threads")["threads"]}
    assert first["threadId"] == listed["w0"]
    # The slow thread stops at its breakpoint, quietly, and is shown there (its condition
    # takes 2 s: long enough that even a loaded machine runs the fast thread's first).
    time.sleep(3.5)
    assert debuggee.top_frame(listed["w2"])["line"] == 6
    debuggee.request("threads")  # Reads every event sent so far.
    assert [e for e in debuggee.events if e["event"] == "stopped"] == []
    debuggee.request("continue", {"threadId": first["threadId"]})
    debuggee.finish(0)
    assert debuggee.stdout() == "done\n"
