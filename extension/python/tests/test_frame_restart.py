"""Restart Frame with the new code (instrumentation/restartable.py, session/frame_restart.py),
through a real debuggee, on every tracer backend: each case is a program, the line it
stops on, an edit reloaded before the restart (or none), the frame restarted (0: the
top one), where the restart stops, and what the program prints in the end."""

from __future__ import annotations

import pytest
from test_hotreload_requests import edit

CASES = {
    "the top frame runs its new code": dict(
        program='''
            def g(n):
                m = n * 2
                return m + 1

            def f(n):
                return g(n) * 10

            print(f(1))
        ''',
        stop=2, edit=("return m + 1", "return m + 2"), frame=0,
        stops_at=("g", 2), output="40\n"),
    "a caller restarts: its callee unwinds": dict(
        program='''
            def g(n):
                m = n * 2
                return m + 1

            def f(n):
                return g(n) * 10

            print(f(1))
        ''',
        stop=2, edit=("return g(n) * 10", "return g(n) * 100"), frame=1,
        stops_at=("f", 6), output="300\n"),
    "a rebound argument is restored": dict(
        program='''
            def g(items, n):
                n = n + 100
                items = items + [n]
                return len(items), n

            print(g([1], 5))
        ''',
        stop=4, edit=None, frame=0, stops_at=("g", 2), output="(2, 105)\n"),
    "a coroutine restarts and its awaiter gets the new result": dict(
        program='''
            import asyncio

            async def leaf(n):
                await asyncio.sleep(0)
                return n + 1

            async def main():
                print(await leaf(1))

            asyncio.run(main())
        ''',
        stop=5, edit=("return n + 1", "return n + 50"), frame=0,
        stops_at=("leaf", 4), output="51\n"),
    "a method using super() restarts": dict(
        program='''
            class Base:
                def size(self):
                    return 1

            class Box(Base):
                def size(self):
                    extra = 2
                    return super().size() + extra

            print(Box().size())
        ''',
        stop=8, edit=("extra = 2", "extra = 20"), frame=0,
        stops_at=("size", 7), output="21\n"),
    "a lock held with `with` is released by the unwinding": dict(
        program='''
            import threading
            lock = threading.Lock()

            def g():
                with lock:
                    value = 1
                    return value

            def f():
                result = g()
                return result, lock.locked()

            print(f())
        ''',
        stop=7, edit=None, frame=1, stops_at=("f", 10), output="(1, False)\n"),
    "a program that swallows BaseException still restarts": dict(
        program='''
            def g():
                try:
                    value = 1
                except BaseException:
                    pass
                return value + 0

            print(g())
        ''',
        stop=3, edit=("value = 1", "value = 7"), frame=0,
        stops_at=("g", 2), output="7\n"),
}

REFUSED = {
    "a generator": ('''
            def gen():
                yield 1
                yield 2

            print(list(gen()))
        ''', 3, 0, "generator"),
    "the module's frame": ('''
            x = 1
            print(x)
        ''', 2, 0, "module-level"),
}


def stopped_in(launch, path, backend, lines, exceptions=None):
    """A debuggee of ``path`` stopped at the first of ``lines`` (or an exception)."""
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure({"program": str(path)})
    debuggee.set_breakpoints(path, lines)
    if exceptions:
        debuggee.request("setExceptionBreakpoints", {"filters": exceptions})
    debuggee.request("configurationDone")
    debuggee.stopped("exception" if exceptions else "breakpoint")
    return debuggee


@pytest.mark.parametrize("case", list(CASES))
def test_restart_frame(launch, write, backend, case):
    spec = CASES[case]
    path = write("program.py", spec["program"])
    debuggee = stopped_in(launch, path, backend, [spec["stop"]])
    frames = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"]
    if spec["edit"] is not None:
        edit(path, *spec["edit"])
        reload = debuggee.request_raw("dapper/hotReload", {"source": {"path": str(path)}})
        assert reload["success"], reload
    debuggee.set_breakpoints(path, [])
    target = frames[spec["frame"]]
    assert target.get("canRestart", True) is True
    response = debuggee.request_raw("restartFrame", {"frameId": target["id"]})
    assert response["success"], response.get("message")
    debuggee.stopped("restart")
    after = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"]
    assert (after[0]["name"].rsplit(".", 1)[-1], after[0]["line"]) == spec["stops_at"]
    # As deep as the stack was from the restarted frame down: no parked frame shows.
    assert len(after) == len(frames) - spec["frame"]
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == spec["output"]


