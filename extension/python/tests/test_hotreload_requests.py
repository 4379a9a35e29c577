"""dapper/hotReload and restartFrame through a real debuggee (the harness plays the
engine), on every tracer backend, with the instrumented copies on and off: the new code
runs, the main script's loop is not run again, breakpoints follow the new code, errors
change nothing, restartFrame re-enters the stopped frame."""

from __future__ import annotations

import os
import time

import pytest

MODES = ["copies", "traced"]

APP = '''
import sys

print("starting", flush=True)
state = {"calls": 0}


def greet(n):
    state["calls"] += 1
    return "old %d" % n


def caller(n):
    return greet(n)


results = []
for i in range(3):
    results.append(caller(i))
print(results, state["calls"], flush=True)
'''
OLD_GREET = '''def greet(n):
    state["calls"] += 1
    return "old %d" % n
'''
NEW_GREET = '''def greet(n):
    state["calls"] += 1
    word = "new"
    return "%s %d" % (word, n)
'''
LOOP_LINE = 18  # results.append(caller(i))
GREET_FIRST = 8  # state["calls"] += 1
WORD_LINE = 9  # word = "new", after the edit
NEW_OUTPUT = "starting\n['new 0', 'new 1', 'new 2'] 3\n"
OLD_OUTPUT = "starting\n['old 0', 'old 1', 'old 2'] 3\n"


@pytest.fixture(params=MODES)
def mode(request):
    return request.param


def start(launch, write, backend, mode, lines, client=None):
    path = write("app.py", APP)
    env = {"DAPPER_INSTRUMENT": "0"} if mode == "traced" else None
    debuggee = launch("--program", path, tracer=backend, env=env)
    debuggee.configure({"program": str(path)}, client)
    debuggee.set_breakpoints(path, lines)
    debuggee.request("configurationDone")
    return debuggee, path


def edit(path, old, new):
    source = path.read_text()
    assert old in source
    # A new modification time even on file systems with coarse timestamps.
    stat = os.stat(path)
    path.write_text(source.replace(old, new))
    os.utime(path, ns=(stat.st_atime_ns, max(stat.st_mtime_ns + 1_000_000, time.time_ns())))


def reload(debuggee, path, **extra):
    return debuggee.request_raw("dapper/hotReload", {"source": {"path": str(path)}, **extra})


def test_an_edited_function_runs_its_new_code_and_the_loop_goes_on(launch, write, backend, mode):
    debuggee, path = start(launch, write, backend, mode, [LOOP_LINE],
                           client={"supportsInvalidatedEvent": True})
    debuggee.stopped()
    edit(path, OLD_GREET, NEW_GREET)
    response = reload(debuggee, path)
    assert response["success"], response
    body = response["body"]
    assert body["reloadedModule"] == "__main__"
    assert body["updated"] == ["greet"]
    assert body["moved"] == ["caller"]  # its lines moved down: patched, not changed
    assert body["framesRunningOldCode"] == []
    assert body["durationMs"] >= 0
    assert debuggee.wait_event("dapper/hotReloadResult") == body
    assert debuggee.wait_event("invalidated") == {"areas": ["stacks"]}
    debuggee.set_breakpoints(path, [])
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == NEW_OUTPUT


def test_breakpoints_follow_the_new_code(launch, write, backend, mode):
    # A breakpoint in greet, set before the reload, stops in the new code; one on a line
    # that holds no code after the edit moves (a breakpoint event says where).
    debuggee, path = start(launch, write, backend, mode, [LOOP_LINE])
    debuggee.stopped()
    # Line 10 is blank: its breakpoint sits on ``def caller`` (12), then on the return (11).
    assert [bp["line"] for bp in debuggee.set_breakpoints(path, [GREET_FIRST, 10])] == [8, 12]
    edit(path, OLD_GREET, NEW_GREET.replace('    word = "new"\n', '    word = "new"\n\n'))
    assert reload(debuggee, path)["success"]
    moved = debuggee.wait_event("breakpoint")
    assert moved["reason"] == "changed"
    assert (moved["breakpoint"]["line"], moved["breakpoint"]["verified"]) == (11, True)
    debuggee.request("continue", {"threadId": 1})
    debuggee.stopped()
    assert debuggee.top_frame(1)["line"] == GREET_FIRST
    debuggee.set_breakpoints(path, [WORD_LINE])
    debuggee.request("continue", {"threadId": 1})
    debuggee.stopped()
    frame = debuggee.top_frame(1)
    assert (frame["name"], frame["line"]) == ("greet", WORD_LINE)
    debuggee.set_breakpoints(path, [])
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == NEW_OUTPUT


