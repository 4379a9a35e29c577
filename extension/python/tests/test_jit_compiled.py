"""numba's compiled functions under the debugger (instrumentation/jit_compiled.py): which
texts may hand a function to numba by a call (those are compiled whole, never by parts);
and, with numba itself, a program gives its plain output, with the user's functions
restartable and breakpoints in and beside the compiled ones, and a breakpoint in a
compiled function stops where numba runs it as Python (NUMBA_DISABLE_JIT=1)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest

from dapperdbg.instrumentation import Probe, segments
from dapperdbg.instrumentation.jit_compiled import may_hand_over

needs_numba = pytest.mark.skipif(importlib.util.find_spec("numba") is None,
                                 reason="numba publishes no wheel for this Python")

PROGRAM = textwrap.dedent("""\
    import numba
    import numpy as np
    from numba.experimental import jitclass

    @numba.njit(cache=False)
    def total(values):
        result = 0.0
        for value in values:
            result += value * 2  # line 9: in a compiled function
        return result

    def by_call(n):
        return n * 3

    tripled = numba.njit(by_call)

    @jitclass([("count", numba.int64)])
    class Counter:
        def __init__(self, count):
            self.count = count

        def bump(self):
            self.count += 1
            return self.count

    def report(values):
        answer = total(values) + tripled(4) + Counter(1).bump()
        return answer  # line 28: in a plain function

    print("answer", report(np.arange(5.0)))
""")
IN_COMPILED, IN_PLAIN = 9, 28


def _plain_output(path) -> str:
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          check=True, timeout=120).stdout


# numba's import and its compile of a function, before the stop, take seconds, and more
# under settrace on a machine busy with other suites: longer than the usual wait.
NUMBA_WAIT = 90.0


def _start(launch, write, backend, env=None):
    path = write("program.py", PROGRAM)
    debuggee = launch("--program", path, tracer=backend, env=env)
    debuggee.configure({"program": str(path)})
    answered = debuggee.set_breakpoints(path, [IN_COMPILED, IN_PLAIN])
    debuggee.request("configurationDone")
    return debuggee, path, answered


@needs_numba
def test_compiled_functions_run_as_plain_beside_a_breakpoint(launch, write, backend):
    debuggee, path, answered = _start(launch, write, backend)
    assert [bp["line"] for bp in answered] == [IN_COMPILED, IN_PLAIN]
    body = debuggee.stopped(timeout=NUMBA_WAIT)
    assert debuggee.top_frame(body["threadId"])["line"] == IN_PLAIN
    debuggee.request("continue", {"threadId": body["threadId"]})
    assert debuggee.wait_exit(NUMBA_WAIT) == 0, debuggee.stderr()
    assert debuggee.stdout() == _plain_output(path) == "answer 34.0\n"


@needs_numba
def test_a_breakpoint_in_a_compiled_function_stops_where_it_runs_as_python(
        launch, write, backend):
    debuggee, path, _ = _start(launch, write, backend, env={"NUMBA_DISABLE_JIT": "1"})
    body = debuggee.stopped(timeout=NUMBA_WAIT)
    frame = debuggee.top_frame(body["threadId"])
    assert (frame["name"], frame["line"]) == ("total", IN_COMPILED)
    debuggee.request("setBreakpoints", {"source": {"path": str(path)}, "breakpoints": []})
    debuggee.request("continue", {"threadId": body["threadId"]})
    assert debuggee.wait_exit(NUMBA_WAIT) == 0, debuggee.stderr()
    assert debuggee.stdout() == "answer 34.0\n"


@pytest.mark.parametrize(("text", "hands_over"), [
    (b"fast = njit(slow)\n", True),
    (b"faster = numba.jit(nopython=True)(slow)\n", True),
    (b"def make():\n    return numba.njit(inner)\n", True),
    (b"if FAST:\n    numba.jit_module(nopython=True)\n", True),
    # Decorators are in the definition's own text; imports and comments hand nothing.
    (b"@numba.njit(cache=True)\ndef f(x):\n    return x\n", False),
    (b"from numba import njit, vectorize\nimport numba.cuda\n", False),
    (b"    # njit(slow) once the types settle\n", False),
    # Longer names that hold a compiler's.
    (b"overloads = jitter = 1\n", False),
])
def test_a_text_that_may_hand_a_function_to_a_jit_compiler_is_compiled_whole(text, hands_over):
    assert may_hand_over(text) is hands_over
    if hands_over:
        # A probe inside a definition, which the parts would otherwise compile alone.
        source = text + b"\ndef g(x):\n    return x\n"
        line = source.count(b"\n")
        assert segments.instrument_parts(source, "/virtual/case.py", {line: Probe(1)},
                                         lambda: compile(source, "/virtual/case.py",
                                                         "exec")) is None
