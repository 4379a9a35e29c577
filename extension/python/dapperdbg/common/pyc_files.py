"""The plain code of a source file read from the import system's bytecode cache (the
``.pyc`` in ``__pycache__``), where the import system itself would read it for that
source: without compiling, and without writing anything; and, where there is none, from
the debugger's cache of compiles (code_cache.py), else compiled and kept there.

A line breakpoint needs the plain code of its file: its executable lines, where its
functions start and end, what live functions must equal. Compiling a 3,000-line module
costs 20-40 ms; reading its ``.pyc`` about 1 ms, and a module that was imported, or whose
folder can be written to, has one. The checks are the import system's own: the magic
number of this interpreter, then either the source's modification time and size (the
default) or the hash of its bytes (``--invalidation-mode checked-hash`` or
``unchecked-hash``; the hash is checked here in both cases, since the source is at
hand). A ``.pyc`` that fails them is not used: the caller compiles instead.

The import system's timestamp check misses an edit that keeps the file's size within
the second its ``.pyc`` was made: it would run the old code. Here that matters more than
for an import: the plain code tells whether live functions still match the file (an
edited file is refused, docs/instrumentation.md). So a timestamp ``.pyc`` must also
have been written after the source was last modified, which any later edit undoes.
"""

from __future__ import annotations

import marshal
import os
import sys

from .interpreter_types import CodeType

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

try:  # The import system's own functions, loaded with the interpreter.
    import _imp
    from _frozen_importlib_external import MAGIC_NUMBER, cache_from_source

    # The key of a hash-based .pyc's source hash: the magic number read as a number.
    _HASH_KEY = int.from_bytes(MAGIC_NUMBER, "little")
except ImportError:  # Not CPython's import system: never read.
    _imp = None

_FLAG_HASH_BASED = 0b01
_HEADER_SIZE = 16


def cached_module_code(path: str, source: bytes,
                       optimize: int = -1) -> types.CodeType | None:
    """The module code the import system would run for ``path`` holding ``source``, from
    its ``.pyc``, with ``co_filename`` set to ``path`` as an import sets it; None when
    there is no current ``.pyc`` (or ``optimize`` is not the interpreter's own, which
    names the ``.pyc``)."""
    if (_imp is None or optimize not in (-1, sys.flags.optimize)
            or sys.implementation.cache_tag is None):
        return None
    try:
        cached = cache_from_source(path)
        with open(cached, "rb") as file:
            data = file.read()
            written = os.fstat(file.fileno()).st_mtime_ns
    except (OSError, ValueError, NotImplementedError):
        return None
    if len(data) < _HEADER_SIZE or data[:4] != MAGIC_NUMBER:
        return None
    flags = int.from_bytes(data[4:8], "little")
    if flags & ~0b11:
        return None  # A layout this reader does not know.
    if flags & _FLAG_HASH_BASED:
        if data[8:16] != _imp.source_hash(_HASH_KEY, source):
            return None
    else:
        try:
            modified = os.stat(path).st_mtime_ns
        except (OSError, ValueError):
            return None
        if (int.from_bytes(data[8:12], "little") != (modified // 10**9) & 0xFFFFFFFF
                or int.from_bytes(data[12:16], "little") != len(source) & 0xFFFFFFFF
                or written <= modified):
            return None
    try:
        code = marshal.loads(memoryview(data)[_HEADER_SIZE:])
    except (ValueError, EOFError, TypeError):
        return None
    if not isinstance(code, CodeType):
        return None
    _imp._fix_co_filename(code, path)
    return code


def plain_module_code(path: str, source: bytes) -> types.CodeType:
    """The module code of ``source`` (the text of ``path``) compiled as the import system
    compiles it: from its ``.pyc``, the debugger's cache, or compiled now (and kept).
    Raises what ``compile`` raises for a source that does not compile."""
    code = cached_module_code(path, source)
    if code is not None:
        return code
    from . import code_cache

    key = path.encode("utf-8", "surrogatepass")
    code = code_cache.load("plain", path, key, source)
    if isinstance(code, CodeType):
        return code
    code = compile(source, path, "exec", dont_inherit=True)
    code_cache.store("plain", path, key, source, code)
    return code
