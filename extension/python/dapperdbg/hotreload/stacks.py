"""The frames of every thread's stack, those still running replaced code, and which code
replaced which."""

from __future__ import annotations

import sys
import types

from ..common import program_threading
from .errors import OldCodeFrame


def all_frames(frames: dict | None = None) -> list[tuple[int, types.FrameType]]:
    """(thread id, frame) for every frame of every thread, outermost calls included.
    ``frames`` maps thread ids to top frames and is added to ``sys._current_frames()``
    (a tracer passes the frame it stopped in)."""
    tops = dict(sys._current_frames())
    if frames:
        tops.update(frames)
    seen = set()
    out = []
    for thread_id, frame in tops.items():
        while frame is not None and id(frame) not in seen:
            seen.add(id(frame))
            out.append((thread_id, frame))
            frame = frame.f_back
    return out


def running_old_code(
    stack: list[tuple[int, types.FrameType]], replaced: dict
) -> list[OldCodeFrame]:
    names = {thread.ident: thread.name for thread in program_threading.threads()}
    out = []
    for thread_id, frame in stack:
        code = frame.f_code
        if id(code) in replaced and replaced[id(code)][0] is code:
            name = getattr(code, "co_qualname", code.co_name)
            out.append(
                OldCodeFrame(thread_id, names.get(thread_id, str(thread_id)), name, frame.f_lineno)
            )
    return out


# Every code object a reload replaced: id(old) -> (old, new). The old code is kept alive
# so that its id cannot be reused by another code object.
_replacements: dict[int, tuple[types.CodeType, types.CodeType]] = {}


def record_replacements(replaced: dict) -> None:
    _replacements.update(replaced)


def replacement_of(code: types.CodeType) -> types.CodeType | None:
    """The code the reloads put in place of ``code`` (the newest), or None."""
    seen = None
    while id(code) in _replacements and _replacements[id(code)][0] is code:
        seen = code = _replacements[id(code)][1]
    return seen