@pytest.mark.parametrize("case", list(REFUSED))
def test_restart_frame_refused(launch, write, backend, case):
    program, stop, index, reason = REFUSED[case]
    path = write("program.py", program)
    debuggee = stopped_in(launch, path, backend, [stop])
    frame = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"][index]
    assert frame.get("canRestart") is False
    response = debuggee.request_raw("restartFrame", {"frameId": frame["id"]})
    assert not response["success"] and reason in response["message"], response
    debuggee.set_breakpoints(path, [])
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def restarted_twice(launch, write, backend):
    """A debuggee stopped in ``g``, which was edited, reloaded and restarted twice; and
    the depth of the stack shown after each restart."""
    path = write("program.py", CASES["the top frame runs its new code"]["program"])
    debuggee = stopped_in(launch, path, backend, [2])
    depths = [len(debuggee.request("stackTrace", {"threadId": 1})["stackFrames"])]
    debuggee.set_breakpoints(path, [])
    for old, new in (("m + 1", "m + 2"), ("m + 2", "m + 3")):
        edit(path, old, new)
        debuggee.request("dapper/hotReload", {"source": {"path": str(path)}})
        top = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"][0]
        debuggee.request("restartFrame", {"frameId": top["id"]})
        debuggee.stopped("restart")
        depths.append(len(debuggee.request("stackTrace", {"threadId": 1})["stackFrames"]))
    return debuggee, depths


def test_a_second_restart_does_not_grow_the_stack(launch, write, backend):
    debuggee, depths = restarted_twice(launch, write, backend)
    assert depths[1:] == [depths[0]] * 2
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "50\n"


def test_a_step_out_of_a_function_restarted_twice_ends_in_its_caller(launch, write, backend):
    # Each restart parks the frame it restarted under the new call: the step out passes
    # both parked frames and stops in the caller, where the call returns.
    debuggee, _ = restarted_twice(launch, write, backend)
    debuggee.request("stepOut", {"threadId": 1})
    debuggee.stopped("step")
    frames = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"]
    assert [(frame["name"], frame["line"]) for frame in frames] == [("f", 6), ("<module>", 8)]
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "50\n"


SWALLOWED_THEN_RETURNED = '''
    def g():
        try:
            value = 1
            return value
        except BaseException:
            return -1

    print(g())
'''


def test_a_restart_swallowed_by_a_handler_that_returns(launch, write, backend):
    # The program's handler catches the restart and returns at once: no line of the frame
    # runs again, and an exception raised from its return event would leave it without
    # its handlers seeing it. The restart is given up, and the user told.
    path = write("program.py", SWALLOWED_THEN_RETURNED)
    debuggee = stopped_in(launch, path, backend, [4])
    edit(path, "value = 1", "value = 7")
    debuggee.request("dapper/hotReload", {"source": {"path": str(path)}})
    debuggee.set_breakpoints(path, [])
    top = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"][0]
    debuggee.request("restartFrame", {"frameId": top["id"]})
    told = debuggee.wait_event("output")["output"]
    assert "did not happen" in told and "caught the debugger's exception" in told
    debuggee.finish(0)
    assert debuggee.stdout() == "-1\n"


RAISES_LATER = '''
    def g(n):
        m = n * 2
        return m

    print(g(1))
'''


def test_a_traceback_from_the_new_code_shows_the_function_once(launch, write, backend):
    path = write("program.py", RAISES_LATER)
    debuggee = stopped_in(launch, path, backend, [2])
    edit(path, "return m", "return m / 0")
    debuggee.request("dapper/hotReload", {"source": {"path": str(path)}})
    debuggee.set_breakpoints(path, [])
    top = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"][0]
    debuggee.request("restartFrame", {"frameId": top["id"]})
    debuggee.stopped("restart")
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(1)
    printed = debuggee.stderr()
    assert "ZeroDivisionError" in printed and printed.count("in g\n") == 1, printed
    assert "__dapper" not in printed and "RestartFrame" not in printed


UNCAUGHT = '''
    def fail():
        raise ValueError("bad")

    def main():
        fail()

    main()
'''


def test_an_uncaught_exception_shows_every_frame_of_restartable_functions(launch, write,
                                                                           backend):
    # Frames an exception has left are shown at the line it passed through them at, not
    # taken for frames parked under a restarted call.
    path = write("program.py", UNCAUGHT)
    debuggee = stopped_in(launch, path, backend, [], ["uncaught"])
    frames = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"]
    assert [(f["name"], f["line"]) for f in frames] == [("fail", 2), ("main", 5),
                                                          ("<module>", 7)]
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(1)


