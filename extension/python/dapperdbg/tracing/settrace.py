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

import sys

from ..common import program_threading
from ..common.greenlet_frames import waiting_greenlet_frames
from ..common.native import RLock, get_ident
from ..common.paths import is_debugger_path
from ..common.stop_imports import import_at_first_stop
from ..common.tracer_choice import remote_expected
from ..instrumentation.registry import identity as _identity
from .base import Tracer
from .probe_stops import JUMPS_NEED_LINE_EVENTS
from .steps import (
    FRAME_RETURNED,
    FRAME_UNWOUND,
    STEP_OVER,
    STEP_PAUSE,
    STEPS_ENTERING_CALLS,
    SUSPENDING_FLAGS,
    StepState,
    yield_kind,
)

_get_ident = get_ident
# (return instructions, yield instructions, YIELD_FROM or -1), read from ``opcode`` once.
_exit_opcodes: tuple[frozenset[int], frozenset[int], int] | None = None

if sys.version_info < (3, 12):
    # A request on the IPC thread may give stopped threads' neighbours tracing.
    import_at_first_stop(f"{__package__}.remote")


def exit_kind(frame, arg) -> str:
    """In a ``return`` event: how the frame is left (steps.FRAME_*). A frame unwinding
    by an exception reports None, at the instruction that raised; a yield reports at its
    YIELD_VALUE (at the RESUME after it from 3.13; on 3.9-3.10 an await's at the
    instruction before its YIELD_FROM)."""
    global _exit_opcodes
    if _exit_opcodes is None:
        import opcode  # Once a step or an exception needs it: it costs every start.

        opmap = opcode.opmap
        _exit_opcodes = (
            frozenset(opmap[name] for name in ("RETURN_VALUE", "RETURN_CONST", "RETURN_GENERATOR")
                      if name in opmap),
            frozenset(opmap[name] for name in ("YIELD_VALUE", "RESUME") if name in opmap),
            opmap.get("YIELD_FROM", -1),
        )
    returns, yields, yield_from = _exit_opcodes
    code = frame.f_code
    instructions = code.co_code
    lasti = frame.f_lasti
    if not 0 <= lasti < len(instructions):
        return FRAME_RETURNED
    instruction = instructions[lasti]
    if instruction in returns:
        return FRAME_RETURNED
    if code.co_flags & SUSPENDING_FLAGS and (
            instruction in yields
            or (lasti + 2 < len(instructions) and instructions[lasti + 2] == yield_from)):
        return yield_kind(code, arg)
    return FRAME_UNWOUND


