"""Programs that run their own tracing tools give the same results under the debugger,
with a breakpoint hit on the way: coverage.py (its C tracer, its Python tracer, and on
3.14+ sys.monitoring) and the standard library's profilers and line tracer. And code
that such tools, or a test runner, compile and run themselves stops at its breakpoints
(on 3.9-3.11 it has no probes, and the debugger runs untraced otherwise)."""

from __future__ import annotations

import json
import pstats
import subprocess
import sys

import pytest

coverage = pytest.importorskip("coverage", reason="coverage is in requirements-test.txt")

PROGRAM = """
def classify(number):
    if number % 2:
        return "odd"
    return "even"


def main():
    words = [classify(number) for number in range(5)]
    total = 0
    for word in words:
        total += len(word)  # the breakpoint
    print(total)


main()
"""
BREAKPOINT_LINE = 11

# coverage measures branches with sys.monitoring from 3.14 on (before, it falls back).
CORES = ["ctrace", "pytrace"] + (["sysmon"] if sys.version_info >= (3, 14) else [])


def run_plain(arguments, cwd, env=None):
    subprocess.run([sys.executable, *arguments], cwd=cwd, env=env, check=True,
                   capture_output=True, timeout=60)


# Before 3.12 a thread has one trace function: a tool that installs its own
# (sys.settrace: coverage, trace) keeps it, its results stay right, and the debugger says
# that it cannot stop meanwhile. From 3.12 on the debugger uses sys.monitoring beside it.
SHARES_TRACING = sys.version_info >= (3, 12)


def run_debugged(launch, arguments, program, cwd, env=None, stops=True):
    """The same command under the debugger, stopping once at the breakpoint (or, when
    ``stops`` is false, telling why it cannot)."""
    debuggee = launch("--module", arguments[1], "--", *arguments[2:], env=env, cwd=cwd)
    debuggee.configure()
    [breakpoint] = debuggee.set_breakpoints(program, [BREAKPOINT_LINE])
    # Pending until the tool runs the program (then a breakpoint event verifies it).
    assert breakpoint["verified"] or breakpoint["reason"] == "pending", breakpoint
    debuggee.request("configurationDone")
    if stops:
        stopped = debuggee.stopped()
        assert debuggee.top_frame(stopped["threadId"])["line"] == BREAKPOINT_LINE
        debuggee.set_breakpoints(program, [])  # it is in a loop: once is enough
        debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)
    assert debuggee.stdout() == "18\n"
    if not stops:
        said = []
        while not any("runs its own trace function" in text for text in said):
            try:
                said.append(debuggee.wait_event("output", timeout=5)["output"])
            except AssertionError:  # The connection closed without the notice.
                raise AssertionError(f"no notice of the program's tracer in {said}") from None


def coverage_of(directory, name) -> dict:
    """The coverage data of each measured file (the program's by its relative name)."""
    subprocess.run([sys.executable, "-m", "coverage", "json", f"--data-file={name}",
                    "-o", f"{name}.json"], cwd=directory, check=True, capture_output=True,
                   timeout=60)
    report = json.loads((directory / f"{name}.json").read_text())
    return {file: {key: measured[key] for key in ("executed_lines", "missing_lines",
                                                   "executed_branches", "missing_branches")}
            for file, measured in report["files"].items()}


@pytest.mark.parametrize("core", CORES)
def test_coverage_reports_the_same_under_the_debugger(launch, write, tmp_path, core):
    import os

    program = write("program.py", PROGRAM)
    env = {**os.environ, "COVERAGE_CORE": core}
    run_plain(["-m", "coverage", "run", "--branch", "--data-file=plain", str(program)],
              tmp_path, env)
    run_debugged(launch, ["-m", "coverage", "run", "--branch", "--data-file=debugged",
                          str(program)], program, tmp_path, {"COVERAGE_CORE": core},
                 stops=SHARES_TRACING)
    plain = coverage_of(tmp_path, "plain")
    assert list(plain) == ["program.py"]
    assert plain["program.py"]["executed_lines"] and not plain["program.py"]["missing_lines"]
    debugged = coverage_of(tmp_path, "debugged")
    if core == "sysmon":
        # A known difference: coverage's sys.monitoring core also measures the
        # debugger's own files that run on the program's threads.
        debugged = {file: data for file, data in debugged.items() if "dapperdbg" not in file}
    assert debugged == plain


@pytest.mark.parametrize("profiler", ["cProfile", "profile"])
def test_profilers_count_the_same_calls_under_the_debugger(launch, write, tmp_path, profiler):
    program = write("program.py", PROGRAM)
    run_plain(["-m", profiler, "-o", "plain.prof", str(program)], tmp_path)
    run_debugged(launch, ["-m", profiler, "-o", "debugged.prof", str(program)], program,
                 tmp_path)

    def calls(name):
        stats = pstats.Stats(str(tmp_path / name)).stats
        return {function: record[1] for (file, _, function), record in stats.items()
                if file == str(program)}

    plain = calls("plain.prof")
    assert plain["classify"] == 5 and plain["main"] == 1
    assert calls("debugged.prof") == plain


def test_the_trace_module_counts_the_same_lines_under_the_debugger(launch, write, tmp_path):
    program = write("program.py", PROGRAM)
    run_plain(["-m", "trace", "--count", "-C", "plain", "--missing", str(program)], tmp_path)
    run_debugged(launch, ["-m", "trace", "--count", "-C", "debugged", "--missing",
                          str(program)], program, tmp_path, stops=SHARES_TRACING)
    plain = (tmp_path / "plain" / "program.cover").read_text()
    assert "    5:         return" not in plain  # a sanity check of the format below
    assert (tmp_path / "debugged" / "program.cover").read_text() == plain


def test_a_breakpoint_in_a_test_that_pytest_imports_stops(launch, write, tmp_path, backend):
    """pytest imports test files with its own loader (assertion rewriting), so their code
    never went through the debugger's finder: it must stop all the same."""
    tests = write("test_sample.py", "def test_one():\n    x = 1\n    assert x == 1\n")
    debuggee = launch("--module", "pytest", "--", "-q", "-p", "no:cacheprovider", str(tests),
                      tracer=backend, cwd=tmp_path)
    debuggee.configure()
    debuggee.set_breakpoints(tests, [2])
    debuggee.request("configurationDone")
    stopped = debuggee.stopped()
    frame = debuggee.top_frame(stopped["threadId"])
    assert (frame["name"], frame["line"]) == ("test_one", 2)
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)
    assert "1 passed" in debuggee.stdout()
