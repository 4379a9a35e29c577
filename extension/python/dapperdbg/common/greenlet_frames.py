"""The greenlets of a program that uses them (gevent), found without importing greenlet.

A greenlet that switched away (to wait, in gevent's hub) keeps its frames off every
thread's stack: ``sys._current_frames()`` does not reach them, nor do the interpreter's
own walks of the running frames, and resuming one does not call it anew. What must see
them (the tracers, to give their code line events; the threads view, to list them) looks
them up here. Greenlets are registered nowhere: the garbage collector's objects hold
them.
"""

from __future__ import annotations

import gc
import sys
import types


def all_greenlets() -> list:
    """Every greenlet object of the process (empty when greenlet is not imported)."""
    module = sys.modules.get("greenlet")
    if module is None:
        return []
    kind = module.greenlet
    return [item for item in gc.get_objects() if isinstance(item, kind)]


def waiting_greenlet_frames() -> list[types.FrameType]:
    """The innermost frame of each greenlet that has switched away and not ended."""
    return [greenlet.gr_frame for greenlet in all_greenlets()
            if not greenlet.dead and greenlet.gr_frame is not None]