def test_a_compile_error_names_its_place_and_changes_nothing(launch, write, backend, mode):
    debuggee, path = start(launch, write, backend, mode, [LOOP_LINE])
    debuggee.stopped()
    edit(path, OLD_GREET, NEW_GREET + "\n\ndef broken(:\n    pass\n")
    response = reload(debuggee, path)
    assert not response["success"]
    line = path.read_text().splitlines().index("def broken(:") + 1
    assert f"line {line}, column" in response["message"], response
    assert "nothing was reloaded" in response["message"]
    debuggee.set_breakpoints(path, [])
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == OLD_OUTPUT


def test_refusals(launch, write, backend, tmp_path):
    program = write("main.py", '''
        import time
        while True:
            time.sleep(0.01)
    ''')
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program)})
    debuggee.request("configurationDone")
    response = reload(debuggee, program)
    assert not response["success"]
    assert "The program is running: pause it first, or ask for whileRunning" in \
        response["message"]
    debuggee.request("pause", {"threadId": 1})
    debuggee.stopped("pause")
    other = write("never_imported.py", "x = 1\n")
    assert "not loaded" in reload(debuggee, other)["message"]
    text = write("notes.txt", "hello\n")
    assert "not a Python source" in reload(debuggee, text)["message"]
    # The loop never ends: the harness kills the program.


def test_reload_while_running(launch, write, backend):
    program = write("main.py", '''
        import sys
        import time

        def work():
            return "old"

        print("running", flush=True)
        out = []
        # Until the reload shows (a minute at most: a loaded machine may take seconds).
        while len(out) < 12000 and "new" not in out:
            out.append(work())
            time.sleep(0.005)
        # The new code may run before the reload's response is sent: the program waits
        # for it rather than end first (its end closes the connection).
        time.sleep(0.5)
        print(out[-1])
    ''')
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program)})
    debuggee.request("configurationDone")
    deadline = time.monotonic() + 10
    while "running" not in debuggee.stdout() and time.monotonic() < deadline:
        time.sleep(0.01)
    edit(program, 'return "old"', 'return "new"')
    body = debuggee.request("dapper/hotReload", {"source": {"path": str(program)},
                                                 "whileRunning": True})
    assert body["updated"] == ["work"]
    debuggee.finish(0)
    assert debuggee.stdout() == "running\nnew\n"


def test_restart_frame_runs_the_new_code(launch, write, backend, mode):
    debuggee, path = start(launch, write, backend, mode, [GREET_FIRST])
    debuggee.stopped()
    frames = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"]
    assert [frame["name"] for frame in frames[:2]] == ["greet", "caller"]
    edit(path, OLD_GREET, NEW_GREET)
    body = reload(debuggee, path)["body"]
    old = [(frame["name"], frame.get("frameId")) for frame in body["framesRunningOldCode"]]
    # caller's code changed too: its lines moved down by one.
    assert old == [("greet", frames[0]["id"]), ("caller", frames[1]["id"])]
    debuggee.set_breakpoints(path, [])
    response = debuggee.request_raw("restartFrame", {"frameId": frames[0]["id"]})
    if mode == "traced":
        # Without the copies a frame runs the code it started with: the new code could
        # not run, and the restart says why instead of running the old code again.
        assert not response["success"] and "new code" in response["message"], response
        debuggee.request("continue", {"threadId": 1})
        debuggee.finish(0)
        assert debuggee.stdout() == "starting\n['old 0', 'new 1', 'new 2'] 3\n"
        return
    assert response["success"], response
    debuggee.stopped("restart")
    restarted = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"]
    # The restarted call stands where the old one stood: the stack is as deep as before
    # (its callers run the code they started with, at their old lines).
    assert [(f["name"], f["line"]) for f in restarted] == [
        ("greet", GREET_FIRST), ("caller", frames[1]["line"]), ("<module>", LOOP_LINE)]
    debuggee.request("next", {"threadId": 1})
    debuggee.stopped("step")
    assert debuggee.top_frame(1)["line"] == WORD_LINE  # The new code's line.
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    # The restarted call ran the new code (the stop was before the old one counted).
    assert debuggee.stdout() == "starting\n['new 0', 'new 1', 'new 2'] 3\n"


