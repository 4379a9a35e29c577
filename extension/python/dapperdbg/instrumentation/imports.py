"""Imports under way in other threads, as the import system's module locks show them.

A module's import looks the module up (``find_spec``: this is where the instrumenting
finder hands out a loader that compiles the copy) and runs its code later. A file that
gets probes between those two moments runs its plain code: the finder was asked before
the file had probes, and the live swap ran before the module's functions existed. The
import system holds a lock per module name for the whole import, from the lookup to the
end of the module's code; ``importlib._bootstrap._module_locks`` maps the names being
imported to those locks. It is private, but present and unchanged in 3.9-3.13; without it
no import is seen as under way.
"""

from __future__ import annotations

import _frozen_importlib  # importlib._bootstrap, without importing importlib
import os


def name_part(path: str) -> str:
    """The last part of the module name a file is imported as: its stem, or for a
    package's ``__init__`` file its directory's name."""
    directory, base = os.path.split(path)
    stem = os.path.splitext(base)[0]
    return os.path.basename(directory) if stem == "__init__" else stem


def import_under_way(path: str) -> bool:
    """Whether a module whose name may be that of ``path`` is being imported right now
    (a same-named module of another file counts too: the caller then does a little
    more than needed, never less)."""
    locks = getattr(_frozen_importlib, "_module_locks", None)
    if not isinstance(locks, dict):
        return False
    part = name_part(path)
    # list() copies the keys in one step: other threads add and drop names meanwhile.
    return any(name.rpartition(".")[2] == part for name in list(locks))
