"""The exceptions behind the one a thread stopped at (``raise X from Y``, or raised while
handling another) as frames of its call stack: after the stopped thread's own frames,
a label frame per chained exception ("Caused by ValueError: bad"), then the frames its
traceback passed through, innermost first, each selectable with its locals as the
exception left them, as debugpy shows them.
"""

from __future__ import annotations

from .inspector import FrameEntry, frame_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..breakpoints.exception_stops import ExceptionStop
    from .inspector import Inspector


def chained_stack_frames(inspector: Inspector, thread_id: int, stop: ExceptionStop,
                         fallback) -> list[dict]:
    """The stack frames of the exceptions chained to ``stop``'s; ``fallback`` is the
    frame a label stands for when its exception has no traceback (never raised)."""
    settings = inspector.settings
    result = []
    for label, frames in stop.chained_frames():
        label_frame = frames[0][0] if frames else fallback
        result.append(inspector.label_body(thread_id, label, label_frame))
        for frame, line in frames:
            result.append({
                "id": inspector.frames.add(FrameEntry(thread_id, frame)),
                "name": frame_name(frame.f_code),
                "source": settings.sources.source_for_code(frame.f_code),
                "line": line - settings.line_offset,
                "column": 1 - settings.column_offset,
            })
    return result