def test_restart_frame_of_a_caller_unwinds_the_frames_above(launch, write, backend):
    debuggee, path = start(launch, write, backend, "copies", [GREET_FIRST])
    debuggee.stopped()
    frames = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"]
    edit(path, "    return greet(n)\n", "    return greet(n + 10)\n")
    reload(debuggee, path)
    debuggee.set_breakpoints(path, [])
    debuggee.request("restartFrame", {"frameId": frames[1]["id"]})
    debuggee.stopped("restart")
    top = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"]
    assert [(f["name"], f["line"]) for f in top] == [
        ("caller", frames[1]["line"]), ("<module>", LOOP_LINE)]
    assert debuggee.locals_of(top[0]["id"])["n"]["value"] == "0"
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "starting\n['old 10', 'old 11', 'old 12'] 3\n"


def test_restart_frame_refuses_a_module_frame(launch, write, backend):
    debuggee, path = start(launch, write, backend, "copies", [LOOP_LINE])
    debuggee.stopped()
    frame = debuggee.top_frame(1)
    response = debuggee.request_raw("restartFrame", {"frameId": frame["id"]})
    assert not response["success"] and "module-level" in response["message"], response
    debuggee.set_breakpoints(path, [])
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_a_patch_deferred_while_running_is_applied_at_the_next_stop(launch, write, backend):
    # step() is on the main thread's stack (asleep in it) whenever the reload comes: its
    # patch waits, and is applied at the next stop outside it.
    program = write("main.py", '''
        import time

        def step():
            time.sleep(0.05)
            return "old"

        print("running", flush=True)
        out = "old"
        while out == "old":
            out = step()
            marker = 1
        print(out)
    ''')
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program)})
    debuggee.request("configurationDone")
    deadline = time.monotonic() + 10
    while "running" not in debuggee.stdout() and time.monotonic() < deadline:
        time.sleep(0.01)
    edit(program, 'return "old"', 'return "new"')
    body = debuggee.request("dapper/hotReload", {"source": {"path": str(program)},
                                                 "whileRunning": True})
    assert (body["updated"], body["deferred"]) == ([], ["step"]), body
    assert debuggee.wait_event("dapper/hotReloadResult") == body
    debuggee.set_breakpoints(program, [11])
    debuggee.stopped()
    applied = debuggee.wait_event("dapper/hotReloadResult")
    assert (applied["updated"], applied["deferred"]) == (["step"], []), applied
    debuggee.set_breakpoints(program, [])
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "running\nnew\n"


def test_an_imported_module_reload_names_the_statements_it_did_not_run(launch, write, backend):
    # The module's source is remembered at the first stop in it, before the edit.
    write("helper.py", '''
        LIMIT = 3
        print("helper imported", flush=True)


        def scale(n):
            return n * 10
    ''')
    program = write("main.py", '''
        import helper

        print(helper.scale(1), flush=True)
        print(helper.scale(2), helper.LIMIT, flush=True)
    ''')
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program)})
    helper = program.parent / "helper.py"
    debuggee.set_breakpoints(helper, [6])
    debuggee.request("configurationDone")
    debuggee.stopped()
    edit(helper, "LIMIT = 3\n", "LIMIT = 4\n")
    edit(helper, "n * 10", "n * 100")
    body = reload(debuggee, helper)["body"]
    assert (body["reloadedModule"], body["updated"]) == ("helper", ["scale"]), body
    assert any("LIMIT = 4" in warning and "not re-run" in warning
               for warning in body["warnings"]), body["warnings"]
    debuggee.set_breakpoints(helper, [])
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    # The stopped call finished its old code; the module was not run again (LIMIT kept).
    assert debuggee.stdout() == "helper imported\n10\n200 3\n"
