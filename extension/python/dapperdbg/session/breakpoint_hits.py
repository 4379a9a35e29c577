"""The Debugger's answer to breakpoints reached (the tracer's host interface for them):
a probe of an instrumented copy that ran, a line, function or data breakpoint reached, a
``breakpoint()`` call, a file loaded with pending breakpoints; each hit counted, its
condition and hit condition asked, its log message written, and the stop made.

A part of session/debugger.py's ``Debugger`` (its base class, so that the tracer's calls
reach these methods with no call in between: a probe's hit is on the program's hot path),
kept apart as what decides whether a breakpoint stops. It keeps no state of its own: it
uses the Debugger's tracer, breakpoint store, probes, log points, stops and connection.
"""

from __future__ import annotations

from ..breakpoints.store import Breakpoint
from ..common.native import get_ident
from ..instrumentation.probes import StopAtLineEvent

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

    from ..breakpoints.store import BreakpointStore
    from ..instrumentation.breakpoint_probes import BreakpointProbes
    from ..ipc.connection import Connection
    from ..tracing.base import Tracer
    from .foreign_code import ForeignCode
    from .log_points import LogPoints
    from .stops import Stops

# How long a thread that loads a file waits for the setBreakpoints response that
# carries the file's pending breakpoints (sent by the IPC thread; it is normally a matter
# of microseconds) before it runs on, leaving the announcement to that thread.
ANSWER_WAIT_SECONDS = 1.0


