"""The plain module code of a file (no probes; with restartable functions where the file
is loaded so), which matching live functions and the copies' originals need: read from
the file's ``.pyc`` where the import system would read it, else from the debugger's
cache of compiles (common/code_cache.py, the entry the executable lines were found
from), else compiled and kept there. A file with restartable functions has that compile
in the cache restart_loading.py loads the user's modules from (the same compile, kept
once).

Entries are keyed by the text of the package's files that decide what a compile makes
(``compiler_version``), so a changed compiler never reads what an earlier one kept.
"""

from __future__ import annotations

import os

from ..common import code_cache
from ..common.interpreter_types import CodeType
from ..common.pyc_files import plain_module_code
from .copies import InstrumentationError

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

# The package's files whose code decides what a copy or a plain compile is.
_COMPILER_FILES = (
    "compiler.py", "transform.py", "bytecode.py", "probes.py", "restartable.py",
    "restarts.py", "restart_contract.py", "jit_compiled.py", "segments.py", "copies.py",
    "copy_cache.py", "plain_code.py",
    os.path.join(os.pardir, "common", "code_lines.py"),
)
_COMPILE_ERRORS = (SyntaxError, ValueError, TypeError, RecursionError)
_version: bytes | None = None


def compiler_version() -> bytes:
    """What tells this compiler from any other: the identities of its files
    (code_cache.file_identity: a write to one changes it), or, while one of them changed
    in the last two seconds, a hash of their text. Reading the twelve files cost a
    process with breakpoints about half a millisecond; their identities, a tenth."""
    global _version
    if _version is None:
        folder = os.path.dirname(os.path.abspath(__file__))
        paths = [os.path.join(folder, name) for name in _COMPILER_FILES]
        parts = []
        for path in paths:
            try:
                parts.append(code_cache.file_identity(os.stat(path)))
            except OSError:
                parts.append(b"?")
        if all(parts):
            parts.insert(0, b"identities")
        else:
            parts = []
            for path in paths:
                try:
                    with open(path, "rb") as file:
                        parts.append(file.read())
                except OSError:
                    parts.append(b"?")
        hasher = code_cache.source_hash
        _version = hasher(0, b"\0".join(parts)) if hasher is not None else b""
    return _version


def cache_key(*parts) -> bytes:
    """A cache key of ``parts`` (reprs of plain data) and the compiler's version."""
    return repr((compiler_version(), *parts)).encode("utf-8", "surrogatepass")


def as_bytes(source: bytes | str) -> bytes:
    return source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")


def compile_plain(source: bytes | str, filename: str, optimize: int = -1,
                  restartable: bool = False) -> types.CodeType:
    """The source compiled without probes (with restartable functions if asked), from
    the file's ``.pyc`` or a cache where one has it. Raises InstrumentationError if it
    does not compile."""
    if optimize == -1 and isinstance(source, bytes):
        if restartable:
            return _restartable_loaded(source, filename)
        try:
            return plain_module_code(filename, source)
        except _COMPILE_ERRORS as error:
            raise InstrumentationError(f"{filename} does not compile: {error}") from None
    key = cache_key(filename, optimize, restartable)
    code = code_cache.load("plain", filename, key, as_bytes(source))
    if isinstance(code, CodeType):
        return code
    try:
        if restartable:
            import ast

            from .restartable import guard_handlers, make_restartable

            tree = ast.parse(source, filename)
            make_restartable(tree)
            code = guard_handlers(compile(tree, filename, "exec", dont_inherit=True,
                                          optimize=optimize))
        else:
            code = compile(source, filename, "exec", dont_inherit=True, optimize=optimize)
    except _COMPILE_ERRORS as error:
        raise InstrumentationError(f"{filename} does not compile: {error}") from None
    code_cache.store("plain", filename, key, as_bytes(source), code)
    return code


def _restartable_loaded(source: bytes, filename: str) -> types.CodeType:
    """The restartable compile the module is (or would be) loaded with, from its cache."""
    import _imp

    from ..common.paths import canonical_path
    from .restart_loading import restartable_code

    code = restartable_code(source, filename, canonical_path(filename))
    if code is None:
        try:
            compile(source, filename, "exec", dont_inherit=True)
        except _COMPILE_ERRORS as error:
            raise InstrumentationError(f"{filename} does not compile: {error}") from None
        raise InstrumentationError(f"{filename} does not compile with restartable functions")
    # Kept under the file's canonical path, it may have been compiled under another name
    # of the file; the code object is this call's own (read or compiled just now).
    _imp._fix_co_filename(code, filename)
    return code
