"""Line breakpoints run as probes in instrumented copies (docs/instrumentation.md), end to
end through the launcher, on every tracer backend, with the copies on and off
(DAPPER_INSTRUMENT=0): the same stops either way."""

from __future__ import annotations

import sys

import pytest

from dapperdbg.instrumentation import switches

MODES = ["copies", "traced"]


def _env(mode):
    return {"DAPPER_INSTRUMENT": "0"} if mode == "traced" else None


@pytest.fixture(params=MODES)
def mode(request):
    return request.param


def run(launch, write, backend, mode, program, breakpoints, files=None):
    """Launch ``program`` as main.py (``files``: more files next to it), set
    ``breakpoints`` ({name: [spec, ...]}, a spec being a line or a dict), finish the
    configuration. Returns (debuggee, {name: path}, {name: [answered breakpoint]})."""
    paths = {"main": write("main.py", program)}
    for name, text in (files or {}).items():
        paths[name] = write(f"{name}.py", text)
    debuggee = launch("--program", paths["main"], tracer=backend, env=_env(mode))
    debuggee.configure({"program": str(paths["main"])})
    answered = {}
    for name, specs in breakpoints.items():
        specs = [spec if isinstance(spec, dict) else {"line": spec} for spec in specs]
        body = debuggee.request("setBreakpoints", {
            "source": {"path": str(paths[name])}, "breakpoints": specs})
        answered[name] = body["breakpoints"]
    debuggee.request("configurationDone")
    return debuggee, paths, answered


def stop_at(debuggee, reason="breakpoint"):
    """The next stop: (its body, top frame's (name, line), the top frame's locals)."""
    body = debuggee.stopped(reason)
    frame = debuggee.top_frame(body["threadId"])
    values = {name: v["value"] for name, v in debuggee.locals_of(frame["id"]).items()}
    return body, (frame["name"], frame["line"]), values


HOT = """
import sys

def hot(n):
    total = 0
    for i in range(n):
        total += i
    return total

copied = "__dapper_probe__" in hot.__code__.co_names
hot(2000)
print("copied", copied, file=sys.stderr)
"""


@pytest.mark.parametrize("spec,expected_i", [
    ({"line": 6, "condition": "i == 1500"}, ["1500"]),
    ({"line": 6, "condition": "i % 700 == 1"}, ["1", "701", "1401"]),
    ({"line": 6, "condition": "i > 10", "hitCondition": "3"}, ["13"]),
    ({"line": 6, "hitCondition": "%900"}, ["899", "1799"]),
])
def test_conditional_breakpoints_stop_where_the_condition_holds(launch, write, backend, mode,
                                                                spec, expected_i):
    debuggee, _, answered = run(launch, write, backend, mode, HOT, {"main": [spec]})
    [breakpoint] = answered["main"]
    seen = []
    for _ in expected_i:
        body, where, values = stop_at(debuggee)
        assert body["hitBreakpointIds"] == [breakpoint["id"]]
        assert where == ("hot", 6)
        seen.append(values["i"])
        debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert seen == expected_i
    # The function ran an instrumented copy exactly when the copies are on.
    assert f"copied {mode == 'copies'}" in debuggee.stderr()


def test_a_condition_that_raises_stops_once_with_a_message_then_only_stops(
        launch, write, backend, mode):
    program = "def f(i):\n    x = i\n\nfor i in range(3):\n    f(i)\n"
    debuggee, _, _ = run(launch, write, backend, mode, program,
                         {"main": [{"line": 2, "condition": "1 / (i - 1) > 0"}]})
    # i == 0: false; i == 1: ZeroDivisionError, stop with a message; i == 2: true.
    _, where, values = stop_at(debuggee)
    assert (where, values["i"]) == (("f", 2), "1")
    assert "ZeroDivisionError" in debuggee.wait_event("output")["output"]
    debuggee.request("continue", {"threadId": 1})
    _, _, values = stop_at(debuggee)
    assert values["i"] == "2"
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert not [e for e in debuggee.events if e["event"] == "output"]