INTROSPECTED = '''
    import inspect, json, pickle, sys, traceback
    import helpers

    def work(a, b=2, *rest, key=None, **options):
        """Work."""
        total = a + b
        return total

    def fails():
        raise KeyError("k")

    def lines(code):
        if hasattr(code, "co_lines"):
            return sorted({line for _, _, line in code.co_lines() if line is not None})
        import dis
        return sorted({line for _, line in dis.findlinestarts(code)})

    try:
        fails()
    except KeyError:
        printed = traceback.format_exc()
    print(json.dumps({
        "source": inspect.getsource(work),
        "signature": str(inspect.signature(work)),
        "doc": work.__doc__,
        "first": work.__code__.co_firstlineno,
        "lines": lines(work.__code__),
        "argcount": work.__code__.co_argcount,
        "pickled": pickle.loads(pickle.dumps(helpers.twice)) is helpers.twice,
        "imported": [helpers.twice(4), lines(helpers.twice.__code__)],
        "traceback": printed.replace(sys.argv[0], "main"),
        "result": work(1, key=3),
        "builtins": sorted(name for name in dir(__builtins__) if "dapper" in name),
        "finders": [getattr(f, "__name__", type(f).__name__) for f in sys.meta_path],
    }))
'''
HELPERS = '''
    def twice(x):
        y = x * 2
        return y
'''


def test_restartable_functions_look_as_they_do_plain(launch, write, backend):
    # What a program can see of its own functions: their source, signature, docstring,
    # lines, pickling, and the tracebacks through them, as plain (the handler's lines are
    # the def line's, where the plain code has none of its own on 3.10+).
    import json
    import subprocess
    import sys

    write("helpers.py", HELPERS)
    path = write("program.py", INTROSPECTED)
    debuggee = launch("--program", path, tracer=backend, cwd=path.parent)
    debuggee.configure({"program": str(path)})
    debuggee.request("configurationDone")
    debuggee.finish(0)
    # The imported module's .pyc is written, as a plain import writes it.
    assert [p.name.split(".")[0] for p in (path.parent / "__pycache__").iterdir()] == ["helpers"]
    plain = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                           cwd=path.parent, check=True)
    seen, expected = json.loads(debuggee.stdout()), json.loads(plain.stdout)
    if sys.version_info < (3, 11):
        # The handler's instructions are on the def line, which a plain function's code
        # lists only from 3.11 (its RESUME).
        for report in (seen, expected):
            report["lines"] = [line for line in report["lines"] if line != report["first"]]
            report["imported"][1] = [line for line in report["imported"][1] if line != 1]
    assert seen == expected


def test_a_module_its_loader_refuses_fails_as_plain(launch, backend):
    # python -m os.path: os.path is posixpath, whose loader refuses the name; the error
    # is the plain one (CPython's test_cmd_line_script), with no word of the debugger's.
    import subprocess
    import sys

    plain = subprocess.run([sys.executable, "-m", "os.path"], capture_output=True, text=True)
    debuggee = launch("--module", "os.path", tracer=backend)
    debuggee.configure({})
    debuggee.request("configurationDone")
    debuggee.finish(plain.returncode)
    assert "Traceback" not in debuggee.stderr() and "dapper" not in debuggee.stderr()
    assert plain.stderr.splitlines()[-1].split(": ", 1)[1] == \
        debuggee.stderr().splitlines()[-1].split(": ", 1)[1]


def test_a_restart_whose_arguments_no_longer_fit_is_refused(launch, write, backend):
    path = write("program.py", CASES["the top frame runs its new code"]["program"])
    debuggee = stopped_in(launch, path, backend, [2])
    edit(path, "def g(n):", "def g(n, scale):")
    debuggee.request("dapper/hotReload", {"source": {"path": str(path)}})
    top = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"][0]
    response = debuggee.request_raw("restartFrame", {"frameId": top["id"]})
    assert not response["success"]
    assert "no longer fit the new signature" in response["message"], response["message"]
    assert "scale" in response["message"]
    debuggee.set_breakpoints(path, [])
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_exception_breakpoints_never_see_the_restart(launch, write, backend):
    # With "Raised Exceptions" and "User Uncaught" on, the restart's own exception stops
    # nowhere on its way: the next stop is the restart's.
    path = write("program.py", CASES["a caller restarts: its callee unwinds"]["program"])
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure({"program": str(path)})
    debuggee.set_breakpoints(path, [2])
    debuggee.request("setExceptionBreakpoints", {"filters": ["raised", "userUnhandled"]})
    debuggee.request("configurationDone")
    debuggee.stopped()
    debuggee.set_breakpoints(path, [])
    caller = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"][1]
    debuggee.request("restartFrame", {"frameId": caller["id"]})
    debuggee.stopped("restart")
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "30\n"
