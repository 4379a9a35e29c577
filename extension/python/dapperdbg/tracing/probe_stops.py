"""The part of the tracer that serves the breakpoint probes compiled into copies
(docs/instrumentation.md): stops a probe decides, which happen at the frame's next trace
event; probe lines already dealt with at their line event; and whether a frame runs on
behalf of a breakpoint's condition. ``base.Tracer`` holds the state it reads
(``_deferred_stops``, ``_handled_probes``, ``copies``)."""

from __future__ import annotations

import sys

from ..common.errors import report_internal_error
from ..common.native import get_ident
from ..instrumentation.probes import StopAtLineEvent
from ..instrumentation.registry import identity as _identity
from ..instrumentation.restarts import line_now as _line_now

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable

    from ..instrumentation.registry import InstrumentationRegistry

# A debugger may set f_lineno (goto) only from a line event on 3.11+; from any trace
# event of the frame (an "opcode" one included) on 3.9-3.10.
JUMPS_NEED_LINE_EVENTS = sys.version_info >= (3, 11)


class ProbeStops:
    _deferred_stops: dict[int, tuple[types.FrameType, Callable[[], None]]]
    _handled_probes: dict[int, tuple[types.FrameType, int]]
    copies: InstrumentationRegistry | None

    # Stops decided by probes. A thread stopped inside a probe call could not jump
    # (goto): CPython takes a new f_lineno only from a trace event of the frame, and
    # only from a line event on 3.11+. So the stop happens at the frame's next event:
    # on 3.11+ the probe raises StopAtLineEvent and its except block gives a line event
    # on the same line; on 3.9-3.10 an "opcode" event comes right after the call.

    def stop_at_next_event(self, frame: types.FrameType, stop: Callable[[], None]) -> None:
        """Called by a probe's handler on the probe's thread: run ``stop`` (which blocks
        until the thread resumes) at the frame's next trace event, before the line's
        statement runs. Raises StopAtLineEvent on 3.11+, which the probe lets through."""
        thread_ident = get_ident()
        if not self._watch_frame_events(frame):
            stop()  # No event can come (the thread runs untraced): stop in the probe.
            return
        self._deferred_stops[thread_ident] = (frame, stop)
        if JUMPS_NEED_LINE_EVENTS:
            raise StopAtLineEvent

    def deferred_stop_missed(self, thread_ident: int, frame: types.FrameType) -> None:
        """The probe's except block runs and the stop it raised for has not happened
        (no line event came): stop now, in the probe."""
        self._deferred_stop_here(thread_ident, frame)

    def _deferred_stop_here(self, thread_ident: int, frame: types.FrameType) -> bool:
        deferred = self._deferred_stops.get(thread_ident)
        if deferred is None or deferred[0] is not frame:
            return False
        del self._deferred_stops[thread_ident]
        deferred[1]()
        return True

    def _watch_frame_events(self, frame: types.FrameType) -> bool:
        """Make the frame's next line event (and on 3.9-3.10 opcode event) reach
        ``_line_hit`` / ``_opcode_hit``. False if the backend cannot."""
        return False

    def _opcode_hit(self, frame: types.FrameType) -> None:
        try:
            if self._deferred_stops:
                self._deferred_stop_here(get_ident(), frame)
        except Exception:
            report_internal_error("an opcode event")

    def note_probe_handled(self, thread_ident: int, frame: types.FrameType, line: int) -> None:
        """The thread goes on in ``frame`` at ``line`` as if past its line event (a goto
        landed there): the line's probe, if it has one, must not stop."""
        self._handled_probes[thread_ident] = (frame, line)

    def probe_handled(self, thread_ident: int, frame: types.FrameType) -> bool:
        """Whether the probe that ``frame`` runs now on this thread was dealt with at its
        line event (the thread stopped there, or a step ended there): it must not stop
        again. Consumes the note."""
        handled = self._handled_probes.pop(thread_ident, None) if self._handled_probes else None
        return handled is not None and handled[0] is frame and handled[1] == _line_now(frame)

    def sees_lines_of(self, frame: types.FrameType) -> bool:
        """Whether this tracer gets ``frame``'s line events now (for a probe that has
        no target any more: a line event stops there instead)."""
        return True

    def inside_probe_condition(self, frame: types.FrameType) -> bool:
        """Whether ``frame`` runs on behalf of a breakpoint condition compiled into a
        copy (a caller is inside a probe): breakpoints reached there do not stop, as
        when the debugger evaluates a condition itself. Asked only before a stop (the
        walk costs microseconds a frame on a deep stack)."""
        copies = self.copies
        if copies is None:
            return False
        current, retired = copies.copies, copies.retired
        caller = frame.f_back
        while caller is not None:
            code = caller.f_code
            key = _identity(code)
            info = current.get(key) or retired.get(key)
            if info is not None and info.copy is code and caller.f_lasti in info.probe_offsets:
                return True
            caller = caller.f_back
        return False

    def is_probe_exception(self, frame: types.FrameType, offset: int) -> bool:
        """Whether an exception event at ``offset`` in ``frame`` is a breakpoint
        condition's, raised inside a probe (the probe reports it, not the tracer)."""
        copies = self.copies
        if copies is None:
            return False
        info = copies.known_copy(frame.f_code)
        return info is not None and offset in info.probe_offsets