def test_the_exception_of_a_condition_is_not_an_exception_stop(launch, write, backend, mode):
    program = "def f(i):\n    x = i\n\nfor i in range(2):\n    f(i)\nprint('end')\n"
    paths = {"main": write("main.py", program)}
    debuggee = launch("--program", paths["main"], tracer=backend, env=_env(mode))
    debuggee.configure({"program": str(paths["main"])})
    debuggee.request("setExceptionBreakpoints", {"filters": ["raised"]})
    debuggee.set_breakpoints(paths["main"], [2], condition="missing_name")
    debuggee.request("configurationDone")
    _, where, _ = stop_at(debuggee)
    assert where == ("f", 2)
    debuggee.request("continue", {"threadId": 1})
    stop_at(debuggee)  # The second call: the condition raises again (no message).
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


STEPPING = """
def work(n):
    a = n + 1
    b = a * 2
    return b

for k in range(3):
    work(k)
"""


def test_stepping_from_a_probe_stop_and_over_a_probe_line(launch, write, backend, mode):
    # Line 2 stops when n == 1; stepping from there goes on to line 3. Line 3 has a
    # breakpoint whose condition is true only when n == 2.
    debuggee, _, answered = run(launch, write, backend, mode, STEPPING, {"main": [
        {"line": 2, "condition": "n == 1"}, {"line": 3, "condition": "n == 2"}]})
    first, second = (bp["id"] for bp in answered["main"])
    body, where, values = stop_at(debuggee)
    assert (body["hitBreakpointIds"], where, values) == ([first], ("work", 2), {"n": "1"})
    debuggee.request("next", {"threadId": 1})
    # A step onto a probe line whose condition is false: an ordinary step stop.
    _, where, values = stop_at(debuggee, "step")
    assert where == ("work", 3) and values["a"] == "2"
    debuggee.request("next", {"threadId": 1})
    _, where, _ = stop_at(debuggee, "step")
    assert where == ("work", 4)
    debuggee.request("continue", {"threadId": 1})
    # n == 2: line 2's condition is false, line 3's true.
    body, where, values = stop_at(debuggee)
    assert (body["hitBreakpointIds"], where, values["n"]) == ([second], ("work", 3), "2")
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_a_step_that_ends_on_a_probe_line_whose_condition_holds_stops_once(
        launch, write, backend, mode):
    debuggee, paths, answered = run(launch, write, backend, mode, STEPPING, {"main": [
        {"line": 2, "condition": "n == 1"}, {"line": 3}]})
    # n == 0: line 3 (unconditional) stops; stepping out and in reaches line 2 of
    # n == 1, where the breakpoint's condition holds: one stop, reason breakpoint.
    _, where, _ = stop_at(debuggee)
    assert where == ("work", 3)
    debuggee.request("next", {"threadId": 1})
    assert stop_at(debuggee, "step")[1] == ("work", 4)
    debuggee.request("stepOut", {"threadId": 1})
    # Where work returned (its call's line), then the loop's next round.
    assert stop_at(debuggee, "step")[1] == ("<module>", 7)
    debuggee.request("next", {"threadId": 1})
    assert stop_at(debuggee, "step")[1] == ("<module>", 6)
    debuggee.request("next", {"threadId": 1})
    assert stop_at(debuggee, "step")[1] == ("<module>", 7)
    debuggee.request("stepIn", {"threadId": 1})
    body, where, values = stop_at(debuggee)
    assert (body["hitBreakpointIds"], where, values) == (
        [answered["main"][0]["id"]], ("work", 2), {"n": "1"})
    # Continuing runs the probe of that line: it must not stop there again.
    debuggee.request("continue", {"threadId": 1})
    _, where, values = stop_at(debuggee)
    assert (where, values["n"]) == (("work", 3), "1")
    debuggee.set_breakpoints(paths["main"], [])
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_two_breakpoints_on_one_line_and_a_logpoint(launch, write, backend, mode):
    program = "for i in range(4):\n    x = i\n"
    debuggee, _, answered = run(launch, write, backend, mode, program, {"main": [
        {"line": 2, "condition": "i == 2"}, {"line": 2, "logMessage": "i={i}"}]})
    conditional, logpoint = answered["main"]
    assert conditional["id"] != logpoint["id"]
    body, _, values = stop_at(debuggee)
    assert (body["hitBreakpointIds"], values["i"]) == ([conditional["id"]], "2")
    debuggee.request("continue", {"threadId": 1})
    logged = [debuggee.wait_event("output")["output"] for _ in range(4)]
    debuggee.finish(0)
    assert logged == ["i=0\n", "i=1\n", "i=2\n", "i=3\n"]