class SettraceTracer(Tracer):
    name = "settrace"

    def __init__(self, store, host, paths=None) -> None:
        super().__init__(store, host, paths)
        # Bound methods are stored once so that the hot path does not allocate a new
        # bound-method object on every call event.
        self._global = self._trace_call
        self._local = self._trace_local
        # thread ident -> the exception last seen by an ``exception`` event, which is
        # the one a frame unwinding right after is unwinding with.
        self._last_exception: dict[int, BaseException] = {}
        # Running untraced while nothing needs tracing (3.9-3.11, with instrumented
        # copies): see ``tracing_needed``. Made once other threads are to be given
        # tracing or have it taken (``_remote_trace``).
        self._remote = None  # remote.RemoteTrace
        # Whether every thread traces (threading.settrace set); False while idle.
        self._tracing = False
        # Whether any thread may trace (a thread traces itself for a stop while idle).
        self._some_traced = False
        self._switch_lock = RLock()

    def after_fork_in_child(self) -> None:
        self._switch_lock = RLock()

    def install(self) -> None:
        self.installed = True
        if self._may_idle():
            self._tracing = False
            self.ensure_tracing()
        else:
            self._tracing = True
            _set_threading_hook(self._global)
            sys.settrace(self._global)
        program_threading.when_imported(self._threading_imported)
        self._host.tracing_started()

    def _threading_imported(self, threading) -> None:
        # The program's first import of threading: the threads it starts from now on
        # trace as the others do.
        if self.installed and self._tracing and _threading_hook() is None:
            threading.settrace(self._global)

    def uninstall(self) -> None:
        self.installed = False
        self._tracing = False
        self._drop_tracing()

    def silence(self) -> None:
        # Other threads that trace keep their trace function (taking it from another
        # thread calls into ctypes, which is audited), and it finds nothing to do. The
        # calling thread's goes (an audited sys.settrace, when it traces at all): the
        # interpreter's finalization, which it runs, must not call into this package
        # while it tears modules down.
        if not self.installed:
            return
        self.installed = False
        self._tracing = self._some_traced = False
        if _threading_hook() is self._global:
            _set_threading_hook(None)
        if sys.gettrace() is self._global:
            sys.settrace(None)

    # Running untraced while nothing needs tracing (docs/instrumentation.md).

    def _may_idle(self) -> bool:
        """Whether this tracer may run without a trace function at all: 3.9-3.11 with
        instrumented copies (3.12+ forced to settrace keep tracing), where ctypes can
        give tracing to running threads."""
        if self.copies is None or sys.version_info >= (3, 12):
            return False
        if self._remote is not None:
            return self._remote.available
        return remote_expected()

    def _remote_trace(self):
        """remote.RemoteTrace, made at first use (it imports ctypes)."""
        if self._remote is None:
            from .remote import RemoteTrace

            self._remote = RemoteTrace(self._first_remote_event)
        return self._remote

    def tracing_needed(self) -> bool:
        return (not self._may_idle() or bool(self._steps) or self.watch_exceptions
                or bool(self._store.functions.active) or bool(self._store.data.active)
                or self.lines_need_tracing)

    def ensure_tracing(self) -> None:
        if not self.installed or self._tracing or not self.tracing_needed():
            return
        with self._switch_lock:
            if self._tracing:
                return
            self._tracing = self._some_traced = True
            # A trace function of the program's own (coverage, trace) is never replaced:
            # its results would change. Python < 3.12 has one per thread; the debugger
            # then cannot see that thread's lines (foreign_tracer says so).
            if _threading_hook() in (None, self._global):
                _set_threading_hook(self._global)
            me = _get_ident()
            if me not in self._debugger_threads and sys.gettrace() in (None, self._global):
                sys.settrace(self._global)
            others = self._other_threads()
            if others and remote_expected():
                self._remote_trace().give(others)

    def settle_tracing(self) -> None:
        if not self.installed or not self._some_traced or self.tracing_needed():
            return
        with self._switch_lock:
            if not self._some_traced or self.tracing_needed():
                return
            self._tracing = self._some_traced = False
            self._drop_tracing()

    def _drop_tracing(self) -> None:
        """Take this tracer's trace functions off every thread and frame."""
        if _threading_hook() is self._global:
            _set_threading_hook(None)
        if sys.gettrace() is self._global:
            sys.settrace(None)
        others = self._other_threads()
        if others and remote_expected():  # Given tracing, by remote.py or as they started.
            self._remote_trace().take(others)
        # A frame keeps its f_trace, and on 3.9 then reports the line stored at the last
        # line event: stale once its thread runs untraced.
        for frame in self._all_stack_frames():
            if frame.f_trace is self._local:
                frame.f_trace = None

    def sees_lines_of(self, frame) -> bool:
        # Idle (docs/instrumentation.md), no thread calls a frame's f_trace.
        return self._tracing and frame.f_trace is not None and frame.f_trace_lines

    def _other_threads(self) -> list[int]:
        me = _get_ident()
        return [ident for ident in sys._current_frames()
                if ident != me and ident not in self._debugger_threads]

    def _first_remote_event(self, frame, event, arg) -> None:
        """On a thread just given tracing by another: the Python tracer from now on, a
        local trace function on the frames that need one, and the event that brought us
        here handed to it (the Python tracer would not see it)."""
        sys.settrace(self._global)
        step = self._steps.get(_get_ident())
        caller = frame.f_back if event == "call" else frame
        while caller is not None:
            code = caller.f_code
            if not is_debugger_path(self.canonical(code.co_filename)) and (
                    step is not None or self.watch_exceptions or self._verdict(code)):
                caller.f_trace_lines = True
                caller.f_trace = self._local
            caller = caller.f_back
        if event == "call":
            local = self._trace_call(frame, "call", None)
            if local is not None:
                frame.f_trace = local
        elif event in ("line", "return", "opcode") and frame.f_trace is self._local:
            self._trace_local(frame, event, arg)

    # Hot path.

    def _trace_call(self, frame, event, arg):
        if event != "call":
            return None
        code = frame.f_code
        entry = self._verdicts.get(_identity(code))
        verdict = entry[1] if entry is not None else self._code_has_breakpoints(code)
        if verdict and self._function_codes and frame.f_lineno == code.co_firstlineno:
            # A new call (a resumed generator is at its yield's line, not the def's).
            self._function_started(frame, code)
        if self._steps:
            step = self._steps.get(_get_ident())
            if step is not None:
                if step.kind in STEPS_ENTERING_CALLS:
                    return self._local
                if (not verdict and self.watch_returns and step.frame is frame.f_back
                        and step.kind == STEP_OVER):
                    # A call of the line stepped over: only its return, for its value.
                    frame.f_trace_lines = False
                    return self._local
        if verdict:
            return self._local
        if self.watch_exceptions and not is_debugger_path(self.canonical(code.co_filename)):
            frame.f_trace_lines = False
            return self._local
        return None

    def _trace_local(self, frame, event, arg):
        if event == "line":
            code = frame.f_code
            if self._data_codes:
                watching = self._data_codes.get(_identity(code))
                if watching is not None:
                    if frame.f_lineno in watching[2] and self._data_line(frame, watching[1]):
                        return self._local
                    if not (self._steps or self._entries or self._deferred_stops
                            or self._store.lines_by_file):
                        return self._local  # Nothing else can happen on this line.
            if self._line_hit(frame, code, frame.f_lineno):
                return None  # Stopped: see the opcode event below.
            if not self._steps:
                entry = self._verdicts.get(_identity(code))
                if not (entry[1] if entry is not None else self._code_has_breakpoints(code)):
                    if self.watch_exceptions:
                        frame.f_trace_lines = False
                        return self._local
                    # No breakpoint left in this code object and nobody stepping: stop
                    # tracing this frame's lines (returning None alone would not).
                    frame.f_trace = None
                    return None
        elif event == "return":
            if self._data_codes:
                self._data_frame_returning(frame)
            kind = None
            if self._steps:
                kind = exit_kind(frame, arg)
                self._frame_returned(frame, arg, kind)
            if self.watch_exceptions and arg is None and self._last_exception and (
                    (kind or exit_kind(frame, arg)) == FRAME_UNWOUND):
                exception = self._last_exception.get(_get_ident())
                if exception is not None:
                    self._exception_unwound(frame, exception)
        elif event == "opcode":
            # Only asked for by stop_at_next_event, for one event.
            frame.f_trace_opcodes = False
            self._opcode_hit(frame)
            # The thread may have stopped here, and the resume taken tracing off every
            # frame (settle_tracing) while this call waited: the interpreter stores what a
            # local trace function returns as the frame's f_trace, so returning this
            # function would put it back, on a thread that no longer traces. On 3.9 a
            # frame with an f_trace reports as f_lineno the line of its last trace event,
            # which no line event would update: a caller, or a coroutine waiting at an
            # await, would be shown on the line where it stopped. None keeps the f_trace
            # the frame has now.
            return None
        elif event == "exception" and self.watch_exceptions:
            if self.copies is not None and self.is_probe_exception(frame, frame.f_lasti):
                return self._local  # A breakpoint condition's: its probe reports it.
            exception_type, exception, _ = arg
            if not isinstance(exception, BaseException):
                exception = _instantiate(exception_type, exception)
            if exception is not None:
                self._last_exception[_get_ident()] = exception
                self._exception_raised(frame, exception)
        return self._local

    def trace_again(self) -> None:
        # An exception out of a trace function makes the interpreter unset it for the
        # thread (sysmodule.c's trace_trampoline).
        if self.installed and sys.gettrace() is None and (self._tracing or self._may_idle()):
            self._some_traced = True
            sys.settrace(self._global)

    def foreign_tracer(self) -> bool:
        """Whether this thread runs a trace function of the program's own instead of
        the debugger's (see ensure_tracing)."""
        current = sys.gettrace()
        return current is not None and current is not self._global

    def _watch_frame_events(self, frame) -> bool:
        if sys.gettrace() is None:
            if not (self.installed and self._may_idle()):
                return False
            # Running untraced: this thread traces itself for the stop; tracing is
            # settled again when the threads resume.
            self._some_traced = True
            sys.settrace(self._global)
        frame.f_trace_lines = True
        if not JUMPS_NEED_LINE_EVENTS:
            frame.f_trace_opcodes = True
        # Unset first: on 3.9 setting f_trace stores the line the frame is on, computed
        # from its last instruction only while it has none (else the stored line, stale
        # if the thread ran untraced since).
        frame.f_trace = None
        frame.f_trace = self._local
        return True

    # Changes made from the IPC thread.

    def breakpoints_changed(self) -> None:
        self._reset_verdicts()
        if not self.installed:
            return
        self.ensure_tracing()
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
        self.ensure_tracing()
        # Frames already on the thread's stack need a local trace function so that the
        # step can end in them (the current frame, and the callers it returns to).
        frames = [sys._current_frames().get(thread_ident)]
        if step.kind == STEP_PAUSE and "greenlet" in sys.modules:
            # The next line the thread runs may be in a greenlet that waits now: resumed,
            # its frames are not called again (common/greenlet_frames.py).
            frames += waiting_greenlet_frames()
        for frame in frames:
            while frame is not None:
                if not is_debugger_path(self.canonical(frame.f_code.co_filename)):
                    frame.f_trace_lines = True
                    frame.f_trace = self._local
                frame = frame.f_back

    def _watch_suspended_frame(self, frame) -> None:
        # Resumed, it calls its f_trace: the global function's None on its call event
        # leaves it there.
        frame.f_trace_lines = True
        frame.f_trace = None  # Unset first, as in _watch_frame_events.
        frame.f_trace = self._local

    def set_watch_exceptions(self, enabled: bool) -> None:
        super().set_watch_exceptions(enabled)
        self.ensure_tracing()

    def _all_stack_frames(self):
        for thread_ident, frame in sys._current_frames().items():
            if thread_ident in self._debugger_threads:
                continue
            while frame is not None:
                yield frame
                frame = frame.f_back
        # gevent: a greenlet that waits keeps its frames on no thread's stack, and goes on
        # in them with no call event when it is switched back to.
        for frame in waiting_greenlet_frames():
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


def _threading_hook():
    """The trace function threading gives new threads (threading.gettrace is 3.10+);
    None before the program imports threading."""
    threading = program_threading.loaded()
    if threading is None:
        return None
    gettrace = getattr(threading, "gettrace", None)
    return gettrace() if gettrace is not None else getattr(threading, "_trace_hook", None)


def _set_threading_hook(trace) -> None:
    """Give the threads that start from now on ``trace`` (the program has none before
    it imports threading; ``_threading_imported`` gives it them then)."""
    threading = program_threading.loaded()
    if threading is not None:
        threading.settrace(trace)
