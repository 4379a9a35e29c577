"""How the debugger finds the code of the files that hold line breakpoints, and what
looking for it costs the rest of the program (docs/instrumentation.md).

Code comes from the debugger's own finder and the program's compile (with probes),
from live functions given copies, or from a compile of someone else's: another loader
(pytest's), ``runpy.run_path``, ``exec`` of a file's text. All of them stop. On 3.12 the
sys.monitoring backend looks at code as it starts only until every file with line
breakpoints is accounted for: a tool watching PY_START makes 3.12 instrument each code
object that first runs meanwhile, and 3.12's instrumentation undoes its superinstructions
for good. A function that first runs after that must run exactly as plain, fused
instructions and all."""

from __future__ import annotations

import subprocess
import sys

import pytest

MODES = {"copies": None, "traced": {"DAPPER_INSTRUMENT": "0"}}

ACCOUNTED = """
def f():
    return "accounted"  # line 2: a breakpoint
"""

ELSEWHERE = """
def g():
    return "elsewhere"  # line 2: a breakpoint
"""

SCRIPT = """
def h():
    return "script"  # line 2: a breakpoint


RESULT = h()
"""

# The breakpoint files are imported first; work() runs only after, and reports which of
# its instructions the interpreter fused (3.12 names them A__B; later versions have none).
FUSED_PROGRAM = """
import dis
import sys

import accounted


def work(n):
    total = 0
    for i in range(n):
        a = i
        b = a
        total += a ^ b
    return total


for _ in range(3):
    work(100)
adaptive = {"adaptive": True} if sys.version_info >= (3, 11) else {}
print(sorted({i.opname for i in dis.get_instructions(work, **adaptive) if "__" in i.opname}))
print(accounted.f())
"""

# Each breakpoint file comes a different way, in this order: the finder, a loader of the
# program's own, runpy.run_path (an exec of the file's compile), and the finder again
# through importlib.reload.
LOADERS_PROGRAM = """
import importlib
import importlib.abc
import importlib.util
import runpy
import sys

import accounted


class OwnLoader(importlib.abc.Loader):
    def __init__(self, path):
        self.path = path

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        with open(self.path, encoding="utf-8") as file:
            code = compile(file.read(), self.path, "exec")
        exec(code, module.__dict__)


print(accounted.f())
spec = importlib.util.spec_from_loader("elsewhere", OwnLoader(sys.argv[1]))
elsewhere = importlib.util.module_from_spec(spec)
spec.loader.exec_module(elsewhere)
print(elsewhere.g())
print(runpy.run_path(sys.argv[2])["RESULT"])
print(importlib.reload(accounted).f())
"""


def run_plain(path, *arguments, cwd) -> str:
    return subprocess.run([sys.executable, str(path), *map(str, arguments)], cwd=cwd,
                          check=True, capture_output=True, text=True, timeout=60).stdout


def stop_at(debuggee, expected) -> None:
    stopped = debuggee.stopped()
    frame = debuggee.top_frame(stopped["threadId"])
    assert (frame["name"], frame["line"]) == expected
    debuggee.request("continue", {"threadId": stopped["threadId"]})


def debugged_output(launch, program, arguments, breakpoint_files, stops, backend, mode,
                    cwd) -> str:
    """Run ``program`` with a breakpoint on line 2 of each of ``breakpoint_files``, check
    that it stops at ``stops`` ((function, line), in order) and ends with status 0; its
    output."""
    debuggee = launch("--program", program, *arguments, tracer=backend, env=MODES[mode],
                      cwd=cwd)
    debuggee.configure({"program": str(program)})
    for path in breakpoint_files:
        debuggee.set_breakpoints(path, [2])
    debuggee.request("configurationDone")
    for expected in stops:
        stop_at(debuggee, expected)
    debuggee.finish(0)
    return debuggee.stdout()