def test_a_breakpoint_on_a_loop_header_is_left_to_the_tracer(launch, write, backend, mode):
    program = "def f():\n    i = 0\n    while i < 5:\n        i += 1\n\nf()\n"
    debuggee, _, _ = run(launch, write, backend, mode, program,
                         {"main": [{"line": 3, "condition": "i == 3"}]})
    _, where, values = stop_at(debuggee)
    assert (where, values["i"]) == (("f", 3), "3")
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


LOOP = """
import time
i = 0
while i < 400:
    i += 1
    time.sleep(0.005)
print("done", i)
"""


def test_changing_a_condition_while_a_module_level_loop_runs(launch, write, backend, mode):
    # The module's frame runs the copy compiled with the first condition; after the
    # change it keeps running it (a stale frame): the tracer stops there, once a hit.
    debuggee, paths, _ = run(launch, write, backend, mode, LOOP,
                             {"main": [{"line": 5, "condition": "i == -1"}]})
    debuggee.set_breakpoints(paths["main"], [5], condition="i >= 150")
    _, where, values = stop_at(debuggee)
    assert where == ("<module>", 5)
    first = int(values["i"])
    assert 150 <= first < 400
    debuggee.request("continue", {"threadId": 1})
    _, _, values = stop_at(debuggee)
    assert int(values["i"]) == first + 1
    debuggee.set_breakpoints(paths["main"], [])
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "done 400\n"


def test_a_function_called_by_a_condition_does_not_stop_at_its_breakpoint(
        launch, write, backend, mode):
    program = "def check(v):\n    return v == 2\n\nfor i in range(4):\n    x = i\n"
    debuggee, _, answered = run(launch, write, backend, mode, program, {"main": [
        2, {"line": 5, "condition": "check(i)"}]})
    # Line 2 is reached only through the condition: it never stops there.
    body, where, values = stop_at(debuggee)
    assert (body["hitBreakpointIds"], where, values["i"]) == (
        [answered["main"][1]["id"]], ("<module>", 5), "2")
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_goto_onto_a_breakpoint_line_does_not_stop_there(launch, write, backend, mode):
    program = "a = 1\nb = 2\nc = 3\nprint(a, b, c)\n"
    debuggee, _, answered = run(launch, write, backend, mode, program, {"main": [1, 3]})
    _, where, _ = stop_at(debuggee)
    assert where == ("<module>", 1)
    debuggee.request("continue", {"threadId": 1})
    assert stop_at(debuggee)[1] == ("<module>", 3)
    # Back to line 1, whose breakpoint the jump passes, as a jump with the tracer does.
    debuggee.request("goto", {"threadId": 1, "targetId": 1})
    assert stop_at(debuggee, "goto")[1] == ("<module>", 1)
    debuggee.request("next", {"threadId": 1})
    assert stop_at(debuggee, "step")[1] == ("<module>", 2)
    debuggee.request("continue", {"threadId": 1})
    assert stop_at(debuggee)[1] == ("<module>", 3)
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "1 2 3\n"


GOTO_BACK = """\
def main():
    x = 3
    x = x * 10
    print("result", x)
main()
"""


