"""tracing/remote.py, the ground docs/instrumentation.md's plan for 3.9-3.11 stands on: a
thread that runs untraced is given tracing from another thread (its thread state found
through the interpreter's list, a C trace function installed with _PyEval_SetTrace, which
hands over to a Python one at the thread's next event), and has it taken away again.
3.12+ need none of this (sys.monitoring), and 3.13 no longer exports _PyEval_SetTrace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dapperdbg.tracing.remote import RemoteTrace

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12+ use sys.monitoring")


def test_an_untraced_thread_is_given_tracing_and_has_it_taken_away():
    lines: list[int] = []
    first_events: list[str] = []
    stop = threading.Event()

    def spin():
        count = 0
        while not stop.is_set():
            count += 1
        return count

    def python_trace(frame, event, arg):
        if event == "line" and frame.f_code is spin.__code__:
            lines.append(frame.f_lineno)
        return python_trace

    def first_event(frame, event, arg):
        # On the spinning thread, with the GIL: from here on it is plain settrace.
        first_events.append(event)
        sys.settrace(python_trace)
        while frame is not None:
            frame.f_trace = python_trace
            frame = frame.f_back

    remote = RemoteTrace(first_event)
    assert remote.available
    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    deadline = time.monotonic() + 5
    try:
        frame = None
        while frame is None or frame.f_code is not spin.__code__:
            assert time.monotonic() < deadline
            frame = sys._current_frames().get(thread.ident)
        time.sleep(0.02)
        assert lines == []  # Untraced so far.
        remote.give([thread.ident])
        while not lines:
            assert time.monotonic() < deadline, "the thread never reached the Python tracer"
            time.sleep(0.01)
        remote.take([thread.ident])
        # A trace call the thread was in the middle of still finishes.
        time.sleep(0.01)
        seen = len(lines)
        time.sleep(0.05)
        assert len(lines) == seen, "tracing went on after it was taken away"
    finally:
        stop.set()
        thread.join(5)
    assert len(first_events) == 1  # The C function handed over once, then settrace ran.
    first_line = spin.__code__.co_firstlineno
    assert first_line + 3 in lines
    assert set(lines) <= {first_line + 2, first_line + 3, first_line + 4}


# A thread that spins in one function, then in another, and the threads that give it
# tracing; run in a process of its own, as a debugger that starved would hang it. The
# GIL passes to the spinning thread while tracing is being given (the frames are
# snapshotted), as it may whenever the giving thread calls anything, and the thread
# moves to its second function meanwhile.
_GIL_PASSES = """
import json, sys, threading, time
from dapperdbg.tracing import remote as remote_module
from dapperdbg.tracing.remote import RemoteTrace

moved = threading.Event()
given = []

def first():
    while not moved.is_set():
        pass

def second():
    while True:
        pass

def spin():
    first()
    second()

def first_event(frame, event, arg):
    given.append(frame.f_code.co_name)
    sys.settrace(None)

class PassingSys:
    # sys for the module under test, whose first snapshot of the frames lets the
    # spinning thread run (and leave the frame it was found in) before the walk.
    calls = 0

    def __getattr__(self, name):
        return getattr(sys, name)

    def _current_frames(self):
        frames = sys._current_frames()
        PassingSys.calls += 1
        if PassingSys.calls == 1:
            moved.set()
            time.sleep(0.05)
        return frames

thread = threading.Thread(target=spin, daemon=True)
thread.start()
while getattr(sys._current_frames().get(thread.ident), "f_code", None) is not first.__code__:
    time.sleep(0.001)
remote_module.sys = PassingSys()
started = time.monotonic()
RemoteTrace(first_event).give([thread.ident])
deadline = time.monotonic() + 5
while not given and time.monotonic() < deadline:
    time.sleep(0.01)
print(json.dumps({"seconds": time.monotonic() - started, "given": given,
                  "interval": sys.getswitchinterval()}))
"""


def test_a_thread_that_runs_while_tracing_is_given_gets_it_and_starves_nobody():
    package_parent = str(Path(__file__).resolve().parents[1])
    result = subprocess.run([sys.executable, "-c", _GIL_PASSES], capture_output=True,
                            text=True, timeout=20,
                            env={**os.environ, "PYTHONPATH": package_parent})
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    # Given tracing in the frame it runs now, at once, and the GIL's switch interval as
    # it was: a debugger that kept the GIL from switching while it walked the threads
    # left a thread that got the GIL meanwhile to keep it for as long as it ran.
    assert outcome["given"] == ["second"], outcome
    assert outcome["seconds"] < 2, outcome
    assert outcome["interval"] == sys.getswitchinterval(), outcome
