"""Loading the user's modules with restartable functions (restartable.py), and a cache of
those compiles.

No finder of ours is put in ``sys.meta_path`` for it (the program sees the finders it
sees plain): while restartable functions are on, the source loader of the import system
itself (``SourceFileLoader``, whose ``get_code`` every plain source module is loaded
with) is given a ``get_code`` that, for a module of the user's code, returns its
restartable code, after doing what a plain load would show (a stale ``.pyc`` written
again, a SyntaxError raised), and leaves everything else to the original. Loaders of
other classes (subclasses included: they may rewrite the source themselves, as
pytest's does) are not touched.

A plain import reads the module's ``.pyc``; a restartable compile parses the source (with
the interpreter's ``_ast``: ast.py's own import costs 5-20 ms) and compiles it. So the
compiles are kept in the debugger's cache on disk (common/code_cache.py: the user's own
folder, closed to others), keyed by the package, the rewrite's version and the module's
path, and served only for the module's whole source as it is now, or, to an import,
which reads no source when a plain one would not, for the file's identity as ``os.stat``
gives it (code_cache says why that is as safe), so a changed file is never served from
it.
"""

from __future__ import annotations

import os
from _frozen_importlib_external import MAGIC_NUMBER, SourceFileLoader, cache_from_source

from ..common import code_cache
from ..common.interpreter_types import CodeType
from .restart_contract import PACKAGE, install_restart_exception, may_define_functions

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable

# Bumped whenever restartable.py compiles differently.
_REWRITE_VERSION = 5

_original_get_code = None
# Called with the canonical path of every file loaded restartable.
_on_loaded: Callable[[str], None] | None = None
# Which files are compiled restartable (user_files.restartable_source: a source file's
# canonical path, or None), set by ``enable``.
_decides: Callable[[str], str | None] | None = None


def enable(decides: Callable[[str], str | None], on_loaded: Callable[[str], None]) -> None:
    """Load the user's modules restartable from now on (idempotent)."""
    global _original_get_code, _on_loaded, _decides
    _on_loaded, _decides = on_loaded, decides
    if _original_get_code is None:
        _original_get_code = SourceFileLoader.get_code
        SourceFileLoader.get_code = _get_code


def disable() -> None:
    global _original_get_code
    if _original_get_code is not None:
        SourceFileLoader.get_code = _original_get_code
        _original_get_code = None


def _get_code(self, fullname):
    original = _original_get_code
    if original is None:  # Disabled while this import ran.
        return SourceFileLoader.get_code(self, fullname)
    decides = _decides
    if type(self) is not SourceFileLoader or decides is None:
        return original(self, fullname)
    try:
        path = self.get_filename(fullname)
        canonical = decides(path)
        info = os.stat(path) if canonical is not None else None
    except Exception:
        # The loader's own refusal (a name it cannot load, a file gone): the plain load
        # raises it as it would without the debugger.
        info = None
    if info is None:
        return original(self, fullname)
    # The plain code, where the plain load has run.
    plain = None
    if not _pyc_is_fresh(path, info):
        # What the plain load does then (compile, write the .pyc, raise a SyntaxError,
        # show the compiler's warnings) is what the program sees plain, even where it
        # writes no .pyc.
        plain = original(self, fullname)
    try:
        # A plain import reads only the .pyc: the cache is asked by the file's identity
        # first, and the source read only when that finds nothing.
        identity = code_cache.file_identity(info)
        code = _loaded(code_cache.load("restartable", canonical, _cache_key(canonical),
                                       identity=identity), canonical)
        if code is None:
            source = self.get_data(path)
            if not may_define_functions(source):
                # Its plain code is its restartable code: loaded as plain (the .pyc read
                # or written), where the cache would keep the whole text once more.
                _note_loaded(canonical)
                code = plain
            else:
                code = restartable_code(source, path, canonical, identity)
    except Exception:
        from ..common.errors import report_internal_error  # A bug's: rarely loaded.

        report_internal_error("loading a module with restartable functions")
        code = None
    if code is not None:
        return code
    # Compiled once already where the .pyc was not current (with no .pyc written, as
    # under PYTHONDONTWRITEBYTECODE, a second plain load would compile it again).
    return plain if plain is not None else original(self, fullname)


def _pyc_is_fresh(path: str, info: os.stat_result) -> bool:
    """Whether a plain import would only read the module's .pyc (a timestamp-checked one
    matching the source): then loading it has nothing for the program to see."""
    try:
        descriptor = os.open(cache_from_source(path), os.O_RDONLY)
        try:
            header = os.read(descriptor, 16)
        finally:
            os.close(descriptor)
    except (OSError, NotImplementedError, ValueError):
        return False
    return (len(header) == 16 and header[:4] == MAGIC_NUMBER
            and header[4:8] == b"\0\0\0\0"
            and int.from_bytes(header[8:12], "little") == int(info.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == info.st_size & 0xFFFFFFFF)


def restartable_code(source: bytes, path: str, canonical: str,
                     identity: bytes = b"") -> types.CodeType | None:
    """The module's code with restartable functions, from the cache or compiled (None if
    the source does not compile: the plain compile then raises its error). ``identity``:
    the file's (code_cache.file_identity), taken before ``source`` was read."""
    key = _cache_key(canonical)
    code = code_cache.load("restartable", canonical, key, source)
    if not isinstance(code, CodeType):
        from .restartable import compile_restartable

        try:
            code = compile_restartable(source, path)
        except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
            return None
        code_cache.store("restartable", canonical, key, source, code, identity)
    elif identity:
        # Kept by a caller that had only the text: the next import needs no source.
        code_cache.store("restartable", canonical, key, source, code, identity)
    return _loaded(code, canonical)


def _loaded(code, canonical: str) -> types.CodeType | None:
    """``code`` (a value from the cache: None unless a code object) about to run."""
    if not isinstance(code, CodeType):
        return None
    install_restart_exception()
    _note_loaded(canonical)
    return code


def _note_loaded(canonical: str) -> None:
    on_loaded = _on_loaded
    if on_loaded is not None:
        on_loaded(canonical)


def _cache_key(canonical: str) -> bytes:
    """What an entry of the cache (common/code_cache.py) depends on besides the source:
    the package that compiled it, the rewrite's version, the module's path."""
    return f"{PACKAGE} {_REWRITE_VERSION} {canonical}".encode("utf-8", "surrogatepass")
