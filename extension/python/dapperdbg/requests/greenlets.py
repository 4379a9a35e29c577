"""gevent's greenlets as threads (docs/gevent.md): the threads request's list, in which
each live greenlet is a thread after the threads of the operating system, and the call
stack of a greenlet that waits (stackTrace), read from where it switched away."""

from __future__ import annotations

import re
import sys

from ..common.native import os_ident
from ..inspection.async_stacks import FrameItem, render
from ..inspection.greenlets import gevent_view, greenlet_name, live_greenlets, thread_of
from ..inspection.inspector import visible_frames

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..session.debugger import Debugger


def shown(debugger: Debugger) -> bool:
    return gevent_view(debugger.inspection.gevent)


def threads(debugger: Debugger) -> list[dict]:
    """The threads of the operating system (not those that gevent's patching made
    greenlets), by id, then every live greenlet, by name (numbers as numbers), so that
    the list keeps its order whichever greenlet stopped first."""
    running = sys._current_frames()
    listed = [{"id": thread_id, "name": thread.name}
              for thread_id, thread in debugger.user_threads()
              if os_ident(thread, running) is not None]
    stopped_threads = debugger.stops.stopped_threads()
    found = debugger.inspector.greenlets if stopped_threads else None
    if found is None:
        stopped = [entry.greenlet for entry in stopped_threads
                   if entry.greenlet is not None and entry.greenlet.parent is not None]
        found = live_greenlets(tuple(stopped))
        if stopped_threads:
            debugger.inspector.greenlets = found  # Until the threads resume.
    greenlets = []
    for greenlet in found:
        thread = thread_of(greenlet)
        name = thread.name if thread is not None else greenlet_name(greenlet)
        greenlets.append((_natural(name), greenlet, thread, name))
    greenlets.sort(key=lambda entry: entry[0])
    for _, greenlet, thread, name in greenlets:
        listed.append({"id": debugger.threads.id_for_greenlet(greenlet, thread), "name": name})
    return listed


def _natural(name: str) -> list:
    return [(0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", name)]


def stack_trace(debugger: Debugger, thread_id: int, start: int, levels: int) -> dict | None:
    """The stackTrace body of a greenlet that waits (or of a thread whose main greenlet
    waits while another of its greenlets stopped); None for any other thread."""
    found = debugger.stops.suspended_greenlet(thread_id)
    if found is None:
        return None
    top, owner = found
    inspector = debugger.inspector
    # The frames' work (evaluate, variables) runs on the stopped thread that holds them:
    # the greenlet is suspended on it.
    items = [FrameItem(frame, None, index == 0, on_stack=False)
             for index, frame in enumerate(visible_frames(top, inspector.paths))]
    return render(inspector, owner.thread_id, items, start, levels)
