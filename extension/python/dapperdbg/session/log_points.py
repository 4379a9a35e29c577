"""Log points' lines: rendered by the tracer's handler, or in the program's own frame by a
copy they were compiled into (``__dapper_log__``, instrumentation/probes.py), then queued
on the connection, which sends them in order before anything sent after them
(ipc/connection.py). ``hit`` runs on every hit of a compiled-in log point: it is short."""

from __future__ import annotations

from ..common.native import get_ident
from ..ipc.frames import to_json

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

    from ..breakpoints.store import Breakpoint
    from .parts import DebuggerParts


class LogPoints:
    """Writes the log points' lines of the debugger it serves."""

    def __init__(self, debugger: DebuggerParts) -> None:
        self._debugger = debugger

    def line(self, breakpoint: Breakpoint, frame: types.FrameType) -> None:
        """Render and write the line of ``breakpoint``, reached in ``frame`` (its hit
        counted and its hit condition met already)."""
        self._queue(breakpoint, breakpoint.log_template.line(frame.f_globals, frame.f_locals))

    def hit(self, key: str, text: str) -> None:
        """A log point compiled into a copy rendered its line, ``text``, in the program's
        frame: write it, as a probe's hit would."""
        debugger = self._debugger
        target = debugger.probes.log_targets.get(key)
        if target is None:
            return  # A copy made for a message since changed: the tracer has its lines.
        ident = get_ident()
        tracer = debugger.tracer
        if (ident in debugger.busy or debugger.detached or tracer.is_ignored_thread(ident)
                or not tracer.installed):
            return
        breakpoint = target.breakpoints[0]
        rest = breakpoint.log_body
        if (rest is None or rest[0] != breakpoint.line or not breakpoint.told_verified
                or breakpoint.hit_condition is not None):
            self.write(breakpoint, text)
            return
        # The common case of ``write``, inline: this runs on every hit.
        breakpoint.hits += 1
        debugger.connection.queue_output(text, rest[1])

    def rendering_failed(self, breakpoint: Breakpoint, frame: types.FrameType,
                         error: BaseException | None) -> None:
        """A compiled-in log point's line raised ``error`` as the copy rendered it: the
        line with the error in place of what raised, rendered here."""
        debugger = self._debugger
        ident = get_ident()
        debugger.busy.add(ident)
        try:
            template = breakpoint.log_template
            text = (template.line_after(error, frame.f_globals, frame.f_locals)
                    if error is not None else template.line(frame.f_globals, frame.f_locals))
        finally:
            debugger.busy.discard(ident)
        self.write(breakpoint, text)

    def write(self, breakpoint: Breakpoint, text: str) -> None:
        """What the debugger does for a log point without a condition whose line is
        rendered already: its file is loaded, the hit counted, the hit condition asked."""
        debugger = self._debugger
        if not breakpoint.told_verified:
            debugger.store.loaded.note(breakpoint.canonical)
            debugger.file_loaded(breakpoint.canonical)
        breakpoint.hits += 1
        condition = breakpoint.hit_condition
        if condition is not None and not condition.should_stop(breakpoint.hits):
            return
        self._queue(breakpoint, text)

    def _queue(self, breakpoint: Breakpoint, text: str) -> None:
        rest = breakpoint.log_body
        if rest is None or rest[0] != breakpoint.line:
            # The output event's source and line, as JSON, made once per breakpoint line.
            rest = breakpoint.log_body = (breakpoint.line, (
                f',"source":{to_json(breakpoint.source)},'
                f'"line":{breakpoint.line - self._debugger.line_offset}'))
        self._debugger.connection.queue_output(text, rest[1])
