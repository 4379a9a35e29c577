"""The part of the tracer that serves data breakpoints: the values a line of a watching
code object may have changed are compared after it, and when its frame returns, where a
watched local ends with its frame. ``base.Tracer`` holds the state it reads (the
watching code objects' ``_data_codes``, ``_store``, ``_host``) and calls these from its
backends' line and return events."""

from __future__ import annotations

from ..common.errors import report_internal_error
from ..common.native import get_ident
from ..instrumentation.registry import identity as _identity
from ..instrumentation.restarts import is_handler_line
from .steps import SUSPENDING_FLAGS

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable

    from ..breakpoints.store import BreakpointStore
    from ..instrumentation.registry import InstrumentationRegistry
    from .host import TracerHost


# Imports breakpoints/data.py at its first call, made only once a data breakpoint is set
# (its store imports the module first), and then puts the function itself in its place:
# the tracer's calls import nothing.
def _import_changed(old: object, new: object) -> bool:
    global _changed
    from ..breakpoints.data import changed

    _changed = changed
    return changed(old, new)


_changed = _import_changed


class DataStops:
    _data_codes: dict[int, tuple[types.CodeType, tuple, frozenset]]
    _handled_probes: dict[int, tuple[types.FrameType, int]]
    _store: BreakpointStore
    _host: TracerHost
    copies: InstrumentationRegistry | None
    breakpoints_changed: Callable[[], None]

    def _data_line(self, frame: types.FrameType, breakpoints: tuple) -> bool:
        """A line event of a code object that may change the values ``breakpoints``
        watch (backends call it before ``_line_hit``): compare them. True if the
        thread stopped, for the line before, before this line runs; this line's own
        breakpoints are then not evaluated (the thread is already stopped here), a step
        started from the stop begins with this line, and the line's probe, if it has
        one, stands down."""
        try:
            code = frame.f_code
            if frame.f_lineno == code.co_firstlineno and is_handler_line(code, frame.f_lineno):
                return False  # The restart handler's return (3.9): compared at the return.
            if not self._data_compared(frame, breakpoints):
                return False
            if self.copies is not None:
                self._handled_probes[get_ident()] = (frame, frame.f_lineno)
            return True
        except Exception:
            report_internal_error("a data breakpoint's line event")
            return False

    def _data_compared(self, frame: types.FrameType, breakpoints: tuple) -> bool:
        """Compare the values watched by ``breakpoints`` now (after a line of ``frame``
        ran); stop if they changed and a breakpoint says so."""
        hits = None
        for breakpoint in breakpoints:
            local_frame = breakpoint.frame
            if local_frame is not None and local_frame is not frame:
                continue
            new = breakpoint.target.read()
            old = breakpoint.old
            if new is not old and _changed(old, new) and not breakpoint.ended:
                breakpoint.old = new
                if hits is None:
                    hits = []
                hits.append((breakpoint, old, new))
        return hits is not None and self._host.data_changed(frame, hits)

    def _data_frame_returning(self, frame: types.FrameType) -> None:
        """A frame of a code object that may change a watched value returns (or, with
        sys.settrace, unwinds): its last line's change is compared, and a watched local
        of the frame ends with it."""
        try:
            watching = self._data_codes.get(_identity(frame.f_code))
            if watching is None:
                return
            self._data_compared(frame, watching[1])
            if frame.f_code.co_flags & SUSPENDING_FLAGS:
                return  # A yield looks like a return to sys.settrace: the frame lives on.
            ended = self._store.data.frame_ended(frame)
            if ended:
                self.breakpoints_changed()
                self._host.data_frames_ended(ended)
        except Exception:
            report_internal_error("a data breakpoint's return event")
