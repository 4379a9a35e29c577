"""The ``sys.settrace`` backend, for Pythons before 3.12 (and on request on newer ones).

Every user thread gets the global trace function, which CPython calls on each new
frame. It returns None for code objects holding no breakpoint, so they run without
line tracing; frames that need lines get the local trace function. Frames already
running when breakpoints change, or when a thread starts stepping, get ``f_trace`` set
directly.

While the raised or userUnhandled exception filter is on, every frame of non-debugger
code gets the local trace function with line events switched off (``f_trace_lines``),
so that it sees ``exception`` and ``return`` events at the cost of two calls a frame.
A frame that exits by an exception gets a ``return`` event with None whose last
instruction is not a return or yield: that is how an unwind is told from a return.
"""

from __future__ import annotations

import dis
import sys
import threading

from ..paths import is_debugger_path
from .base import STEPS_ENTERING_CALLS, StepState, Tracer

_get_ident = threading.get_ident
_NORMAL_EXIT_OPCODES = frozenset(
    dis.opmap[name]
    # 3.13 reports a yield at the RESUME that follows its YIELD_VALUE.
    for name in ("RETURN_VALUE", "RETURN_CONST", "YIELD_VALUE", "RETURN_GENERATOR", "RESUME")
    if name in dis.opmap
)


def exits_by_exception(frame) -> bool:
    """In a ``return`` event whose value is None: whether the frame is unwinding."""
    code = frame.f_code.co_code
    lasti = frame.f_lasti
    return 0 <= lasti < len(code) and code[lasti] not in _NORMAL_EXIT_OPCODES


class SettraceTracer(Tracer):
    name = "settrace"

    def __init__(self, store, host) -> None:
        super().__init__(store, host)
        # Bound methods are stored once so that the hot path does not allocate a new
        # bound-method object on every call event.
        self._global = self._trace_call
        self._local = self._trace_local
        # thread ident -> the exception last seen by an ``exception`` event, which is
        # the one a frame unwinding right after is unwinding with.
        self._last_exception: dict[int, BaseException] = {}

    def install(self) -> None:
        self.installed = True
        threading.settrace(self._global)
        sys.settrace(self._global)
        self._host.tracing_started()

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
        code = frame.f_code
        verdict = self._verdicts.get(code)
        if verdict is None:
            verdict = self._code_has_breakpoints(code)
        if verdict and self._function_codes and frame.f_lineno == code.co_firstlineno:
            # A new call (a resumed generator is at its yield's line, not the def's).
            self._function_started(frame, code)
        if self._steps:
            step = self._steps.get(_get_ident())
            if step is not None and step.kind in STEPS_ENTERING_CALLS:
                return self._local
        if verdict:
            return self._local
        if self.watch_exceptions and not is_debugger_path(self._canonical(code.co_filename)):
            frame.f_trace_lines = False
            return self._local
        return None

    def _trace_local(self, frame, event, arg):
        if event == "line":
            code = frame.f_code
            self._line_hit(frame, code, frame.f_lineno)
            if not self._steps:
                verdict = self._verdicts.get(code)
                if verdict is None:
                    verdict = self._code_has_breakpoints(code)
                if not verdict:
                    if self.watch_exceptions:
                        frame.f_trace_lines = False
                        return self._local
                    # No breakpoint left in this code object and nobody stepping: stop
                    # tracing this frame's lines (returning None alone would not).
                    frame.f_trace = None
                    return None
        elif event == "return":
            if self._steps:
                # A frame left by an exception reports None too; only a real return (or
                # a yield, which settrace cannot tell apart cheaply) shows a value.
                self._frame_returned(frame, arg, arg is not None or not exits_by_exception(frame))
            if (self.watch_exceptions and arg is None and self._last_exception
                    and exits_by_exception(frame)):
                exception = self._last_exception.get(_get_ident())
                if exception is not None:
                    self._exception_unwound(frame, exception)
        elif event == "exception" and self.watch_exceptions:
            exception_type, exception, _ = arg
            if not isinstance(exception, BaseException):
                exception = _instantiate(exception_type, exception)
            if exception is not None:
                self._last_exception[_get_ident()] = exception
                self._exception_raised(frame, exception)
        return self._local

    # Changes made from the IPC thread.

    def breakpoints_changed(self) -> None:
        self._reset_verdicts()
        if not self.installed:
            return
        for frame in self._all_stack_frames():
            if self._code_has_breakpoints(frame.f_code):
                frame.f_trace_lines = True
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
                frame.f_trace_lines = True
                frame.f_trace = self._local
            frame = frame.f_back

    def _all_stack_frames(self):
        for thread_ident, frame in sys._current_frames().items():
            if thread_ident in self._debugger_threads:
                continue
            while frame is not None:
                yield frame
                frame = frame.f_back



def _instantiate(exception_type, value):
    """Older interpreters may report an exception not yet normalised (a type and a raw
    value); build the instance the program will see."""
    try:
        if value is None:
            return exception_type()
        return exception_type(*value) if isinstance(value, tuple) else exception_type(value)
    except Exception:
        return None
