"""The ``sys.monitoring`` backend (PEP 669), used on Python 3.12 and newer.

Globally only PY_START is enabled, and PY_RESUME once breakpoints change while the
program runs (a generator or coroutine suspended when a breakpoint arrives comes back
through PY_RESUME, not PY_START; breakpoints set before the program starts need no
PY_RESUME, and without it a signal pending as a generator resumes is raised in the
generator as plain, not at the start of the callback). Their callback turns LINE events
on locally for the code objects whose own lines hold a breakpoint and returns DISABLE
for every code object, so each one is looked at once. The LINE callback returns DISABLE
for lines without a breakpoint, so a code object with one breakpoint pays for one line.

PY_START is on only while some code object may hold a breakpoint, and on 3.12, with
only line breakpoints, only until every file with breakpoints is accounted for: imported
through the instrumentation's finder (its probes handle the lines), the program, or
given copies in its live functions. While one has no copies (not imported yet, or run
by the interpreter itself: the script of an attached session), or some line is still
the tracer's (``lines_need_tracing``), code is looked at as it starts; a file's module code
that is no copy of ours (another loader, ``runpy.run_path``) makes its lines the
tracer's. 3.12 instruments every code object that first runs while PY_START is watched
and so loses its superinstructions for good (docs/instrumentation.md).

While a thread steps into (or pauses, or waits for its entry line), LINE is enabled
globally; while it steps over or out, LINE, PY_RETURN and PY_YIELD are enabled locally
on the code objects of the step's frame and its callers, and PY_UNWIND globally (an
exception leaving the step's frame moves the step to its caller). With showReturnValue, a
step over also watches CALL on its frame's code object and PY_RETURN on the functions
those calls enter, for the values the stop shows. DISABLE is never returned
while any thread steps, because a disabled location is disabled for every thread.

Data breakpoints (breakpoints/data.py): the code objects that may change a watched
value get LINE and PY_RETURN locally; the lines right after one that may change it are
never disabled (the value is compared there), the others are.

Function breakpoints: PY_START is kept (not disabled) for the code objects they match,
and the first LINE event after it is where they are evaluated. Exception breakpoints:
RAISE and PY_UNWIND are enabled globally only while the raised or userUnhandled filter
is on (the uncaught filter needs no events).
"""

from __future__ import annotations

import sys

from ..common.greenlet_frames import waiting_greenlet_frames
from ..common.interpreter_types import FunctionType, MethodType
from ..common.native import RLock, get_ident
from ..common.paths import is_debugger_path
from ..instrumentation.registry import identity as _identity
from .base import ToolIdInUse, Tracer
from .steps import (
    FRAME_RETURNED,
    FRAME_UNWOUND,
    STEP_INTO,
    STEP_OVER,
    STEP_PAUSE,
    STEP_RAISE,
    STEPS_ENTERING_CALLS,
    StepState,
    yield_kind,
)

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

# 3.12 instruments every code object that first runs while a tool watches PY_START, and
# its instrumentation turns the superinstructions made when the code was quickened back
# into single instructions for good, even once the callback returned DISABLE: a tight
# loop runs 2-3% slower. 3.13 compiles those pairs as instructions of their own.
_START_IS_COSTLY = sys.version_info < (3, 13)
# Steps that enter calls but must see their own frame's return.
_RETURNS_WATCHED = (STEP_INTO, STEP_RAISE)