def test_a_goto_back_in_a_function_stops_again_at_the_breakpoint_it_left(
        launch, write, backend, mode):
    # 3.9 reads f_lineno as the last line traced while a frame keeps a trace function
    # without events: the probe's second run looked like the goto's own line, and did not
    # stop (found by the end-to-end suite once it ran on 3.9).
    debuggee, _, _ = run(launch, write, backend, mode, GOTO_BACK, {"main": [4]})
    assert stop_at(debuggee)[1] == ("main", 4)
    debuggee.request("goto", {"threadId": 1, "targetId": 3})
    assert stop_at(debuggee, "goto")[1] == ("main", 3)
    debuggee.request("continue", {"threadId": 1})
    assert stop_at(debuggee)[1] == ("main", 4)
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "result 300\n"


UNTRACED = """
import sys, threading, time
def f(i):
    x = i
    return sys.gettrace() is None
before = f(0)
f(1)
time.sleep(0.3)
between = f(5)
f(2)
time.sleep(0.3)
after = f(6)
in_thread = []
thread = threading.Thread(target=lambda: in_thread.append(f(7)))
thread.start()
thread.join()
print(before, between, after, in_thread[0])
"""


def test_between_stops_the_program_runs_untraced_where_it_can(launch, write, backend, mode):
    # 3.9-3.11 with copies: no trace function at all, but while a thread stops (and
    # steps). 3.12+: sys.monitoring never needs one; forced settrace keeps it.
    debuggee, _, _ = run(launch, write, backend, mode, UNTRACED,
                         {"main": [{"line": 3, "condition": "i in (1, 2)"}]})
    _, where, values = stop_at(debuggee)
    assert (where, values["i"]) == (("f", 3), "1")
    debuggee.request("continue", {"threadId": 1})
    _, where, values = stop_at(debuggee)
    assert (where, values["i"]) == (("f", 3), "2")
    debuggee.request("next", {"threadId": 1})
    assert stop_at(debuggee, "step")[1] == ("f", 4)
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    untraced = backend == "monitoring" or (mode == "copies" and sys.version_info < (3, 12))
    assert debuggee.stdout() == " ".join([str(untraced)] * 4) + "\n"


MODULE = """
def helper(v):
    w = v * 3
    return w
"""


def test_a_module_imported_later_runs_copies_and_verifies_its_breakpoint(
        launch, write, backend, mode):
    program = "import sys\nimport mod\nprint(mod.helper(5))\n" \
              "print('copied', '__dapper_probe__' in mod.helper.__code__.co_names, " \
              "file=sys.stderr)\n"
    debuggee, _, answered = run(launch, write, backend, mode, program,
                                {"mod": [{"line": 2, "condition": "v == 5"}]},
                                files={"mod": MODULE})
    [breakpoint] = answered["mod"]
    assert breakpoint["verified"] is True  # Pending (mod is not imported yet): shown so.
    changed = debuggee.wait_event("breakpoint")
    assert changed["breakpoint"]["id"] == breakpoint["id"]
    assert changed["breakpoint"]["verified"] is True
    _, where, values = stop_at(debuggee)
    assert (where, values) == (("helper", 2), {"v": "5"})
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "15\n"
    assert f"copied {mode == 'copies'}" in debuggee.stderr()


def test_removing_breakpoints_restores_the_original_code(launch, write, backend):
    program = """
import sys
def f(i):
    x = i
    return x

f(0)
probed = "__dapper_probe__" in f.__code__.co_names
f(1)
print("probed", probed, "after", "__dapper_probe__" in f.__code__.co_names, file=sys.stderr)
"""
    debuggee, paths, _ = run(launch, write, backend, "copies", program,
                             {"main": [{"line": 3, "condition": "i == 1"}]})
    _, _, values = stop_at(debuggee)
    assert values["i"] == "1"
    debuggee.set_breakpoints(paths["main"], [])
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert "probed True after False" in debuggee.stderr()


@pytest.mark.parametrize("value,expected", [
    (None, True), ("", True), ("1", True), ("0", False), (" 0 ", False)])
def test_the_instrument_variable(value, expected):
    variables = {} if value is None else {switches.VARIABLE: value}
    assert switches.enabled(variables) is expected


