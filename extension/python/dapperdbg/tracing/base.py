"""What both tracer backends share: breakpoint verdicts per code object, and following
steps (what a step is and where it ends: steps.py).

A backend's job is only to get line (and, while stepping, return) notifications for the
right code objects as cheaply as the interpreter allows, and to hand them to
``_line_hit`` / ``_frame_returned`` here. Code objects whose own lines hold no
breakpoint run untraced while no thread is stepping.
"""

from __future__ import annotations

import sys

from ..common import debugger_threads
from ..common.errors import report_internal_error
from ..common.library_code import is_library_canonical
from ..common.native import get_ident
from ..common.paths import PathCache, is_debugger_path, is_runpy_path
from ..instrumentation.registry import InstrumentationRegistry
from ..instrumentation.registry import identity as _identity
from ..instrumentation.restarts import is_handler_line, is_parked
from ..instrumentation.restarts import line_now as _line_now
from .data_stops import DataStops
from .probe_stops import ProbeStops
from .steps import (
    FRAME_RETURNED,
    FRAME_SUSPENDED,
    FRAME_UNWOUND,
    STEP_ENTRY,
    STEP_INTO,
    STEP_OVER,
    STEP_RAISE,
    STEPS_ENTERING_CALLS,
    TASK_FLAGS,
    StepState,
    in_stepping_greenlet,
    step_ends_here,
)

LAZY_ANNOTATIONS = sys.version_info >= (3, 14)


class ToolIdInUse(RuntimeError):
    """Another tool (a second debugger) holds the debugger's sys.monitoring tool id."""


TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable

    from ..breakpoints.store import BreakpointStore
    from .host import TracerHost


# Imports its module at its first call, made only once a line breakpoint is set (its
# store imports code_lines first), and then puts the function itself in its place: a
# session without breakpoints does not import it, and the tracer's calls import nothing.
def _import_code_own_lines(code: types.CodeType) -> frozenset:
    global _code_own_lines
    from ..common.code_lines import code_own_lines

    _code_own_lines = code_own_lines
    return code_own_lines(code)


_code_own_lines = _import_code_own_lines


def _shows_its_value(code: types.CodeType) -> bool:
    """Whether a function's return value is worth showing after a step over its call:
    not a comprehension's or generator expression's own frame (before 3.12 they are
    functions of their own, called by the line), which the user did not write as a call."""
    name = code.co_name
    return not name.startswith("<") or name == "<lambda>"


def is_user_canonical(canonical: str) -> bool:
    """Frames the user may stop in: not the debugger's, not runpy's, not frozen code."""
    return not (
        is_debugger_path(canonical)
        or is_runpy_path(canonical)
        or canonical.startswith("<frozen ")
    )


