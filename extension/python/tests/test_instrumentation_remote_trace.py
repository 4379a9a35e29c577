"""tracing/remote.py, the ground docs/instrumentation.md's plan for 3.9-3.11 stands on: a
thread that runs untraced is given tracing from another thread (its thread state found
through the interpreter's list, a C trace function installed with _PyEval_SetTrace, which
hands over to a Python one at the thread's next event), and has it taken away again.
3.12+ need none of this (sys.monitoring), and 3.13 no longer exports _PyEval_SetTrace."""

from __future__ import annotations

import sys
import threading
import time

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
