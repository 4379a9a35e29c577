"""Which lines of a source file are executable, and where a breakpoint request lands.

The executable lines of a file are the line numbers of the module's code object and of
every code object nested in it (functions, classes, comprehensions, lambdas). Results
are cached per path and (mtime, size), so a breakpoint edit does not recompile the file.
"""

from __future__ import annotations

import os
import stat
from _bisect import bisect_left  # bisect.py only re-exports its C half.

from .interpreter_types import CodeType
from .native import allocate_lock
from .records import Record

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

_HAS_CO_LINES = hasattr(CodeType, "co_lines")


class SourceError(Exception):
    """The file cannot be read or compiled; the message is meant for the user."""


# The largest source file read for breakpoints or shown by path. Compiling a file costs
# about a second per megabyte, during which no other request is answered; the largest
# file of the standard library is under 1 MiB.
MAX_SOURCE_BYTES = 4 * 1024 * 1024


def read_source_bytes(path: str) -> bytes:
    """The bytes of a source file a request names, refusing what is not a regular file
    (a FIFO would block for ever, /dev/zero never ends) or is larger than
    MAX_SOURCE_BYTES, with a SourceError that says so."""
    try:
        # O_NONBLOCK: opening a FIFO with no writer must not wait; what was opened is
        # checked before anything is read from it.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise SourceError(f"Cannot read {path}: {error.strerror or error}") from None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise SourceError(f"Cannot read {path}: it is not a regular file (a directory, "
                              "device or pipe), so it is not a Python source file.")
        if status.st_size > MAX_SOURCE_BYTES:
            raise SourceError(
                f"Cannot read {path}: it is {status.st_size / 2**20:.1f} MiB, and Dapper "
                f"reads source files of up to {MAX_SOURCE_BYTES // 2**20} MiB.")
        chunks = []
        size = 0
        while size <= MAX_SOURCE_BYTES:
            chunk = os.read(descriptor, MAX_SOURCE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
    except OSError as error:
        raise SourceError(f"Cannot read {path}: {error.strerror or error}") from None
    finally:
        os.close(descriptor)
    if len(data) > MAX_SOURCE_BYTES:
        raise SourceError(f"Cannot read {path}: it grew past {MAX_SOURCE_BYTES // 2**20} "
                          "MiB while it was read.")
    return data


def code_own_lines(code: types.CodeType) -> frozenset[int]:
    """The line numbers of one code object's own instructions (nested code objects not
    included): from co_lines on 3.10+, from co_lnotab through ``dis`` on 3.9."""
    if _HAS_CO_LINES:
        return frozenset(line for _, _, line in code.co_lines() if line)
    import dis

    return frozenset(line for _, line in dis.findlinestarts(code) if line)


def code_tree_lines(code: types.CodeType) -> set[int]:
    """The line numbers of a code object and of every code object nested in it."""
    lines: set[int] = set()
    pending = [code]
    while pending:
        current = pending.pop()
        lines.update(code_own_lines(current))
        pending.extend(c for c in current.co_consts if isinstance(c, CodeType))
    return lines


def executable_lines_of_source(source: bytes | str, filename: str,
                               identity: bytes = b"") -> tuple[int, ...]:
    """Sorted executable lines of ``source``; raises SourceError if it does not compile.
    The file's current ``.pyc`` or the debugger's cache answer when they can: a compile
    of a 3,000-line module costs 20-40 ms, which every process of a session with a
    breakpoint in it would pay again. ``identity``: the file's (code_cache.file_identity),
    taken before ``source`` was read, under which the lines are kept too."""
    if not isinstance(source, bytes):
        return _compiled_lines(source, filename)
    from .code_cache import load, store
    from .pyc_files import plain_module_code

    key = filename.encode("utf-8", "surrogatepass")
    lines = load("lines", filename, key, source)
    if isinstance(lines, tuple):
        if identity:
            # Kept by a caller that had only the text: the next process reads no text.
            store("lines", filename, key, source, lines, identity)
        return lines
    try:
        code = plain_module_code(filename, source)
    except SyntaxError as error:
        raise _source_error(filename, error) from None
    except (ValueError, TypeError) as error:
        raise SourceError(f"{os.path.basename(filename)} does not compile: {error}") from None
    lines = tuple(sorted(code_tree_lines(code)))
    store("lines", filename, key, source, lines, identity)
    return lines


def _compiled_lines(source: bytes | str, filename: str) -> tuple[int, ...]:
    try:
        code = compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as error:
        raise _source_error(filename, error) from None
    except (ValueError, TypeError) as error:
        raise SourceError(f"{os.path.basename(filename)} does not compile: {error}") from None
    return tuple(sorted(code_tree_lines(code)))


def _source_error(filename: str, error: SyntaxError) -> SourceError:
    where = f" (line {error.lineno})" if error.lineno else ""
    return SourceError(f"{os.path.basename(filename)} does not compile: {error.msg}{where}")


class Resolution(Record, frozen=True):
    """Where a requested breakpoint line lands: ``line`` when verified, else a message."""

    verified: bool
    line: int
    message: str | None = None


def resolve_line(executable: tuple[int, ...], requested: int) -> Resolution:
    """A breakpoint on an executable line stays; on any other line it moves to the next
    executable line; before the first line or past the last executable line it cannot
    be verified."""
    if requested < 1:
        return Resolution(False, requested, f"Line {requested} is not a line of the file: "
                                            "the first line is 1.")
    index = bisect_left(executable, requested)
    if index == len(executable):
        return Resolution(False, requested, f"Line {requested} is past the last executable "
                                            "line of the file.")
    return Resolution(True, executable[index])


class ExecutableLinesCache:
    """Executable lines per file, recomputed only when the file's mtime or size changes.
    A process asks the debugger's cache by the file's identity first, as an import reads
    only a ``.pyc``: a child process gets every breakpoint of its session, and reading
    and comparing each file's whole text cost it about 0.2 ms a file."""

    def __init__(self) -> None:
        self._lock = allocate_lock()
        self._entries: dict[str, tuple[tuple[int, int], tuple[int, ...]]] = {}

    def lines(self, path: str) -> tuple[int, ...]:
        try:
            stat = os.stat(path)
        except OSError as error:
            raise SourceError(f"Cannot read {path}: {error.strerror or error}") from None
        stamp = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._entries.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        from .code_cache import file_identity, load

        identity = file_identity(stat)
        lines = load("lines", path, path.encode("utf-8", "surrogatepass"), identity=identity)
        if not isinstance(lines, tuple):
            lines = executable_lines_of_source(read_source_bytes(path), path, identity)
        with self._lock:
            self._entries[path] = (stamp, lines)
        return lines
