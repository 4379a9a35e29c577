"""The objects that exist before the program's first line, kept out of the collector's
way.

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

# Whether the launcher's freeze holds (False once undone), and the modules imported by
# then: only their files' objects can be frozen. Their files are read when a walk asks
# (a walk is rare, and reading them costs every start some 40 µs).
_frozen = False
_modules_before: tuple = ()
_files: frozenset | None = None
# A container made just after the freeze, so not frozen by it, and what it holds:
# ``gc.get_referrers`` lists only containers that are not frozen, so the witness missing
# from its content's referrers says the program has called ``gc.freeze()`` since. Its
# count would say so too, but ``gc.get_freeze_count()`` walks every frozen object
# (1-4 ms a process, as much as the freeze saves).
_content = object()
_witness: list = []
# What the interpreter froze itself before any code of the program ran (3.12 starts
# with some 375 objects frozen; the other versions with none): no freeze of the
# program's. None where the debugger came later (an attach), when any freeze may be.
_frozen_by_interpreter: int | None = None


def remember_interpreter_freeze() -> None:
    """Note what is frozen now, before the program's first line (the launcher's start),
    as the interpreter's own."""
    global _frozen_by_interpreter
    _frozen_by_interpreter = gc.get_freeze_count()


def freeze_start_objects() -> None:
    """Freeze every object that exists now (the launcher calls it just before the
    program's first line, with the collector still off since its start)."""
    global _frozen, _modules_before, _files, _witness
    _modules_before, _files = tuple(sys.modules.values()), None
    gc.freeze()
    _witness = [_content]
    _frozen = True


def thaw_start_objects(filenames: list[str | None]) -> None:
    """Undo ``freeze_start_objects`` (once) before a walk over ``gc.get_referrers()`` for
    objects of ``filenames`` (modules' ``__file__``, code's ``co_filename``), when one of
    them is a module imported before the program; unless the program froze objects of
    its own since, which stay frozen (with the start's, which cannot be told apart)."""
    global _frozen
    if _frozen and not _files_before().isdisjoint(filenames):
        _frozen = False
        if referrers_of()[1]:
            gc.unfreeze()


def _files_before() -> frozenset:
    """The files of the modules imported before the launcher's freeze (read once)."""
    global _modules_before, _files
    if _files is None:
        files = (getattr(module, "__file__", None) for module in _modules_before)
        _files = frozenset(file for file in files if isinstance(file, str))
        _modules_before = ()
    return _files


def referrers_of(*targets) -> tuple[list, bool]:
    """``gc.get_referrers(*targets)``, and whether it saw every object: False when the
    program froze objects of its own (they may hide referrers; the caller then finds
    what it can another way). The witness rides along in the same walk."""
    if not _witness:
        # No freeze of the launcher's (yet, or at all: the debugger came later): a freeze
        # past the interpreter's own is another's.
        return ((gc.get_referrers(*targets) if targets else []),
                gc.get_freeze_count() == (_frozen_by_interpreter or 0))
    witness, namespace = _witness, globals()
    found = gc.get_referrers(*targets, _content)
    complete = any(referrer is witness for referrer in found)
    return [r for r in found if r is not witness and r is not namespace], complete
