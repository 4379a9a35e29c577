"""The ``sys.settrace`` backend, for Pythons before 3.12 (and on request on newer ones).

Every user thread gets the global trace function, which CPython calls on each new
frame. It returns None for code objects holding no breakpoint, so they run without
line tracing; frames that need lines get the local trace function. Frames already
running when breakpoints change, or when a thread starts stepping, get ``f_trace`` set
directly.
"""

from __future__ import annotations

import sys
import threading

from ..paths import is_debugger_path
from .base import STEPS_ENTERING_CALLS, StepState, Tracer

_get_ident = threading.get_ident


class SettraceTracer(Tracer):
    name = "settrace"

    def __init__(self, store, host) -> None:
        super().__init__(store, host)
        # Bound methods are stored once so that the hot path does not allocate a new
        # bound-method object on every call event.
        self._global = self._trace_call
        self._local = self._trace_local

    def install(self) -> None:
        self.installed = True
        threading.settrace(self._global)
        sys.settrace(self._global)

    def uninstall(self) -> None:
        self.installed = False
        threading.settrace(None)  # type: ignore[arg-type]
        sys.settrace(None)
        for frame in self._all_stack_frames():
            if frame.f_trace is self._local:
                frame.f_trace = None

    # Hot path.

    def _trace_call(self, frame, event, arg):
        if event != "call":
            return None
        if self._steps:
            step = self._steps.get(_get_ident())
            if step is not None and step.kind in STEPS_ENTERING_CALLS:
                return self._local
        code = frame.f_code
        verdict = self._verdicts.get(code)
        if verdict is None:
            verdict = self._code_has_breakpoints(code)
        return self._local if verdict else None

    def _trace_local(self, frame, event, arg):
        if event == "line":
            code = frame.f_code
            self._line_hit(frame, code, frame.f_lineno)
            if not self._steps:
                verdict = self._verdicts.get(code)
                if verdict is None:
                    verdict = self._code_has_breakpoints(code)
                if not verdict:
                    # No breakpoint left in this code object and nobody stepping: stop
                    # tracing this frame's lines (returning None alone would not).
                    frame.f_trace = None
                    return None
        elif event == "return" and self._steps:
            self._frame_returned(frame)
        return self._local

    # Changes made from the IPC thread.

    def breakpoints_changed(self) -> None:
        self._reset_verdicts()
        if not self.installed:
            return
        for frame in self._all_stack_frames():
            if self._code_has_breakpoints(frame.f_code):
                frame.f_trace = self._local

    def set_step(self, thread_ident: int, step: StepState | None) -> None:
        if step is None:
            self._steps.pop(thread_ident, None)
            return
        self._steps[thread_ident] = step
        if not self.installed:
            return
        # Frames already on the thread's stack need a local trace function so that the
        # step can end in them (the current frame, and the callers it returns to).
        frame = sys._current_frames().get(thread_ident)
        while frame is not None:
            if not is_debugger_path(self._canonical(frame.f_code.co_filename)):
                frame.f_trace = self._local
            frame = frame.f_back

    def _all_stack_frames(self):
        for thread_ident, frame in sys._current_frames().items():
            if thread_ident in self._debugger_threads:
                continue
            while frame is not None:
                yield frame
                frame = frame.f_back

