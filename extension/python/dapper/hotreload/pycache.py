"""Keeping ``__pycache__`` honest after a reload: a later import (in a child process, say)
must compile the new source, never load bytecode of the old one."""

from __future__ import annotations

import importlib.util
import os
import py_compile

_FLAG_HASH = 0b01
_FLAG_CHECK = 0b10


def refresh_bytecode(path: str) -> str | None:
    """Rewrite the cached bytecode of ``path`` when the import system could take it for
    current (same mtime second and size as the new source, or an unchecked hash); a
    timestamp or checked-hash pyc that differs is recompiled by the next import anyway.
    Returns a warning when the cache could not be fixed."""
    for optimization in ("", 1, 2):
        try:
            cached = importlib.util.cache_from_source(path, optimization=optimization)
        except (NotImplementedError, ValueError):
            return None
        try:
            with open(cached, "rb") as file:
                header = file.read(16)
        except OSError:
            continue
        if len(header) < 16:
            continue
        flags = int.from_bytes(header[4:8], "little")
        if flags & _FLAG_HASH:
            if flags & _FLAG_CHECK:
                continue
            mode = py_compile.PycInvalidationMode.UNCHECKED_HASH
        else:
            stat = os.stat(path)
            mtime = int.from_bytes(header[8:12], "little")
            size = int.from_bytes(header[12:16], "little")
            if (mtime, size) != (int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF):
                continue
            mode = py_compile.PycInvalidationMode.TIMESTAMP
        try:
            py_compile.compile(
                path,
                cfile=cached,
                doraise=True,
                optimize=optimization or 0,
                invalidation_mode=mode,
            )
        except (OSError, py_compile.PyCompileError) as error:
            try:
                os.remove(cached)
            except OSError:
                return f"stale bytecode {cached} could not be refreshed or removed: {error}"
    return None