class MonitoringTracer(Tracer):
    name = "monitoring"

    def __init__(self, store, host, paths=None) -> None:
        super().__init__(store, host, paths)
        monitoring = sys.monitoring
        self._monitoring = monitoring
        self._tool = monitoring.DEBUGGER_ID
        self._events = monitoring.events
        self._disable = monitoring.DISABLE
        self._lock = RLock()
        # Code objects that currently have local events set by us, by id (base.py says
        # why: code objects of different files may compare equal).
        self._local_codes: dict[int, types.CodeType] = {}
        # Code objects of the frames that over/out steps may end in.
        self._step_codes: dict[int, types.CodeType] = {}
        # showReturnValue: the code objects of steps over (their calls are watched), and
        # of the functions those calls entered (their returns are).
        self._call_codes: dict[int, types.CodeType] = {}
        self._return_codes: dict[int, types.CodeType] = {}
        # Whether breakpoints changed while the program ran (PY_RESUME is then needed).
        self._resumes_watched = False

    def after_fork_in_child(self) -> None:
        self._lock = RLock()

    def install(self) -> None:
        monitoring, events = self._monitoring, self._events
        current = monitoring.get_tool(self._tool)
        if current is not None:
            raise ToolIdInUse(f"sys.monitoring tool id {self._tool} is used by {current!r}")
        try:
            monitoring.use_tool_id(self._tool, "dapper")
        except ValueError as error:  # Taken by another thread since get_tool.
            raise ToolIdInUse(f"sys.monitoring tool id {self._tool}: {error}") from None
        monitoring.register_callback(self._tool, events.PY_START, self._on_start)
        monitoring.register_callback(self._tool, events.PY_RESUME, self._on_resume)
        monitoring.register_callback(self._tool, events.RAISE, self._on_raise)
        monitoring.register_callback(self._tool, events.PY_UNWIND, self._on_unwind)
        monitoring.register_callback(self._tool, events.LINE, self._on_line)
        monitoring.register_callback(self._tool, events.PY_RETURN, self._on_return)
        monitoring.register_callback(self._tool, events.PY_YIELD, self._on_yield)
        monitoring.register_callback(self._tool, events.CALL, self._on_call)
        self.installed = True
        self._refresh_events(restart=True)
        self._host.tracing_started()

    def uninstall(self) -> None:
        if not self.installed:
            return
        self.installed = False
        monitoring, events = self._monitoring, self._events
        with self._lock:
            monitoring.set_events(self._tool, 0)
            for code in self._local_codes.values():
                monitoring.set_local_events(self._tool, code, 0)
            self._local_codes.clear()
            for event in (events.PY_START, events.PY_RESUME, events.LINE, events.PY_RETURN,
                          events.PY_YIELD, events.RAISE, events.PY_UNWIND, events.CALL):
                monitoring.register_callback(self._tool, event, None)
            monitoring.free_tool_id(self._tool)

    def silence(self) -> None:
        # Events off, the tool and its callbacks kept: only register_callback and
        # use_tool_id/free_tool_id are audited.
        if not self.installed:
            return
        self.installed = False
        with self._lock:
            self._monitoring.set_events(self._tool, 0)
            for code in self._local_codes.values():
                self._monitoring.set_local_events(self._tool, code, 0)
            self._local_codes.clear()

    # Hot path: callbacks.

    def _on_start(self, code, instruction_offset):
        if code.co_filename in self._quiet_filenames:
            return self._disable
        entry = self._verdicts.get(_identity(code))
        verdict = entry[1] if entry is not None else self._code_has_breakpoints(code)
        if verdict:
            with self._lock:
                self._apply_local_events(code)
            if _identity(code) in self._function_codes:
                # Needed on every call: never disabled.
                self._function_started(sys._getframe(1), code)
                return None
        return self._disable

    def _on_resume(self, code, instruction_offset):
        if code.co_filename in self._quiet_filenames:
            return self._disable
        entry = self._verdicts.get(_identity(code))
        verdict = entry[1] if entry is not None else self._code_has_breakpoints(code)
        if verdict:
            with self._lock:
                self._apply_local_events(code)
        return self._disable

    def _on_line(self, code, line):
        compare = False
        if self._data_codes:
            watching = self._data_codes.get(_identity(code))
            if watching is not None and line in watching[2]:
                if self._data_line(sys._getframe(1), watching[1]):
                    return None
                if not (self._steps or self._entries or self._deferred_stops
                        or self._store.lines_by_file):
                    return None  # Nothing else can happen on this line.
                compare = True
        if not self._steps and not self._entries and not self._deferred_stops:
            lines = self._store.lines_by_file.get(self.canonical(code.co_filename))
            if (lines is None or line not in lines or (
                    self.copies is not None and line in self.copies.probe_lines(code))):
                # No breakpoint here, or one the copy's probe evaluates.
                if compare:
                    return None  # Compared every time.
                if _identity(code) not in self._function_codes:
                    return self._disable
        # The caller's frame is the frame that executes the line.
        self._line_hit(sys._getframe(1), code, line)
        return None

    def _on_return(self, code, instruction_offset, value):
        if self._data_codes:
            self._data_frame_returning(sys._getframe(1))
        if self._steps:
            self._frame_returned(sys._getframe(1), value, FRAME_RETURNED)
        return None

    def _on_yield(self, code, instruction_offset, value):
        if self._steps:
            self._frame_returned(sys._getframe(1), None, yield_kind(code, value))
        return None

    def _on_call(self, code, instruction_offset, callee, arg0):
        # Only the code objects of steps over ask for it (showReturnValue): a function
        # the stepped line calls gets its returns watched, for the value to show.
        step = self._steps.get(get_ident()) if self._steps else None
        if step is None or step.kind != STEP_OVER or step.frame is not sys._getframe(1):
            return None
        kind = type(callee)
        if kind is MethodType:
            callee = callee.__func__
            kind = type(callee)
        if kind is FunctionType:  # No other callable is asked anything: user code.
            target = callee.__code__
            if _identity(target) not in self._return_codes:
                with self._lock:
                    self._return_codes[_identity(target)] = target
                    self._apply_local_events(target)
        return None

    def _on_raise(self, code, instruction_offset, exception):
        frame = sys._getframe(1)
        # The frame's last instruction, not ``instruction_offset``: 3.13 gives the
        # offset past the instruction's inline caches there.
        if self.copies is not None and self.is_probe_exception(frame, frame.f_lasti):
            return  # A breakpoint condition's: its probe reports it.
        self._exception_raised(frame, exception)

    def _on_unwind(self, code, instruction_offset, exception):
        frame = sys._getframe(1)
        if self._steps:
            self._frame_returned(frame, None, FRAME_UNWOUND)
        if self.watch_exceptions:
            self._exception_unwound(frame, exception)

    # Event bookkeeping; never on the hot path.

    def _watch_frame_events(self, frame) -> bool:
        if not self.installed:
            return False
        code = frame.f_code
        monitoring = self._monitoring
        with self._lock:
            events = monitoring.get_local_events(self._tool, code)
            monitoring.set_local_events(self._tool, code, events | self._events.LINE)
            self._local_codes[_identity(code)] = code
            # The line event of the probe's except block may have been disabled.
            monitoring.restart_events()
        return True

    def _apply_local_events(self, code: types.CodeType) -> None:
        events = 0
        key = _identity(code)
        if self._verdict(code):
            events |= self._events.LINE
            if key in self._data_codes:
                # A change on the last line is compared as the frame returns.
                events |= self._events.PY_RETURN
        if key in self._step_codes:
            events |= self._events.LINE | self._events.PY_RETURN | self._events.PY_YIELD
        if key in self._call_codes:
            events |= self._events.CALL
        if key in self._return_codes:
            events |= self._events.PY_RETURN
        if events or key in self._local_codes:
            self._monitoring.set_local_events(self._tool, code, events)
        if events:
            self._local_codes[key] = code
        else:
            self._local_codes.pop(key, None)

    def _refresh_events(self, restart: bool) -> None:
        """Recompute global events and the step code objects from the step states."""
        if not self.installed:
            return
        events = self._events
        with self._lock:
            global_events = 0
            if self._looking_for_code():
                global_events |= events.PY_START
                if self._resumes_watched:
                    global_events |= events.PY_RESUME
            if self.watch_exceptions:
                global_events |= events.RAISE | events.PY_UNWIND
            step_codes: dict[int, types.CodeType] = {}
            call_codes: dict[int, types.CodeType] = {}
            for step in list(self._steps.values()):
                if step.kind in STEPS_ENTERING_CALLS or step.frame is None:
                    global_events |= events.LINE
                    if step.kind in _RETURNS_WATCHED and step.frame is not None:
                        # Its frame's return stops in the caller where the call returned
                        # (into), or raises the restart again (raise).
                        step_codes[_identity(step.frame.f_code)] = step.frame.f_code
                    continue
                # An exception leaving the step's frame moves the step to the caller, as
                # a return does; PY_UNWIND cannot be asked for one code object only.
                global_events |= events.PY_UNWIND
                frame = step.frame
                if step.kind == STEP_OVER and self.watch_returns:
                    call_codes[_identity(frame.f_code)] = frame.f_code
                while frame is not None:
                    if not is_debugger_path(self.canonical(frame.f_code.co_filename)):
                        step_codes[_identity(frame.f_code)] = frame.f_code
                    frame = frame.f_back
            previous, previous_calls = self._step_codes, self._call_codes
            changed = [step_codes.get(key) or previous[key]
                       for key in step_codes.keys() ^ previous.keys()]
            changed += [call_codes.get(key) or previous_calls[key]
                        for key in call_codes.keys() ^ previous_calls.keys()]
            if not call_codes and self._return_codes:
                # No step over left: the functions its lines called are let go.
                changed += self._return_codes.values()
                self._return_codes = {}
            self._step_codes, self._call_codes = step_codes, call_codes
            for code in changed:
                self._apply_local_events(code)
            self._monitoring.set_events(self._tool, global_events)
            if restart:
                # Undo the DISABLE returned for lines and starts, so that new breakpoints
                # and steps see every location again.
                self._monitoring.restart_events()

    def _looking_for_code(self) -> bool:
        """Whether code objects are looked at as they start: while some code object may
        hold a breakpoint, and on 3.12 only while a line breakpoint may still be in code
        nobody showed us (module docstring)."""
        store = self._store
        if store.functions.active or store.data.active:
            return True
        if not store.lines_by_file:
            return False
        copies = self.copies
        if not _START_IS_COSTLY or self.lines_need_tracing or copies is None:
            return True
        # Accounted for: the file's code is our copies (imported through the finder, the
        # program's compile, live functions). A file not loaded yet, or run from a
        # compile of someone else's (the interpreter's own run of a script the session
        # attached to), has none.
        accounted = copies.files()
        return any(canonical not in accounted for canonical in store.lines_by_file)

    def _code_has_breakpoints(self, code: types.CodeType) -> bool:
        copies = self.copies
        if copies is not None and code.co_name == "<module>":
            canonical = self.canonical(code.co_filename)
            if canonical in self._store.lines_by_file and copies.known_copy(code) is None:
                # A file with breakpoints runs from a compile of someone else's (another
                # loader, runpy.run_path, exec): told before the file counts as loaded,
                # which may be what ends the looking.
                self._host.module_compiled_elsewhere(canonical, code)
        return super()._code_has_breakpoints(code)

    def ensure_tracing(self) -> None:
        self._refresh_events(restart=False)

    def loaded_files_changed(self) -> None:
        self._refresh_events(restart=False)

    def breakpoints_changed(self) -> None:
        self._reset_verdicts()
        if not self.installed:
            return
        self._resumes_watched = True
        with self._lock:
            for code in list(self._local_codes.values()):
                self._apply_local_events(code)
            running = [frame for thread_ident, frame in sys._current_frames().items()
                       if thread_ident not in self._debugger_threads]
            # gevent: a greenlet that waits keeps its frames on no thread's stack.
            for frame in running + waiting_greenlet_frames():
                while frame is not None:
                    code = frame.f_code
                    if self._code_has_breakpoints(code):
                        self._apply_local_events(code)
                    frame = frame.f_back
            self._refresh_events(restart=True)

    def set_watch_exceptions(self, enabled: bool) -> None:
        super().set_watch_exceptions(enabled)
        self._refresh_events(restart=False)

    def set_step(self, thread_ident: int, step: StepState | None) -> None:
        if step is None:
            if self._steps.pop(thread_ident, None) is not None:
                self._refresh_events(restart=False)
            return
        self._steps[thread_ident] = step
        self._refresh_events(restart=True)
        if step.kind == STEP_PAUSE and "greenlet" in sys.modules:
            self._see_waiting_greenlets()

    def _see_waiting_greenlets(self) -> None:
        # Turning LINE on globally instruments the code of the frames on the threads'
        # stacks at once, and any other code object when a call of it starts: a greenlet
        # switched back to goes on in code instrumented as it was. Changing a code
        # object's local events instruments it now, with the global events.
        codes: dict[int, types.CodeType] = {}
        for frame in waiting_greenlet_frames():
            while frame is not None:
                code = frame.f_code
                if not is_debugger_path(self.canonical(code.co_filename)):
                    codes[_identity(code)] = code
                frame = frame.f_back
        monitoring, tool, line = self._monitoring, self._tool, self._events.LINE
        with self._lock:
            for code in codes.values():
                events = monitoring.get_local_events(tool, code)
                monitoring.set_local_events(tool, code, events ^ line)
                monitoring.set_local_events(tool, code, events)

    def _step_retargeted(self, step: StepState) -> None:
        self._refresh_events(restart=False)

    def _step_finished(self) -> None:
        self._refresh_events(restart=False)
