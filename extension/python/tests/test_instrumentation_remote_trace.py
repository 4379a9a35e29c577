"""The ground docs/instrumentation.md's plan for 3.9-3.11 stands on: a thread that runs
untraced can be made to trace from another thread, through ctypes, with
PyInterpreterState_ThreadHead / PyThreadState_Next (to find its thread state, matched by
PyThreadState_GetFrame) and _PyEval_SetTrace (to give it a C trace function, which on
its first event hands over to a Python one with sys.settrace). 3.12+ need none of this
(sys.monitoring), and 3.13 no longer exports _PyEval_SetTrace."""

from __future__ import annotations

import ctypes
import sys
import threading
import time

import pytest

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12+ use sys.monitoring")

TRACE_FUNCTION = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                                  ctypes.c_void_p)


def _api():
    api = ctypes.pythonapi
    api.PyInterpreterState_Get.restype = ctypes.c_void_p
    api.PyInterpreterState_ThreadHead.argtypes = [ctypes.c_void_p]
    api.PyInterpreterState_ThreadHead.restype = ctypes.c_void_p
    api.PyThreadState_Next.argtypes = [ctypes.c_void_p]
    api.PyThreadState_Next.restype = ctypes.c_void_p
    api.PyThreadState_GetFrame.argtypes = [ctypes.c_void_p]
    api.PyThreadState_GetFrame.restype = ctypes.py_object
    api._PyEval_SetTrace.argtypes = [ctypes.c_void_p, TRACE_FUNCTION, ctypes.c_void_p]
    api._PyEval_SetTrace.restype = ctypes.c_int
    return api


def _thread_state_of(api, frame) -> int | None:
    state = api.PyInterpreterState_ThreadHead(api.PyInterpreterState_Get())
    while state:
        try:
            if api.PyThreadState_GetFrame(state) is frame:
                return state
        except ValueError:
            pass  # NULL: that thread runs no Python code right now.
        state = api.PyThreadState_Next(state)
    return None


def test_an_untraced_thread_starts_tracing_from_another_thread():
    api = _api()
    lines: list[int] = []
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

    def first_event(obj, frame, what, arg):
        # On the spinning thread, with the GIL: from here on it is plain settrace.
        sys.settrace(python_trace)
        caller = sys._getframe(1)
        while caller is not None:
            caller.f_trace = python_trace
            caller = caller.f_back
        return 0

    callback = TRACE_FUNCTION(first_event)
    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 5
        frame = None
        while frame is None or frame.f_code is not spin.__code__:
            assert time.monotonic() < deadline
            frame = sys._current_frames().get(thread.ident)
        time.sleep(0.02)
        assert lines == []  # Untraced so far.
        state = _thread_state_of(api, sys._current_frames()[thread.ident])
        assert state is not None
        assert api._PyEval_SetTrace(state, callback, None) == 0
        while not lines:
            assert time.monotonic() < deadline
            time.sleep(0.01)
    finally:
        stop.set()
        thread.join(5)
    # The loop's lines (and the return once stopped), from the thread's own trace.
    first_line = spin.__code__.co_firstlineno
    assert first_line + 3 in lines
    assert set(lines) <= {first_line + 2, first_line + 3, first_line + 4}
