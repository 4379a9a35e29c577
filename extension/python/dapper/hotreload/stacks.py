"""The frames of every thread's stack, and those still running replaced code."""

from __future__ import annotations

import sys
import threading
import types

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
    names = {thread.ident: thread.name for thread in threading.enumerate()}
    out = []
    for thread_id, frame in stack:
        code = frame.f_code
        if id(code) in replaced and replaced[id(code)][0] is code:
            name = getattr(code, "co_qualname", code.co_name)
            out.append(
                OldCodeFrame(thread_id, names.get(thread_id, str(thread_id)), name, frame.f_lineno)
            )
    return out
