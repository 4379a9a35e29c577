"""gevent's greenlets as the debugger shows them (docs/gevent.md): each live greenlet is a
thread of the client's, with its own call stack, while the thread of the operating system
that runs them (and gevent's hub, their scheduler) stops as a whole.

A greenlet runs on the thread that started it, and only one at a time: the others of
that thread are suspended where they last switched away (into the hub, to wait), and
``greenlet.gr_frame`` is their innermost frame then. The thread's own first greenlet (its
"main" greenlet, the one the program started in) is the thread itself.

Nothing here imports greenlet or gevent: a program that never imported them has none to
show, and ``sys.modules`` says whether it did. Nothing here runs the program's code.
"""

from __future__ import annotations

import sys
import types

from ..common.greenlet_frames import all_greenlets

# How many greenlets are listed at most (a server with more has them cut there).
_MAX_GREENLETS = 1000


def greenlets_loaded() -> bool:
    return "greenlet" in sys.modules


def monkey_patched() -> bool:
    """Whether gevent's monkey-patching made the program's threads greenlets."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is None:
        return False
    try:
        return bool(monkey.is_module_patched("threading"))
    except Exception:  # An older or broken gevent: not what this reads.
        return False


def gevent_view(requested: bool) -> bool:
    """Whether greenlets are shown as threads: the launch asked for it (``gevent``), or
    gevent's monkey-patching is active; only once greenlets exist."""
    return greenlets_loaded() and (requested or monkey_patched())


def current_greenlet():
    """The greenlet running on the calling thread (None without greenlet)."""
    module = sys.modules.get("greenlet")
    if module is None:
        return None
    try:
        return module.getcurrent()
    except Exception:  # Late in the interpreter's shutdown.
        return None


def root_of(greenlet):
    """The main greenlet of the thread that runs ``greenlet`` (a greenlet's parents end
    there)."""
    seen = 0
    while greenlet.parent is not None and seen < 1000:
        greenlet = greenlet.parent
        seen += 1
    return greenlet


def is_hub(greenlet) -> bool:
    """gevent's hub (the loop that switches to each greenlet when what it waits for is
    ready): it is gevent's, not one of the program's greenlets."""
    return any(kind.__name__ == "Hub" and kind.__module__.startswith("gevent")
               for kind in type(greenlet).__mro__)


def os_ident_of(greenlet) -> int | None:
    """The ident of the thread of the operating system that runs ``greenlet``, from the
    hub above it (gevent's hub knows its thread); None when no hub is above it."""
    current = greenlet
    for _ in range(1000):
        if current is None:
            return None
        ident = getattr(current, "thread_ident", None) if is_hub(current) else None
        if isinstance(ident, int):
            return ident
        current = current.parent
    return None


def thread_of(greenlet, threading_module=None):
    """The ``threading.Thread`` a greenlet runs when gevent's patching made a thread a
    greenlet (its ident is then the greenlet's id), else None."""
    threading = threading_module or sys.modules.get("threading")
    if threading is None:
        return None
    thread = threading._active.get(id(greenlet))
    return thread if thread is not None and thread.ident == id(greenlet) else None


def live_greenlets(also: tuple = ()) -> list:
    """The program's greenlets that have started and not ended (not gevent's hubs, not
    the threads' main greenlets), and those of ``also`` (a running one, a hub a thread
    stopped in)."""
    found = []
    known = set()
    for item in also:
        if item is not None and id(item) not in known:
            known.add(id(item))
            found.append(item)
    for item in all_greenlets():
        if (id(item) not in known and item.parent is not None
                and not item.dead and item.gr_frame is not None and not is_hub(item)):
            known.add(id(item))
            found.append(item)
            if len(found) >= _MAX_GREENLETS:
                break
    return found


def greenlet_name(greenlet) -> str:
    """The greenlet's name (gevent's ``Greenlet-3``, or one the program gave it) and the
    function it runs, as a thread is named: ``Greenlet 'Greenlet-3' (fetch)``."""
    if is_hub(greenlet):
        return "gevent's hub"
    name = getattr(greenlet, "name", None)
    if not isinstance(name, str) or not name:
        name = type(greenlet).__name__
    function = _function_name(greenlet)
    return f"Greenlet '{name}'" + (f" ({function})" if function else "")


def _function_name(greenlet) -> str | None:
    run = getattr(greenlet, "_run", None)
    if run is None or getattr(run, "__self__", None) is greenlet:
        run = getattr(greenlet, "run", None)
        if getattr(run, "__self__", None) is greenlet:
            run = None  # Greenlet's own run method: the greenlet's bottom frame says.
    if run is not None:
        run = getattr(run, "func", run)  # functools.partial
        name = getattr(run, "__qualname__", None) or getattr(run, "__name__", None)
        if isinstance(name, str):
            return name
    frame = bottom_frame(greenlet)
    return frame.f_code.co_name if frame is not None else None


def bottom_frame(greenlet) -> types.FrameType | None:
    """The outermost frame of a suspended greenlet (the function it was started with)."""
    frame = greenlet.gr_frame
    while frame is not None and frame.f_back is not None:
        frame = frame.f_back
    return frame
