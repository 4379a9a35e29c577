"""The objects that exist before the program's first line, kept out of the collector's way
(issue 18 item 8).

The launcher's start makes some five thousand objects that live as long as the process
(the package's modules, functions and classes; the standard library modules it imports).
Left to the garbage collector, every full collection walks them again: the first one
after the start (~0.6 ms), the program's own, and the ones the interpreter makes as it
finalizes at exit (~3 ms a process on 3.12, the largest part of what a child process of
a test suite paid for the debugger at its exit). ``gc.freeze()`` just before the program
runs moves them, and the interpreter's own start-up objects, to the permanent generation
the collector leaves alone; the program's objects are made after it and are collected
as they are without the debugger.

What a frozen object does not do: it is not listed by ``gc.get_objects()`` nor
``gc.get_referrers()``, and it is never collected, even once garbage. The debugger's own
walks over ``gc.get_referrers()`` (live instrumentation, function breakpoints, hot
reload) may look for objects made before the program (the functions of ``threading``,
say), so they call ``thaw_start_objects()`` first: when what they look for belongs to a
module imported before the program, the freeze is undone, once and for good, and the
process is as it would have been without it. A freeze the program made itself is not
undone.
"""

from __future__ import annotations

import gc
import sys

# How many objects the launcher's freeze put in the permanent generation (0 once undone),
# and the files of the modules imported by then: only their objects can be frozen.
_frozen = 0
_files_before: frozenset = frozenset()


def freeze_start_objects() -> None:
    """Freeze every object that exists now (the launcher calls it just before the
    program's first line, with the collector still off since its start)."""
    global _frozen, _files_before
    files = (getattr(module, "__file__", None) for module in list(sys.modules.values()))
    _files_before = frozenset(file for file in files if isinstance(file, str))
    gc.freeze()
    _frozen = gc.get_freeze_count()


def thaw_start_objects(filenames: list[str | None]) -> None:
    """Undo ``freeze_start_objects`` (once) before a walk over ``gc.get_referrers()`` for
    objects of ``filenames`` (modules' ``__file__``, code's ``co_filename``), when one of
    them is a module imported before the program. Objects frozen since die and leave the
    count, so a count above the launcher's says the program froze objects of its own,
    and those stay frozen."""
    global _frozen
    if not _frozen or _files_before.isdisjoint(filenames):
        return
    frozen, _frozen = _frozen, 0
    if gc.get_freeze_count() <= frozen:
        gc.unfreeze()