class BreakpointHits:
    """Breakpoints reached, for the ``Debugger`` that derives from it (which has these,
    and ``send_output``)."""

    tracer: Tracer
    store: BreakpointStore
    probes: BreakpointProbes
    log_points: LogPoints
    stops: Stops
    foreign_code: ForeignCode
    connection: Connection
    busy: set[int]
    line_offset: int
    _detached: bool

    def probe_hit(self, probe_id: int, frame: types.FrameType,
                  error: BaseException | None) -> None:
        """A probe of an instrumented copy ran (its condition, if compiled in, was true,
        or raised ``error``): the same guards and stop as ``breakpoints_reached``. The
        stop itself happens at the frame's next trace event (tracing/base.py says why)."""
        ident = get_ident()
        if isinstance(error, StopAtLineEvent):
            # The probe's except block, after the stop this handler raised for.
            self.tracer.deferred_stop_missed(ident, frame)
            return
        if (ident in self.busy or self.tracer.is_ignored_thread(ident) or self._detached
                or not self.tracer.installed or self.tracer.probe_handled(ident, frame)):
            return
        target = self.probes.targets.get(probe_id)
        if target is not None and target.log_key is not None:
            # A log point compiled in: its line raised while the copy rendered it.
            self.log_points.rendering_failed(target.breakpoints[0], frame, error)
            return
        if target is None:
            # A frame still running a copy made for breakpoints since changed. Its lines
            # are traced, and stop there; but a copy of an earlier debugger's (a program
            # attached to again) was forgotten at the detach, and an idle tracer may not
            # see the frame: its probe then stops for the line's breakpoints now.
            if self.tracer.sees_lines_of(frame):
                return
            canonical = self.tracer.canonical(frame.f_code.co_filename)
            current = self.store.lines_by_file.get(canonical, {}).get(frame.f_lineno)
            if not current:
                return
            hit_ids = self._breakpoints_hit(frame, current)
        elif not target.condition_compiled:
            hit_ids = self._breakpoints_hit(frame, target.breakpoints)
        else:
            breakpoint = target.breakpoints[0]
            self.busy.add(ident)
            try:
                stop = self._breakpoint_says_stop(breakpoint, frame, True, error)
            finally:
                self.busy.discard(ident)
            hit_ids = [breakpoint.id] if stop else []
        if not hit_ids or self.tracer.inside_probe_condition(frame):
            return  # No stop in a function a breakpoint's condition called.
        if error is not None:
            # Called from the probe's except block, which cannot be left by a jump: the
            # thread stops here (a goto is refused with CPython's reason).
            self.stops.stop(frame, "breakpoint", hit_ids)
            return
        self.tracer.stop_at_next_event(frame, lambda: self.stops.stop(frame, "breakpoint", hit_ids))

    def _file_instrumented(self, canonical: str, module) -> None:
        """The import finder compiled a file with probes, just before its code runs:
        the file is loaded, and its pending breakpoints verified now. Lines its compile
        refused (the file changed since its probes were set) are the tracer's."""
        if module.refused and self.probes.import_refused(canonical, module.refused):
            self.tracer.lines_need_tracing = True
            self.tracer.ensure_tracing()
        self.store.loaded.note(canonical)
        if canonical in self.store.pending_files:
            self.file_loaded(canonical)
        self.file_accounted_for()

    def file_accounted_for(self) -> None:
        """A file's code became copies of ours: what looks for code of the files with
        line breakpoints that nobody showed us decides again (the tracer's, and the
        watch of ``exec``)."""
        self.tracer.loaded_files_changed()
        self.foreign_code.watch()

    def breakpoints_reached(self, frame: types.FrameType, breakpoints: tuple,
                            reason: str = "breakpoint") -> bool:
        hit_ids = self._breakpoints_hit(frame, breakpoints)
        if not hit_ids or self.tracer.inside_probe_condition(frame):
            return False  # No stop in a function a breakpoint's condition called.
        self.stops.stop(frame, reason, hit_ids)
        return True

    def _breakpoints_hit(self, frame: types.FrameType, breakpoints: tuple) -> list[int]:
        """The ids of the breakpoints reached in ``frame`` that say stop (each one's hit
        counted, its log message written)."""
        ident = get_ident()
        if ident in self.busy or self.tracer.is_ignored_thread(ident) or self._detached:
            return []
        self.busy.add(ident)
        try:
            return [bp.id for bp in breakpoints if self._breakpoint_says_stop(bp, frame)]
        finally:
            self.busy.discard(ident)

    def data_changed(self, frame: types.FrameType, hits: list) -> bool:
        """Watched values changed (``(breakpoint, old, new)`` each) by the line that
        ``frame`` just ran: stop there if a data breakpoint says so."""
        ident = get_ident()
        if ident in self.busy or self.tracer.is_ignored_thread(ident) or self._detached:
            return False
        self.busy.add(ident)
        try:
            stopping = [hit for hit in hits if self._breakpoint_says_stop(hit[0], frame)]
            if not stopping or self.tracer.inside_probe_condition(frame):
                return False
            # Imported with the session's first data breakpoint (breakpoints/store.py).
            from ..breakpoints.data import describe_change

            text = "; ".join(describe_change(breakpoint, old, new, _short_repr)
                             for breakpoint, old, new in stopping)
        finally:
            self.busy.discard(ident)
        self.stops.stop(frame, "data breakpoint", [hit[0].id for hit in stopping],
                        description=f"Paused on data breakpoint: {text}", text=text)
        return True

    def data_frames_ended(self, breakpoints: list) -> None:
        """Data breakpoints on locals whose frame returned: shown unverified, with why."""
        if self._detached:
            return
        for breakpoint in breakpoints:
            self.connection.send_event("breakpoint", {
                "reason": "changed", "breakpoint": breakpoint.to_dap()})

    def breakpoint_called(self, frame: types.FrameType) -> None:
        """``breakpoint()`` ran in ``frame`` (session/breakpoint_hook.py): stop there."""
        ident = get_ident()
        if (ident in self.busy or self.tracer.is_ignored_thread(ident) or self._detached
                or not self.tracer.installed or self.tracer.inside_probe_condition(frame)):
            return
        self.stops.stop(frame, "breakpoint")

    def function_entered(self, frame: types.FrameType, breakpoints: tuple) -> bool:
        functions = self.store.functions
        self.announce_verified(
            [bp for bp in breakpoints if functions.found(bp, frame.f_code)])
        return self.breakpoints_reached(frame, breakpoints, "function breakpoint")

    def file_loaded(self, canonical: str) -> None:
        # A debugger thread (the IPC thread among them) never waits for a response
        # that it may be the one to send.
        ident = get_ident()
        wait = 0.0 if self.tracer.is_ignored_thread(ident) else ANSWER_WAIT_SECONDS
        self.store.file_loaded(canonical, self.announce_verified, wait)

    def announce_verified(self, breakpoints: list) -> None:
        """Tell the client that breakpoints (line or function) it was answered
        unverified are verified now: one ``breakpoint`` event each."""
        if self._detached:
            return
        for breakpoint in breakpoints:
            self.connection.send_event("breakpoint", {
                "reason": "changed", "breakpoint": breakpoint.to_dap(self.line_offset)})

    def _breakpoint_says_stop(self, breakpoint: Breakpoint, frame: types.FrameType,
                              condition_done: bool = False,
                              condition_error: BaseException | None = None) -> bool:
        """Whether a breakpoint reached in ``frame`` stops (counting the hit, writing a
        log message). ``condition_done``: a probe already evaluated the condition (it
        held, or raised ``condition_error``)."""
        if not condition_done and breakpoint.condition is not None:
            try:
                if not eval(breakpoint.condition, frame.f_globals, frame.f_locals):
                    return False
            except Exception as error:
                condition_error = error
        if type(breakpoint) is Breakpoint and not breakpoint.told_verified:
            # The client may not know yet that this breakpoint is verified: its file was
            # loaded while its breakpoints were being set, unseen by the tracer and the
            # import finder. It learns it before anything is shown for this hit
            # (``file_loaded`` also waits for an announcement under way elsewhere).
            self.store.loaded.note(breakpoint.canonical)
            self.file_loaded(breakpoint.canonical)
        if condition_error is not None:
            # Like a failing assertion, a broken condition stops so the user sees it;
            # the message is given once, not on every hit.
            if not breakpoint.condition_error_reported:
                breakpoint.condition_error_reported = True
                self.send_output(
                    f"Error evaluating the breakpoint condition at line "
                    f"{frame.f_lineno - self.line_offset}: "
                    f"{type(condition_error).__name__}: {condition_error}\n",
                    category="important",
                )
            return True
        breakpoint.hits += 1
        if breakpoint.hit_condition is not None and not breakpoint.hit_condition.should_stop(
            breakpoint.hits
        ):
            return False
        if breakpoint.log_template is not None:
            self.log_points.line(breakpoint, frame)
            return False
        return True




def _short_repr(value) -> str:
    """An old or new value in a data breakpoint's stop text."""
    from ..inspection.rendering import safe_repr

    return safe_repr(value, 80)
