"""Keeping ``__pycache__`` honest after a reload: a later import (in a child process, say)
must compile the new source, never load bytecode of the old one."""

from __future__ import annotations

import contextlib
import importlib.util
import marshal
import os
import sys
import types

_FLAG_HASH = 0b01
_FLAG_CHECK = 0b10


def refresh_bytecode(path: str, code: types.CodeType) -> str | None:
    """Fix the cached bytecode of ``path`` that the import system could take for current:
    a timestamp pyc with the new source's mtime second and size (an edit within the same
    second that kept the size), or an unchecked-hash pyc. The pyc of this interpreter's
    optimization level is rewritten from ``code`` (just compiled from the new source, as
    import would); those of other levels are removed. A timestamp or checked-hash pyc that
    does not match is recompiled by the next import anyway. Returns a warning on failure."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    current = sys.flags.optimize or ""
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
        if not _may_be_taken(header, stat):
            continue
        try:
            if optimization == current:
                _write(cached, code, stat)
            else:
                os.remove(cached)
        except OSError as error:
            try:
                os.remove(cached)
            except OSError:
                return f"stale bytecode {cached} could not be rewritten or removed: {error}"
    return None


def _may_be_taken(header: bytes, stat: os.stat_result) -> bool:
    if len(header) < 16:
        return False
    flags = int.from_bytes(header[4:8], "little")
    if flags & _FLAG_HASH:
        return not flags & _FLAG_CHECK
    mtime = int.from_bytes(header[8:12], "little")
    size = int.from_bytes(header[12:16], "little")
    return (mtime, size) == (int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF)


def _write(cached: str, code: types.CodeType, stat: os.stat_result) -> None:
    """A timestamp pyc (PEP 552 layout), written atomically."""
    data = bytearray(importlib.util.MAGIC_NUMBER)
    data += (0).to_bytes(4, "little")
    data += (int(stat.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
    data += (stat.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    data += marshal.dumps(code)
    temporary = f"{cached}.{os.getpid()}.tmp"
    try:
        with open(temporary, "wb") as file:
            file.write(data)
        os.replace(temporary, cached)
    except OSError:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise
