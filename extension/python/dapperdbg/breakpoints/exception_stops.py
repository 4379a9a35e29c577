"""What the debugger keeps about a stop caused by an exception breakpoint, the
``exceptionInfo`` body built from it, and where an uncaught exception is shown."""

from __future__ import annotations

import types

from ..common.records import Record
from .exception_filters import (
    BREAK_MODES,
    describe,
    exception_message,
    full_type_name,
    traceback_text,
)


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
        full_name = full_type_name(type(exception))
        return {
            "exceptionId": full_name,
            "description": describe(exception),
            "breakMode": BREAK_MODES[self.filter_id],
            "details": {
                "typeName": type(exception).__name__,
                "fullTypeName": full_name,
                "message": exception_message(exception),
                "stackTrace": traceback_text(exception, self.traceback),
            },
        }


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
