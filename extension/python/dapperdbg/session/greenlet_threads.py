"""gevent's greenlets as threads of the session (docs/gevent.md): which DAP thread the
calling code runs in, and what a request naming a greenlet, or a thread that runs other
greenlets now, acts on. The stopping itself is stops.py's: a stop holds the thread of the
operating system, and with it every greenlet it runs.

Only in use while greenlets are shown as threads (``inspection.greenlets.gevent_view``);
otherwise a thread is a ``threading`` thread, as everywhere.
"""

from __future__ import annotations

import sys

from ..common import program_threading
from ..common.errors import RequestError
from ..common.native import get_ident, main_thread_ident, os_ident
from ..inspection.greenlets import (
    current_greenlet,
    gevent_view,
    greenlet_name,
    os_ident_of,
    root_of,
    thread_of,
)

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

    from .parts import DebuggerParts
    from .threads import StoppedThread


def greenlet_here(debugger: DebuggerParts):
    """The greenlet the calling thread runs, when greenlets are threads; else None."""
    if "greenlet" not in sys.modules or not gevent_view(debugger.inspection.gevent):
        return None
    return current_greenlet()


def thread_id_here(debugger: DebuggerParts, greenlet) -> int:
    """The DAP id of the calling thread: of ``greenlet`` (from ``greenlet_here``) when
    it is not the thread's main greenlet."""
    threads = debugger.threads
    if greenlet is None:
        return threads.id_for(program_threading.current_thread())
    if greenlet.parent is not None:
        return threads.id_for_greenlet(greenlet, thread_of(greenlet))
    # The thread itself, without threading.current_thread(), which, once gevent patched
    # threading, makes a dummy thread for an ident it does not know.
    ident = get_ident()
    threading = program_threading.loaded()
    thread = threading._active.get(ident) if threading is not None else None
    if thread is None and ident == main_thread_ident():
        thread = program_threading.main_thread()
    return threads.id_for(thread if thread is not None
                          else program_threading.current_thread())


def suspended_top(debugger: DebuggerParts, thread_id: int
                  ) -> tuple[types.FrameType, StoppedThread] | None:
    """For a thread id that names a greenlet that waits (or a thread whose main
    greenlet waits while another of its greenlets stopped): its innermost frame, and the
    stopped thread that holds it (whose thread runs the work on its frames); None when
    the id names neither."""
    stops = debugger.stops
    stopped_threads = stops.stopped_threads()
    if not stopped_threads or any(entry.thread_id == thread_id for entry in stopped_threads):
        return None
    greenlet = debugger.threads.greenlet(thread_id)
    if greenlet is not None:
        frame = greenlet.gr_frame
        if frame is None:
            return None
        ident = os_ident_of(greenlet)
        owner = next((entry for entry in stopped_threads if entry.ident == ident),
                     stopped_threads[0])
        return frame, owner
    thread = debugger.threads.thread(thread_id)
    if thread is None:
        return None
    ident = os_ident(thread)
    for entry in stopped_threads:
        if (entry.ident == ident and entry.greenlet is not None
                and entry.greenlet.parent is not None):
            frame = root_of(entry.greenlet).gr_frame
            return (frame, entry) if frame is not None else None
    return None


def refuse_suspended(debugger: DebuggerParts, thread_id: int) -> None:
    """Raise RequestError, saying why, when ``thread_id`` names a greenlet that waits
    (or a thread whose other greenlet stopped): only the greenlet that runs can step."""
    found = suspended_top(debugger, thread_id)
    if found is None:
        return
    greenlet = debugger.threads.greenlet(thread_id)
    running = found[1].greenlet
    what = greenlet_name(greenlet) if greenlet is not None else "This thread's main greenlet"
    raise RequestError(
        f"{what} is not running: it waits for gevent's hub, which runs "
        f"{greenlet_name(running)} now; only that greenlet can step (set a breakpoint "
        f"in this one, or continue)")


def pause_ident(debugger: DebuggerParts, thread_id: int) -> int | None:
    """The ident of the thread of the operating system to pause for a greenlet's id."""
    greenlet = debugger.threads.greenlet(thread_id)
    if greenlet is None:
        return None
    return os_ident_of(greenlet) or main_thread_ident()
