"""Which source files are the user's own code, whose functions are compiled restartable
(and given restartable instrumented copies), and the flag that leaves to the import system
what the debugger's own compiling imports. Kept apart from the import finder: a child
that runs without its debugger (session/dormant.py) loads the user's modules restartable
without loading the finder."""

from __future__ import annotations

import encodings
import os

from ..common.library_code import has_rules, is_library_canonical
from ..common.native import local
from ..common.paths import canonical_path, is_debugger_path

# The standard library's folder as the import system names its modules there
# (restartable_source), known without sysconfig: the interpreter imports the encodings
# package from its file in it as it starts (os may be frozen, with a __file__ made up),
# through the same entry of sys.path as the library's other modules; and resolved.
_STDLIB_AS_FOUND = os.path.dirname(os.path.dirname(encodings.__file__)) + os.sep
_STDLIB = canonical_path(_STDLIB_AS_FOUND) + os.sep
_PACKAGES = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")
# Set on a thread while the finder decides or compiles: what that imports (sysconfig for
# library_code's first answer, ast and the compiler for the first compile) is passed on
# untouched, or it would be compiled by what it is needed for.
_busy = local()


def compiling_now() -> bool:
    """Whether the calling thread is inside ``compiling`` (or deciding a file)."""
    return getattr(_busy, "now", False)


def compiling(function, *args, **keywords):
    """``function(*args, **keywords)`` with the imports it makes on this thread left to
    the import system (the compiler's own: copy, ast, dis, its modules), whichever of
    them has breakpoints: compiled with probes, such a module would need the compiler
    that is importing it."""
    busy = getattr(_busy, "now", False)
    _busy.now = True
    try:
        return function(*args, **keywords)
    finally:
        _busy.now = busy


def restartable_source(path: str) -> str | None:
    """The canonical path of a module's source file (``path``, as its loader names it)
    whose functions are made restartable; None for any other file. A file the import
    system found in the standard library's folder (spelled as ``sys.path`` spells it)
    is the library's, told without resolving its path: the program's every import of
    the standard library would otherwise pay for an ``lstat`` of the file and, the first
    time, of each of its folders (about 17 µs a module, 3.12). Not one of site-packages
    there, which may be a link to the user's own code."""
    if path.startswith(_STDLIB_AS_FOUND) and not any(part in path for part in _PACKAGES):
        return None
    canonical = canonical_path(path)
    return canonical if restartable_file(canonical) else None


def restartable_file(canonical: str) -> bool:
    """Whether a source file's functions are made restartable (when that is on): the
    user's own code, not the debugger's, the standard library's or site-packages'. Told
    by the folder (library_code's roots, which cost an import of sysconfig, are all in
    those), unless the launch's ``rules`` may say otherwise."""
    if canonical.startswith(_STDLIB) or any(part in canonical for part in _PACKAGES):
        return False
    if is_debugger_path(canonical) or getattr(_busy, "now", False):
        return False
    if not has_rules():
        return not canonical.startswith("<frozen ")
    _busy.now = True
    try:
        return not is_library_canonical(canonical)
    finally:
        _busy.now = False
