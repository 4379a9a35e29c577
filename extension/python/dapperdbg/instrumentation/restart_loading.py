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

A plain import reads the module's ``.pyc``; a restartable compile parses the source with
``ast`` (whose import alone costs 5-20 ms) and compiles it. So the compiles are kept in a
cache of the user's own (``~/.cache/dapper``, or ``$XDG_CACHE_HOME``, or
``DAPPER_CACHE_DIR``), one file a module: the interpreter's cache tag, the package's
name and the rewrite's version, the module's path and its whole source, then the code
(``marshal``). An entry is used only when all of those are equal to what is loaded now,
so a changed file is never served from it. The folder must belong to the user and be
closed to others (a code cache others could write to would run their code); where it is
not, nothing is cached. At most ``_MAX_ENTRIES`` entries are kept.
"""

from __future__ import annotations

import marshal
import os
import sys
import types
from _frozen_importlib_external import MAGIC_NUMBER, SourceFileLoader, cache_from_source

from ..common.errors import report_internal_error
from ..common.paths import canonical_path
from .restarts import PACKAGE, install_restart_exception

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Callable

# Bumped whenever restartable.py compiles differently.
_REWRITE_VERSION = 2
_MAX_ENTRIES = 4000
_HEADER = f"dapper-restartable {_REWRITE_VERSION} {sys.implementation.cache_tag} {PACKAGE}\n" \
    .encode()

_original_get_code = None
# Called with the canonical path of every file loaded restartable.
_on_loaded: Callable[[str], None] | None = None
# Which files are compiled restartable (importer.restartable_file), set by ``enable``.
_decides: Callable[[str], bool] | None = None


def enable(decides: Callable[[str], bool], on_loaded: Callable[[str], None]) -> None:
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
        source = self.get_data(path) if decides(canonical_path(path)) else None
    except Exception:
        # The loader's own refusal (a name it cannot load, a file gone): the plain load
        # raises it as it would without the debugger.
        source = None
    if source is None:
        return original(self, fullname)
    if not _pyc_is_fresh(path, source):
        # What the plain load does then (compile, write the .pyc, raise a SyntaxError)
        # is what the program sees plain.
        original(self, fullname)
    try:
        code = restartable_code(source, path, canonical_path(path))
    except Exception:
        report_internal_error("loading a module with restartable functions")
        code = None
    return code if code is not None else original(self, fullname)


def _pyc_is_fresh(path: str, source: bytes) -> bool:
    """Whether a plain import would only read the module's .pyc (a timestamp-checked one
    matching the source): then loading it has nothing for the program to see."""
    try:
        cached = cache_from_source(path)
        with open(cached, "rb") as file:
            header = file.read(16)
        info = os.stat(path)
    except (OSError, NotImplementedError, ValueError):
        return False
    return (len(header) == 16 and header[:4] == MAGIC_NUMBER
            and header[4:8] == b"\0\0\0\0"
            and int.from_bytes(header[8:12], "little") == int(info.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == len(source) & 0xFFFFFFFF)


def restartable_code(source: bytes, path: str, canonical: str) -> types.CodeType | None:
    """The module's code with restartable functions, from the cache or compiled (None if
    the source does not compile: the plain compile then raises its error)."""
    cache = _entry_path(canonical)
    code = _cached(cache, canonical, source) if cache is not None else None
    if code is None:
        from .restartable import compile_restartable

        try:
            code = compile_restartable(source, path)
        except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
            return None
        if cache is not None:
            _store(cache, canonical, source, code)
    install_restart_exception()
    on_loaded = _on_loaded
    if on_loaded is not None:
        on_loaded(canonical)
    return code


# The cache.

_folder: str | None | bool = False  # False: not decided yet; None: no cache.


def _cache_folder() -> str | None:
    global _folder
    if _folder is not False:
        return _folder  # type: ignore[return-value]
    chosen = os.environ.get("DAPPER_CACHE_DIR")
    if not chosen:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                ".cache")
        chosen = os.path.join(base, "dapper")
    folder = os.path.join(chosen, f"restartable-{sys.implementation.cache_tag}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        _folder = folder if _private(folder) else None
    except OSError:
        _folder = None
    return _folder  # type: ignore[return-value]


def _private(folder: str) -> bool:
    """Whether only this user can write to ``folder`` (and it is not a link elsewhere)."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return True  # Windows: the profile's folders are the user's.
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    import stat

    return (stat.S_ISDIR(info.st_mode) and info.st_uid == getuid()
            and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _entry_path(canonical: str) -> str | None:
    folder = _cache_folder()
    if folder is None:
        return None
    name = os.path.basename(canonical)
    # FNV-1a of the path: only spreads the entries (each names its path, which is checked).
    key = 0xCBF29CE484222325
    for byte in canonical.encode("utf-8", "surrogatepass"):
        key = ((key ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return os.path.join(folder, f"{name[:40]}-{key:016x}.code")


def _cached(cache: str, canonical: str, source: bytes) -> types.CodeType | None:
    try:
        with open(cache, "rb") as file:
            data = file.read()
    except OSError:
        return None
    expected = _prefix(canonical, source)
    if not data.startswith(expected):
        return None
    try:
        code = marshal.loads(memoryview(data)[len(expected):])
    except (ValueError, EOFError, TypeError):
        return None
    return code if isinstance(code, types.CodeType) else None


def _prefix(canonical: str, source: bytes) -> bytes:
    where = canonical.encode("utf-8", "surrogatepass")
    return b"".join((_HEADER, len(where).to_bytes(4, "little"), where,
                     len(source).to_bytes(8, "little"), source))


def _store(cache: str, canonical: str, source: bytes, code: types.CodeType) -> None:
    folder = os.path.dirname(cache)
    temporary = f"{cache}.{os.getpid()}.tmp"
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(_prefix(canonical, source))
            file.write(marshal.dumps(code))
        os.replace(temporary, cache)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        return
    _trim(folder)


def _trim(folder: str) -> None:
    """Keep at most ``_MAX_ENTRIES`` entries: the least recently written go first."""
    try:
        entries = [entry for entry in os.scandir(folder) if entry.name.endswith(".code")]
        if len(entries) <= _MAX_ENTRIES:
            return
        entries.sort(key=lambda entry: entry.stat().st_mtime)
        for entry in entries[:len(entries) - _MAX_ENTRIES * 3 // 4]:
            try:
                os.unlink(entry.path)
            except OSError:
                pass
    except OSError:
        return
