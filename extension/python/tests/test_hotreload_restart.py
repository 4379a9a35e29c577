"""Restart frame, driven from the tracer's line event as the tracer will drive it, on
both tracing backends (hotreload_cases/restart_program.py runs in its own interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAM = Path(__file__).resolve().parent / "hotreload_cases" / "restart_program.py"
BACKENDS = ["settrace"] + (["monitoring"] if sys.version_info >= (3, 12) else [])


@pytest.fixture(scope="module", params=BACKENDS)
def outcome(request):
    done = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", str(PROGRAM), request.param],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return request.param, json.loads(done.stdout)


def test_restart_reenters_from_the_first_line_with_the_original_arguments(outcome):
    _, out = outcome
    (result, plans), entries = out["plain"]
    assert plans == ["restarted"] and entries == [[1, 2], [1, 2]] and result == 4


def test_restart_from_inside_a_loop(outcome):
    _, out = outcome
    (result, plans), entries = out["loop"]
    assert plans == ["restarted"] and result == [1, 2] and entries == [[1, 2], [1, 2]]


def test_rebound_argument_without_snapshot_is_refused(outcome):
    _, out = outcome
    (result, plans), entries = out["rebound_no_snapshot"]
    assert plans[0].startswith("refused: argument(s) a may have been reassigned")
    assert entries == [[1, 2]] and result == 12  # ran on, unchanged


def test_rebound_argument_is_restored_from_the_snapshot(outcome):
    backend, out = outcome
    (result, plans), entries = out["rebound_snapshot"]
    if backend == "monitoring" and sys.version_info < (3, 13):
        # A sys.monitoring callback cannot write locals before 3.13 (PEP 667).
        assert plans[0].startswith("refused: argument(s) a were rebound")
        assert entries == [[1, 2]]
    else:
        assert plans == ["restarted"] and entries == [[1, 2], [1, 2]]
    assert result == 12  # the restarted call computes from the original a=1


def test_generator_that_yielded_is_refused_and_a_fresh_one_restarts(outcome):
    _, out = outcome
    result, plans = out["generator_yielded"]
    assert result == [5, 6] and plans[0].startswith("refused: a generator or coroutine")
    result, plans, entries = out["generator_fresh"]
    assert result == [5] and plans == ["restarted"] and entries == [5, 5]


def test_module_frame_is_refused(outcome):
    _, out = outcome
    assert out["module"].startswith("a module-level")


def test_restart_after_reload_reruns_the_code_the_frame_started_with(outcome):
    """CPython cannot give a running frame new code: the restart is marked as running the
    old code, and the function's next call runs the new code."""
    _, out = outcome
    result, plans, calls, next_call, old_frames = out["reloaded"]
    assert plans == ["restarted (old code)"]
    assert result == ["old", 2] and calls == [1, 1, 1] and next_call == ["new", 2]
    assert [(f["function"], f["line"]) for f in old_frames] == [("f", 5)]


def test_a_frame_of_another_thread_is_never_jumped():
    import threading

    from dapperdbg.hotreload import RestartPlan, plan_restart

    ready, release = threading.Event(), threading.Event()
    frames = []

    def blocked(a):
        frames.append(sys._getframe())
        ready.set()
        release.wait()
        return a

    thread = threading.Thread(target=blocked, args=(1,))
    thread.start()
    ready.wait()
    try:
        plan = plan_restart(frames[0])
        assert isinstance(plan, RestartPlan)
        with pytest.raises(ValueError, match="not on this thread's stack"):
            plan.apply()
    finally:
        release.set()
        thread.join()
