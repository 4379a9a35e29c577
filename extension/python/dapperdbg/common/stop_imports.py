"""Imports made at the first stop rather than at start.

Every debugged process imports the package before its program runs, and a test suite
may start dozens of Python children: what only a stopped session uses (rendering and
evaluating values, hot reload, data breakpoints, and the standard-library modules they
need: ``inspect``, ``ast``, ``ctypes``...) is imported when it is first needed instead.

"First needed" must not be a request on the IPC thread while threads are stopped: an
import there could wait forever for the import lock of a module that a stopped thread
was importing when it stopped (a breakpoint in an import hook). So the thread that stops
first runs every loader registered here, before the stop is announced
(session/stops.py); a request that comes while nothing is stopped imports what it needs
itself. A module that defers imports registers a loader that makes them.

Kept free of imports: every debuggee imports it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Callable

_loaders: list[Callable[[], object]] = []
_done = False


def at_first_stop(loader: Callable[[], object]) -> Callable[[], object]:
    """Register ``loader`` (a function that imports what its module deferred) to run at
    the first stop; usable as a decorator. Registered after the first stop, it runs at
    once."""
    _loaders.append(loader)
    if _done:
        loader()
    return loader


def import_at_first_stop(*names: str) -> None:
    """Import the modules ``names`` at the first stop (for a module that imports them
    inside the functions that need them)."""
    for name in names:
        at_first_stop(lambda name=name: __import__(name))


def import_for_stops() -> None:
    """Run every loader, once (called by the stopping thread; later calls return at
    once). A loader that fails is left for its module's first use to fail in."""
    global _done
    if _done:
        return
    _done = True
    for loader in list(_loaders):
        try:
            loader()
        except Exception:  # A broken install: its module's first use reports it.
            continue