class Tracer(ProbeStops, DataStops):
    """The backend interface, with the logic shared by both backends."""

    name = "abstract"

    def __init__(self, store: BreakpointStore, host: TracerHost,
                 paths: PathCache | None = None) -> None:
        self._store = store
        self._host = host
        # Shared with the debugger's inspector: a file is canonicalised once.
        self._paths = PathCache() if paths is None else paths
        self._canonical_get = self._paths.lookup
        # _identity(code) -> (code, whether its own lines hold a breakpoint). Rebuilt (not
        # mutated) when breakpoints change, so readers never see a partial update. Keyed
        # by identity: code objects that differ only in their file compare equal. The
        # entry keeps its code object alive, so its id cannot be reused meanwhile.
        self._verdicts: dict[int, tuple[types.CodeType, bool]] = {}
        # The ``co_filename`` of the files whose code can hold no breakpoint while the
        # breakpoints stay as they are (the file has no line breakpoint, the session no
        # function or data breakpoint): a later code object of one is answered from here,
        # without a verdict of its own. A backend that looks at every code object as it
        # first starts (monitoring's PY_START) meets thousands of them in a large program,
        # almost all of such files, and a verdict costs about three times this lookup.
        # Replaced, as the verdicts are, whenever the breakpoints change.
        self._quiet_filenames: set[str] = set()
        # thread ident -> StepState, for the threads that are stepping.
        self._steps: dict[int, StepState] = {}
        # The debugger's own threads, exactly while they run (common/debugger_threads.py):
        # never stopped, never traced. Live, so an ended one's ident, which a program
        # thread may get next, is no longer among them.
        self._debugger_threads = debugger_threads.running
        self.installed = False
        # justMyCode: library code (standard library, site-packages) is not stepped into
        # nor stopped in, except at breakpoints the user set there.
        self.just_my_code = True
        self._user_by_canonical: dict[str, bool] = {}
        # Whether exceptions must be watched as they are raised (raised/userUnhandled).
        self.watch_exceptions = False
        # showReturnValue: a step over also watches the returns of the line's calls.
        self.watch_returns = False
        # _identity(code) -> (code, the function breakpoints that apply to it), from the verdicts.
        self._function_codes: dict[int, tuple[types.CodeType, tuple]] = {}
        # _identity(code) -> (code, the data breakpoints whose value it may change, the
        # lines where they are compared), from the verdicts (breakpoints/data.py).
        self._data_codes: dict[int, tuple[types.CodeType, tuple, frozenset]] = {}
        # thread ident -> the frame whose first line ends a function-breakpoint entry.
        self._entries: dict[int, types.FrameType] = {}
        # The registry of instrumented copies (docs/instrumentation.md) once the
        # debugger runs breakpoints as probes; None while it does not.
        self.copies: InstrumentationRegistry | None = None
        # thread ident -> (frame, line): a probe line where this thread already stopped
        # (or evaluated its breakpoints) at the line event; the probe that runs right
        # after it must not stop a second time.
        self._handled_probes: dict[int, tuple[types.FrameType, int]] = {}
        # thread ident -> (frame, stop): a probe decided to stop this thread; the stop
        # happens at the frame's next trace event (``stop_at_next_event``).
        self._deferred_stops: dict[int, tuple[types.FrameType, Callable[[], None]]] = {}

    # The interface the Debugger uses.

    def install(self) -> None:
        """Start tracing the calling thread and every thread started afterwards."""
        raise NotImplementedError

    def uninstall(self) -> None:
        raise NotImplementedError

    def silence(self) -> None:
        """The process ends: deliver no more events, without the calls an audit hook of
        the program's would see (sys.settrace, sys.monitoring.register_callback, listing
        the threads). The trace functions and callbacks stay, with nothing to do."""
        self.installed = False

    def breakpoints_changed(self) -> None:
        """Apply the store's new breakpoints, including to frames already running."""
        raise NotImplementedError

    def set_step(self, thread_ident: int, step: StepState | None) -> None:
        """Start (or, with None, cancel) a step on a thread. Called on the IPC thread while
        the thread is stopped, or for pause while it runs."""
        raise NotImplementedError

    # Whether breakpoint lines exist that only the tracer watches (lines the copies
    # could not take, frames running old code): set by the debugger.
    lines_need_tracing = True

    def tracing_needed(self) -> bool:
        """Whether a trace function must run at all (backends that can run without one
        while nothing needs it say so)."""
        return True

    def ensure_tracing(self) -> None:
        """Start tracing every thread if something needs it now (and it is off)."""

    def foreign_tracer(self) -> bool:
        """Whether the program's own trace function keeps this one off the calling
        thread (only sys.settrace has one function per thread)."""
        return False

    def loaded_files_changed(self) -> None:
        """A file's code became copies of ours (imported through the finder, or the
        program compiled): backends that look for code only until every file with
        breakpoints is accounted for decide again."""

    def settle_tracing(self) -> None:
        """Stop tracing if nothing needs it any more. Called when no thread is stopped
        (a stopped thread sits in a trace event, where CPython allows a jump)."""

    def cancel_steps(self) -> None:
        for thread_ident in list(self._steps):
            self.set_step(thread_ident, None)

    def step_of(self, thread_ident: int) -> StepState | None:
        """The step the thread is taking, if any."""
        return self._steps.get(thread_ident)

    def is_ignored_thread(self, thread_ident: int) -> bool:
        """Whether the thread is one of the debugger's (never stopped)."""
        return thread_ident in self._debugger_threads

    def adopt_settings(self, other: Tracer) -> None:
        """Take over the settings of ``other``, a tracer this one replaces before either
        is installed (the sys.settrace fallback): justMyCode, the exceptions and return
        values watched and the instrumented copies."""
        self.set_just_my_code(other.just_my_code)
        self.set_watch_exceptions(other.watch_exceptions)
        self.watch_returns = other.watch_returns
        self.copies = other.copies
        self.lines_need_tracing = other.lines_need_tracing

    def trace_again(self) -> None:
        """The calling thread raised an exception out of a trace event (a frame restart):
        backends whose trace function the interpreter then took off put it back."""

    def after_fork_in_child(self) -> None:
        """In a fork child: the tracer's locks may have been held by a thread of the
        parent, which does not exist here to release them. Backends with locks make
        new ones."""

    def set_just_my_code(self, enabled: bool) -> None:
        self.just_my_code = enabled
        self._user_by_canonical = {}

    def set_watch_exceptions(self, enabled: bool) -> None:
        """Start or stop watching raised and unwinding exceptions."""
        self.watch_exceptions = enabled

    def is_user_code(self, canonical: str) -> bool:
        """Code the user may step into and stop in (given justMyCode)."""
        user = self._user_by_canonical.get(canonical)
        if user is None:
            user = is_user_canonical(canonical) and not (
                self.just_my_code and is_library_canonical(canonical)
            )
            self._user_by_canonical[canonical] = user
        return user

    def is_user_frame(self, frame: types.FrameType) -> bool:
        return self.is_user_code(self.canonical(frame.f_code.co_filename))

    def canonical(self, filename: str) -> str:
        """The canonical path of a ``co_filename`` (cached)."""
        canonical = self._canonical_get(filename)
        if canonical is None:
            canonical = self._paths.canonical(filename)
        return canonical

    # Shared helpers.

    def _code_has_breakpoints(self, code: types.CodeType) -> bool:
        """Compute (and cache) whether one of the code object's own lines holds a
        breakpoint. Debugger code never does, whatever the user asked."""
        # Taken before the breakpoints are read: if they change meanwhile, this verdict
        # lands in the table being replaced, never in the new one.
        verdicts = self._verdicts
        quiet = self._quiet_filenames
        filename = code.co_filename
        canonical = self.canonical(filename)
        if is_debugger_path(canonical):
            verdicts[_identity(code)] = (code, False)
            quiet.add(filename)
            return False
        store = self._store
        # The file's code exists now: its pending breakpoints are announced verified
        # before any line of this code runs. Noted before pending_files is read, because
        # setBreakpoints publishes pending_files before it reads the notes again: one of
        # the two always sees the other.
        store.loaded.note(canonical)
        if canonical in store.pending_files:
            try:
                self._host.file_loaded(canonical)
            except Exception:  # Never an exception in the user's code.
                report_internal_error("the first code of a file")
        lines = store.lines_by_file.get(canonical)
        verdict = False
        if lines:
            own = _code_own_lines(code)
            copies = self.copies
            info = copies.info_for_copy(code) if copies is not None else None
            if info is not None:
                # The copy's probes handle these lines: with no other breakpoint, the
                # code object runs untraced.
                own = own - info.probe_lines
            verdict = not own.isdisjoint(lines)
        functions = store.functions
        if functions.active:
            matching = functions.matching(code, canonical)
            if matching:
                self._function_codes[_identity(code)] = (code, matching)
                verdict = True
        if store.data.active:
            watching = store.data.watching(code)
            if watching is not None:
                self._data_codes[_identity(code)] = (code, *watching)
                verdict = True
        verdicts[_identity(code)] = (code, verdict)
        if not (lines or functions.active or store.data.active
                or canonical in store.pending_files):
            # Noted as loaded above: the file's other code objects have nothing to add.
            quiet.add(filename)
        return verdict

    def _verdict(self, code: types.CodeType) -> bool:
        """The cached verdict of a code object (computed if missing). Backends inline
        this on their hot paths."""
        entry = self._verdicts.get(_identity(code))
        return entry[1] if entry is not None else self._code_has_breakpoints(code)

    def _reset_verdicts(self) -> None:
        self._verdicts = {}
        self._quiet_filenames = set()
        self._function_codes = {}
        self._data_codes = {}
        self._entries = {}

    def _function_started(self, frame: types.FrameType, code: types.CodeType) -> None:
        """A new call of a code object with function breakpoints: its first line event
        (the first line of the body) is where they are evaluated."""
        if _identity(code) in self._function_codes:
            self._entries[get_ident()] = frame

    def _line_hit(self, frame: types.FrameType, code: types.CodeType, line: int) -> bool:
        """A line event worth looking at. Returns True when the thread stopped."""
        try:
            return self._line_hit_unguarded(frame, code, line)
        except Exception:
            # A bug here must not become an exception in the user's code, nor switch
            # tracing off silently: report it and let the program run on.
            report_internal_error("a line event")
            return False

    def _line_hit_unguarded(self, frame, code, line) -> bool:
        thread_ident = get_ident()
        if self._deferred_stops and self._deferred_stop_here(thread_ident, frame):
            return True
        if line == code.co_firstlineno and is_handler_line(code, line):
            return False  # A restartable function's handler (instrumentation/restartable.py).
        probe_line = False
        copies = self.copies
        if copies is not None:
            info = copies.known_copy(code)
            if info is not None:
                if frame.f_lasti in info.quiet_offsets:
                    # Only repeats the event of the probe's first instruction.
                    return False
                probe_line = line in info.probe_lines and copies.info_for_copy(code) is info
            if self._handled_probes:
                handled = self._handled_probes.get(thread_ident)
                if handled is not None and handled[0] is frame:
                    # The frame went on past the probe (whose condition was false).
                    del self._handled_probes[thread_ident]
        if self._entries:
            entry = self._entries.pop(thread_ident, None)
            functions = self._function_codes.get(_identity(code)) if entry is frame else None
            if functions:
                if probe_line:
                    self._handled_probes[thread_ident] = (frame, line)
                if self._host.function_entered(frame, functions[1]):
                    return True
                self._handled_probes.pop(thread_ident, None)
        canonical = self.canonical(code.co_filename)
        step = self._steps.get(thread_ident)
        step_ends = step is not None and self._step_ends(step, frame, canonical)
        lines = self._store.lines_by_file.get(canonical)
        if lines is not None and (step_ends or not probe_line):
            # On a probe line the probe evaluates the breakpoints, unless a step ends
            # here: then they come first, as on any line, and the probe stands down.
            breakpoints = lines.get(line)
            if breakpoints:
                if probe_line:
                    self._handled_probes[thread_ident] = (frame, line)
                if self._host.breakpoints_reached(frame, breakpoints):
                    return True
        if not step_ends:
            return False
        if probe_line:
            self._handled_probes[thread_ident] = (frame, line)
        self._steps.pop(thread_ident, None)
        self._step_finished()
        self._host.step_ended(frame, step)
        return True

    def _step_ends(self, step: StepState, frame: types.FrameType, canonical: str) -> bool:
        if not self.is_user_code(canonical):
            return False
        if LAZY_ANNOTATIONS and frame.f_code.co_name == "__annotate__":
            # 3.14+ compiles annotations into an __annotate__ function that runs when
            # something reads them (dataclasses, typing, inspect, P.__annotations__):
            # generated code, which a step passes through as it does library code.
            return False
        if step.kind == STEP_ENTRY and frame.f_globals.get("__name__") != "__main__":
            # The entry stop is the first line of the program's own main module, not of
            # a module that `-m` or a .pth import hook happens to import on the way.
            return False
        return step_ends_here(step, frame)

    def _frame_returned(self, frame: types.FrameType, value, exit_kind: str) -> None:
        """``frame`` left (``exit_kind``: steps.FRAME_RETURNED, _YIELDED, _SUSPENDED or
        _UNWOUND). A step over, out of or into it goes on past it: it stops in the
        caller where the call returned, or, over and out, goes on in the caller or in
        the coroutine once it resumes (docs/stepping.md)."""
        try:
            self._frame_returned_unguarded(frame, value, exit_kind)
        except Exception:
            report_internal_error("a return event")

    def _frame_returned_unguarded(self, frame: types.FrameType, value, exit_kind: str) -> None:
        thread_ident = get_ident()
        step = self._steps.get(thread_ident)
        if step is None or (step.greenlet is not None and not in_stepping_greenlet(step)):
            return
        if step.frame is not frame:
            if (exit_kind == FRAME_RETURNED and step.kind == STEP_OVER
                    and frame.f_back is step.frame and step.frame is not None
                    and _shows_its_value(frame.f_code) and self.is_user_frame(frame)):
                # A call of the line being stepped over returned: the stop shows its value.
                self._host.step_left_function(frame, value)
            return
        if step.kind == STEP_RAISE and exit_kind == FRAME_RETURNED:
            # The frame to restart returns before a line of it runs again (the program's
            # handler that caught the restart returned). An exception raised from a return
            # event leaves the frame without its handlers seeing it: given up.
            self._steps.pop(thread_ident, None)
            self._step_finished()
            step.raises(False)
            return
        entering = step.kind in STEPS_ENTERING_CALLS
        if entering and (step.kind != STEP_INTO or exit_kind in (FRAME_SUSPENDED, FRAME_UNWOUND)):
            return  # It ends on the next line of user code, wherever that runs.
        if exit_kind == FRAME_SUSPENDED:
            # The coroutine waits; the step ends on its next line (over) or at its real
            # return (out) once the event loop resumes it, not in whatever runs meanwhile.
            step.suspended = True
            return
        if exit_kind == FRAME_RETURNED:
            self._host.step_left_function(frame, value)
        caller = frame.f_back
        while caller is not None and is_parked(caller):
            # A restarted call returns through the frame it restarted (and that one
            # through its own, restarted before), which returns its value at once: the
            # caller is the first frame's.
            caller = caller.f_back
        if exit_kind != FRAME_UNWOUND and caller is not None and self.is_user_frame(caller):
            # Back in the caller where the call returns, with the rest of its line still
            # to run (a second call on the line can still be stepped into).
            self._steps.pop(thread_ident, None)
            self._step_finished()
            self._host.step_ended(caller, step, mid_line=True)
            return
        if frame.f_code.co_flags & TASK_FLAGS and self._step_follows_task(step, frame):
            return
        if entering:
            return
        while caller is not None and not self.is_user_frame(caller):
            caller = caller.f_back
        if caller is None:
            # Out of the outermost user frame (the module, or a thread's entry point):
            # nothing of the user's is left to stop in, so the thread just runs on.
            self._steps.pop(thread_ident, None)
            self._step_finished()
            self.settle_tracing()
            return
        # Through library code (a callback returned to the library that called it), or
        # unwinding: the step ends on the next line of the first user frame it reaches.
        step.kind, step.frame, step.line = STEP_OVER, caller, _line_now(caller) or 0
        step.suspended = False
        self._step_retargeted(step)

    def _step_follows_task(self, step: StepState, frame: types.FrameType) -> bool:
        """The step's coroutine left into the event loop (or other code not the user's):
        if an asyncio task ran it, the step goes on in the task that awaits that one,
        ending on its next line once it resumes (not in the loop, nor in the other tasks
        that run meanwhile), or, when no task awaits it, the thread runs on. False: no
        task's coroutine, the usual rule applies."""
        after = self._host.task_coroutine_left(frame)
        if after is None:
            return False
        thread_ident = get_ident()
        awaiter = after.awaiter
        if awaiter is None:
            self._steps.pop(thread_ident, None)
            self._step_finished()
            self.settle_tracing()
            return True
        step.kind, step.frame, step.line = STEP_OVER, awaiter, _line_now(awaiter) or 0
        step.target = None
        step.suspended = True
        self._watch_suspended_frame(awaiter)
        self._step_retargeted(step)
        return True

    def _watch_suspended_frame(self, frame: types.FrameType) -> None:
        """A step now waits for ``frame``, a coroutine's frame not on any stack, to
        resume: backends that trace frame by frame give it their line events."""

    def _see_waiting_greenlets(self) -> None:
        """A pause: the next line of user code the thread runs may be in a greenlet that
        waits now, whose frames are on no stack (common/greenlet_frames.py); backends
        that give line events to the frames or code on the stacks give them those too."""

    def _step_retargeted(self, step: StepState) -> None:
        """Backends that enable events per code object extend them to the new frame."""

    def _step_finished(self) -> None:
        """Backends that enabled events for a step may turn them off again."""


    def _exception_raised(self, frame: types.FrameType, exception: BaseException) -> None:
        try:
            if not self.is_ignored_thread(get_ident()):
                self._host.exception_raised(frame, exception)
        except Exception:
            report_internal_error("an exception event")

    def _exception_unwound(self, frame: types.FrameType, exception: BaseException) -> None:
        try:
            if not self.is_ignored_thread(get_ident()):
                self._host.exception_unwound(frame, exception)
        except Exception:
            report_internal_error("an unwind event")
