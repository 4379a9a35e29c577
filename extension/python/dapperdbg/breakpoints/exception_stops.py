"""What the debugger keeps about a stop caused by an exception breakpoint, the
``exceptionInfo`` body built from it, and where an uncaught exception is shown."""

from __future__ import annotations

from ..common.paths import canonical_path, is_debugger_path, is_runpy_path
from ..common.records import Record
from ..instrumentation.restarts import without_parked_entries
from .exception_filters import (
    BREAK_MODES,
    chained_exceptions,
    describe,
    exception_message,
    full_type_name,
    traceback_text,
)

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types


def is_hidden_file(filename: str) -> bool:
    """The debugger's own files and runpy's, which ran the program: never shown."""
    canonical = canonical_path(filename) if not filename.startswith("<") else filename
    return is_debugger_path(canonical) or is_runpy_path(canonical)


def _details(exception: BaseException, traceback) -> dict:
    full_name = full_type_name(type(exception))
    return {
        "typeName": type(exception).__name__,
        "fullTypeName": full_name,
        "message": exception_message(exception),
        "stackTrace": traceback_text(exception, without_parked_entries(traceback),
                                     is_hidden_file),
    }


class ExceptionStop(Record):
    exception: BaseException
    traceback: types.TracebackType | None
    filter_id: str

    def stopped_fields(self) -> dict:
        """``description`` and ``text`` of the ``stopped`` event."""
        return {"description": describe(self.exception),
                "text": full_type_name(type(self.exception))}

    def lines(self) -> dict[int, int]:
        """id(frame) -> the line the exception passed through it at, for each frame of its
        traceback (a frame that caught it has moved on since: post-mortem)."""
        lines = {}
        entry = self.traceback
        while entry is not None:
            lines[id(entry.tb_frame)] = entry.tb_lineno
            entry = entry.tb_next
        return lines

    def info(self) -> dict:
        exception = self.exception
        details = _details(exception, self.traceback)
        # The exceptions it was raised from, nearest first, for clients that show them.
        inner = [_details(linked, linked.__traceback__)
                 for _, linked in chained_exceptions(exception)]
        if inner:
            details["innerException"] = inner
        return {
            "exceptionId": full_type_name(type(exception)),
            "description": describe(exception),
            "breakMode": BREAK_MODES[self.filter_id],
            "details": details,
        }

    def chained_frames(self) -> list[tuple[str, list[tuple[types.FrameType, int]]]]:
        """For each exception behind this one, nearest first: a label ("Caused by
        ValueError: bad") and its traceback's frames, innermost first, with the line
        each was at, without the debugger's own."""
        chained = []
        for relation, linked in chained_exceptions(self.exception):
            frames = []
            entry = linked.__traceback__
            while entry is not None:
                if not is_hidden_file(entry.tb_frame.f_code.co_filename):
                    frames.append((entry.tb_frame, entry.tb_lineno))
                entry = entry.tb_next
            frames.reverse()
            how = "Caused by" if relation == "cause" else "While handling"
            chained.append((f"{how} {describe(linked)}", frames))
        return chained


def innermost_frame(traceback: types.TracebackType | None, is_user_frame, is_shown):
    """The frame an uncaught exception is shown in: the innermost user frame of its
    traceback, else the innermost frame that is shown at all (not the debugger's);
    None when there is none."""
    user = shown = None
    while traceback is not None:
        frame = traceback.tb_frame
        if is_user_frame(frame):
            user = frame
        if is_shown(frame):
            shown = frame
        traceback = traceback.tb_next
    return user or shown