def test_the_program_is_compiled_again_when_its_probes_changed_before_it_ran(tmp_path):
    # A setBreakpoints answered between the launcher's compile of the main program and its
    # run changed probes that no frame runs yet: the run must use code with the new ones
    # (this was a race the loop test above lost about 1 run in 18 under load).
    import subprocess
    import sys

    from conftest import PACKAGE_DIR

    program = tmp_path / "main.py"
    program.write_text("print('ran')\n")
    script = f"""
import sys
sys.path.insert(0, {str(PACKAGE_DIR)!r})
from dapperdbg.session import program
compiled = []
def hook(source, filename):
    compiled.append(filename)
    return compile(source, filename, "exec")
current = [True]
program.compile_program_hook = hook
program.program_is_current_hook = lambda filename: current[0]
run = program.prepare_program({str(program)!r}, [])
run()
current[0] = False
run()
print(len(compiled), file=sys.stderr)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ran\nran\n"
    assert result.stderr == "2\n"  # Once to prepare, once more for the stale run only.


STALE_COPY = """
for i in range(3):
    a = i
    b = i
print("done")
"""


def test_a_frame_running_a_stale_copy_stops_once_a_line(launch, write, backend):
    """Breakpoints changed while a module-level loop runs its copy: its lines are traced,
    and the copy's old probe must not stop a second time (debugger.probe_hit)."""
    program = write("main.py", STALE_COPY)
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program)})
    source = {"path": str(program)}
    debuggee.request("setBreakpoints", {"source": source, "breakpoints": [{"line": 2}]})
    debuggee.request("configurationDone")
    stopped = debuggee.stopped()
    lines = [debuggee.top_frame(stopped["threadId"])["line"]]
    debuggee.request("setBreakpoints", {"source": source,
                                        "breakpoints": [{"line": 2}, {"line": 3}]})
    for _ in range(5):
        debuggee.request("continue", {"threadId": stopped["threadId"]})
        stopped = debuggee.stopped()
        lines.append(debuggee.top_frame(stopped["threadId"])["line"])
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)
    assert lines == [2, 3, 2, 3, 2, 3]


AVERAGE = """
import sys

def average(values):
    total = 0
    for v in values:
        total += v
    return total / len(values)

print(average([1, 2, 3]))
"""
OTHER = "x = 1\n"


# The request that follows the change to a plain breakpoint on line 7 of main.py: none,
# setBreakpoints of a file (its name and lines), or setFunctionBreakpoints; and the lines
# of main.py the program then stops at.
SECOND_REQUESTS = {
    "none": (None, [7]),
    "same file": (("main", [7, 9]), [9, 7]),
    "other file": (("other", [1]), [7]),
    "function breakpoints": ("functions", [7]),
}


@pytest.mark.parametrize("second", SECOND_REQUESTS)
def test_a_condition_removed_at_entry_stays_removed_after_another_request(
        launch, write, backend, second):
    """Stopped at entry, the module frame runs the copy compiled at launch, whose
    ``average`` has the first condition (False) compiled in: the change to a plain
    breakpoint leaves that frame stale, and a later request (which applies the file's
    probes again, or not) must keep it so, or the new ``average`` it defines never
    stops."""
    request, expected = SECOND_REQUESTS[second]
    paths = {"main": write("main.py", AVERAGE), "other": write("other.py", OTHER)}
    debuggee = launch("--program", paths["main"], tracer=backend)
    debuggee.configure({"program": str(paths["main"]), "stopOnEntry": True})
    debuggee.set_breakpoints(paths["main"], [7], condition="False")
    debuggee.request("configurationDone")
    entry = debuggee.stopped("entry")
    debuggee.set_breakpoints(paths["main"], [7])
    if request == "functions":
        debuggee.request("setFunctionBreakpoints", {"breakpoints": []})
    elif request is not None:
        name, lines = request
        debuggee.set_breakpoints(paths[name], lines)
    debuggee.request("continue", {"threadId": entry["threadId"]})
    lines = []
    for _ in expected:
        stopped = debuggee.stopped("breakpoint", timeout=5)
        lines.append(debuggee.top_frame(stopped["threadId"])["line"])
        debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)
    assert lines == expected