@pytest.mark.parametrize("mode", list(MODES))
def test_code_that_first_runs_once_breakpoint_files_are_loaded_runs_as_plain(
        launch, write, backend, tmp_path, mode):
    accounted = write("accounted.py", ACCOUNTED)
    program = write("main.py", FUSED_PROGRAM)
    plain = run_plain(program, cwd=tmp_path)
    fused, result = debugged_output(launch, program, [], [accounted], [("f", 2)], backend,
                                    mode, tmp_path).splitlines()
    assert result == "accounted"
    if mode == "copies" and (backend == "monitoring" or sys.version_info < (3, 12)):
        # With the copies, nothing is watched once every breakpoint file is loaded. Traced,
        # 3.12 instruments every code object (sys.settrace is built on the same
        # instrumentation there, so the settrace fallback on 3.12+ does too).
        assert fused == plain.splitlines()[0]


@pytest.mark.parametrize("mode", list(MODES))
def test_code_compiled_by_other_loaders_stops_at_its_breakpoints(
        launch, write, backend, tmp_path, mode):
    accounted = write("accounted.py", ACCOUNTED)
    elsewhere = write("elsewhere_source.py", ELSEWHERE)
    script = write("script.py", SCRIPT)
    program = write("main.py", LOADERS_PROGRAM)
    plain = run_plain(program, elsewhere, script, cwd=tmp_path)
    output = debugged_output(launch, program, [elsewhere, script],
                             [accounted, elsewhere, script],
                             [("f", 2), ("g", 2), ("h", 2), ("f", 2)], backend, mode, tmp_path)
    assert output == plain == "accounted\nelsewhere\nscript\naccounted\n"


# The file changes between setBreakpoints and its import: line 2 becomes a loop header,
# which the copies leave to the tracer (the import's compile refuses it).
EDITED = """
def f():
    for value in ["edited"]:  # line 2: a breakpoint, now the tracer's
        return value
"""

EDITING_PROGRAM = """
import sys

with open(sys.argv[1], "w", encoding="utf-8") as file:
    file.write(sys.argv[2])

import accounted

print(accounted.f())
"""


@pytest.mark.parametrize("mode", list(MODES))
def test_a_line_the_import_refuses_still_stops(launch, write, backend, tmp_path, mode):
    accounted = write("accounted.py", ACCOUNTED)
    program = write("main.py", EDITING_PROGRAM)
    output = debugged_output(launch, program, [accounted, EDITED.lstrip("\n")], [accounted],
                             [("f", 2)], backend, mode, tmp_path)
    assert output == "edited\n"


@pytest.mark.parametrize("mode", list(MODES))
def test_a_compiled_script_stops_at_the_breakpoints_of_its_source(
        launch, write, backend, tmp_path, mode):
    # python script.pyc runs the compiled code as it is: no probes, so the tracer sees it.
    import py_compile

    source = write("script.py", SCRIPT + "print(RESULT)\n")
    compiled = tmp_path / "script.pyc"
    py_compile.compile(str(source), cfile=str(compiled), doraise=True)
    output = debugged_output(launch, compiled, [], [source], [("h", 2)], backend, mode,
                             tmp_path)
    assert output == "script\n"


# A file whose code first ran while it had no breakpoint, given one afterwards: the
# tracer answers such a file's code objects without looking at each (tracing/base.py),
# and must look again once the breakpoints change.
QUIET = """
def first():
    return "first"
def later():
    return "later"  # line 4: a breakpoint, set once first() has run
"""

QUIET_PROGRAM = """
import quiet

print(quiet.first())
print("gate")  # line 5: a breakpoint
print(quiet.later())
"""


@pytest.mark.parametrize("mode", list(MODES))
def test_a_breakpoint_set_later_in_a_file_whose_code_ran_stops(
        launch, write, backend, tmp_path, mode):
    quiet = write("quiet.py", QUIET)
    program = write("main.py", QUIET_PROGRAM)
    debuggee = launch("--program", program, tracer=backend, env=MODES[mode], cwd=tmp_path)
    debuggee.configure({"program": str(program)})
    debuggee.set_breakpoints(program, [5])
    debuggee.request("configurationDone")
    stopped = debuggee.stopped()
    assert debuggee.top_frame(stopped["threadId"])["line"] == 5
    debuggee.set_breakpoints(quiet, [4])
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    stop_at(debuggee, ("later", 4))
    debuggee.finish(0)
    assert debuggee.stdout() == "first\ngate\nlater\n"
