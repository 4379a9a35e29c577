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

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

# Whether an allocation may run a collection there and then (before 3.12).
_COLLECTS_IN_ALLOCATIONS = sys.version_info < (3, 12)


def all_greenlets() -> list:
    """Every greenlet object of the process (empty when greenlet is not imported).

    ``gc.get_objects()`` lists every object of the process, among them any tuple a thread
    is still filling: CPython grows such a tuple in place only while nothing else refers
    to it, and fails that thread's statement with a SystemError if the list still holds
    it when the thread runs again (a gevent program's ``monkey.patch_all`` did, as a
    debugger attached). Another thread may run whenever Python code runs or a call
    returns to it, so the list lives only inside the last call below, which runs no
    Python code: the iterators built before it call ``gc.get_objects`` when that call
    first asks them, hand the list out twice (once to keep, once to check each object's
    type, which reads nothing of the object itself), buffer nothing of it, and let it go
    as they end. Before 3.12 an allocation in that call may start a collection, whose
    finalizers are Python code: the collector waits meanwhile (from 3.12 it runs only
    between instructions)."""
    module = sys.modules.get("greenlet")
    if module is None:
        return []
    # Imported here rather than at the top, so that a process without greenlets does not
    # pay for them (making _functools's types costs a child whose program never imports
    # functools about 0.1 ms). Both are built in, and imported before anything below is
    # made.
    from _functools import partial
    from itertools import chain, compress, repeat, starmap

    listing = chain.from_iterable(map(repeat, starmap(gc.get_objects, ((),)), repeat(2)))
    checks = map(partial(map, module.greenlet.__subclasscheck__),
                 map(partial(map, type), listing))
    greenlets = chain.from_iterable(map(compress, listing, checks))
    collecting = _COLLECTS_IN_ALLOCATIONS and gc.isenabled()
    if collecting:
        gc.disable()
    try:
        return list(greenlets)
    finally:
        if collecting:
            gc.enable()


def waiting_greenlet_frames() -> list[types.FrameType]:
    """The innermost frame of each greenlet that has switched away and not ended."""
    return [greenlet.gr_frame for greenlet in all_greenlets()
            if not greenlet.dead and greenlet.gr_frame is not None]
