"""The text each file was loaded from, for hot reload to tell which top-level statements
a later edit changed (the file on disk is already the new one by then).

Kept apart from hotreload/ and light: the launcher records the main program's text
before the program runs, and a process that is never reloaded never imports the reload
machinery (hotreload/engine.py's ``remember_source`` reads a file's text itself).
"""

from __future__ import annotations

from .paths import canonical_path

# Normalized path -> the source a module was loaded from (text, or the file's bytes, which
# hot reload decodes when it needs them: decoding imports tokenize), or what hot reload
# keeps of it after a reload (hotreload/engine.py).
recorded: dict[str, object] = {}


def normalize(path: str) -> str:
    """The key a file's text is kept under: its canonical path, as everywhere else."""
    return canonical_path(path)


def remember_text(path: str, source: str | bytes) -> None:
    """Record ``source`` (text, or the bytes of the file) as what the module of ``path``
    was loaded from."""
    recorded[normalize(path)] = source
