"""A cache on disk of what the debugger derives from a source file's text (its executable
lines, the instrumented copies of its code), so that the processes of a session and the
runs after it do not derive it again while the file stays the same.

An entry is found by a key (what else the result depends on: the file's path, the
breakpoints, the options) and holds the file's whole text: it is served only when the
key and the text are both byte for byte what the caller has now, so a changed file is
never answered from it, whatever its modification time says. A caller that has not
read the file (the import of a module: a plain one reads only its ``.pyc``) may give
the file's identity instead (``file_identity``: its inode, size, and modification and
change times to the nanosecond, taken before the text it stored was read), which an
entry holds beside the text: a write to the file changes its change time, which no
program can set back. A file changed in the last two seconds has no identity (the
clock's tick may be coarser than two writes), so its entries are served by text only.
Values are ``marshal``
data (code objects, tuples, dicts, sets, numbers, strings); the interpreter's cache tag
and version are part of every entry, so another Python never reads it.

The folder is the user's (``DAPPER_CACHE_DIR``, else ``$XDG_CACHE_HOME/dapper``, else
``~/.cache/dapper``), one subfolder per kind of entry and interpreter, and is used only
when it belongs to the user and no one else may write to it: code read from a folder
others could write to would run their code. Where it cannot be used nothing is cached,
and every caller derives its result as it would without a cache. At most
``_MAX_ENTRIES`` entries and ``_MAX_BYTES`` are kept per subfolder, the least recently
written dropped first. Writes go to a temporary file renamed into place, so that
processes writing the same entry at once never leave a torn one.
"""

from __future__ import annotations

import marshal
import os
import sys

from .interpreter_types import CodeType

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

try:
    from _imp import source_hash
except ImportError:  # Not CPython: no cache.
    source_hash = None

# Names the entries' layout and what the compilers here make of a text (the restart
# handler's guard among it): entries of another number are never read.
_FORMAT = 7
# Per folder: an entry holds a file's whole text and code, up to a megabyte for a large
# module, and every set of breakpoints in it is an entry of its own.
_MAX_ENTRIES = 2000
_MAX_BYTES = 256 * 2**20
_HEADER = f"dapper-cache {_FORMAT} {sys.implementation.cache_tag} {sys.version}\n".encode()
# A key for the file-name hash (any number: the hash only spreads the entries).
_NAME_HASH_KEY = 0x6461707065

# kind -> its folder, or None where nothing is cached.
_folders: dict[str, str | None] = {}


def folder_for(kind: str) -> str | None:
    """The folder of ``kind``'s entries, made if needed; None where there is none (no
    home, not the user's, open to others, or not CPython)."""
    if kind in _folders:
        return _folders[kind]
    folder = None
    if source_hash is not None and sys.implementation.cache_tag is not None:
        root = os.environ.get("DAPPER_CACHE_DIR")
        if not root:
            base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
                os.path.expanduser("~"), ".cache")
            root = os.path.join(base, "dapper")
        candidate = os.path.join(root, f"{kind}-{sys.implementation.cache_tag}")
        try:
            folder = candidate if _private(candidate) else None
            if folder is None:
                # Made once: makedirs costs a process more than the check.
                os.makedirs(candidate, mode=0o700, exist_ok=True)
                folder = candidate if _private(candidate) else None
        except (OSError, ValueError):
            folder = None
    _folders[kind] = folder
    return folder


def _private(folder: str) -> bool:
    """Whether ``folder`` is a folder only this user can write to (and no link
    elsewhere)."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return os.path.isdir(folder)  # Windows: the profile's folders are the user's.
    import stat

    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == getuid()
            and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _entry_path(folder: str, name: str, key: bytes) -> str:
    # The header is hashed in: an entry of another format, or of another release of
    # this Python (they share a folder), is then no file ``has_entry`` finds.
    digest = source_hash(_NAME_HASH_KEY, _HEADER + key).hex()
    # The file's name, with what some systems refuse in a name (``<`` on Windows) left out.
    readable = "".join(c for c in os.path.basename(name)[:40] if c.isalnum() or c in "._-")
    return os.path.join(folder, f"{readable}-{digest}.entry")


# How long after a file's last change its identity is trusted (see the module's text).
_SETTLED_NS = 2_000_000_000


def file_identity(info: os.stat_result) -> bytes:
    """What ``os.stat`` says of a file, for ``load``'s ``identity``; empty (matching no
    entry) for a file changed in the last two seconds."""
    import time

    changed = max(info.st_mtime_ns, info.st_ctime_ns)
    if time.time_ns() - changed < _SETTLED_NS:
        return b""
    return (f"{info.st_dev} {info.st_ino} {info.st_size} {info.st_mtime_ns} "
            f"{info.st_ctime_ns}").encode()


def has_entry(kind: str, name: str, key: bytes) -> bool:
    """Whether an entry for ``key`` is kept (for some text: ``load`` still checks it)."""
    folder = folder_for(kind)
    return folder is not None and os.path.exists(_entry_path(folder, name, key))


def _key_part(key: bytes, identity: bytes) -> bytes:
    return b"".join((_HEADER, len(key).to_bytes(4, "little"), key,
                     len(identity).to_bytes(4, "little"), identity))


def load(kind: str, name: str, key: bytes, text: bytes | None = None,
         identity: bytes | None = None):
    """The value stored for ``key`` and the file's ``text`` (or, not read, its
    ``identity``: ``file_identity``), or None. ``name`` (a file's path) only names the
    entry's file, for whoever looks into the folder. An entry is its key and identity,
    the value, then the text, so that a load by identity reads no text."""
    folder = folder_for(kind)
    if folder is None or identity == b"":
        return None
    try:
        if identity is not None:
            # Read as a plain import reads a .pyc: no file object, two reads.
            descriptor = os.open(_entry_path(folder, name, key), os.O_RDONLY)
            try:
                expected = _key_part(key, identity)
                head = os.read(descriptor, len(expected) + 8)
                if not head.startswith(expected) or len(head) != len(expected) + 8:
                    return None
                size = int.from_bytes(head[-8:], "little")
                value = _read_exactly(descriptor, size)
            finally:
                os.close(descriptor)
            if value is None:
                return None
        else:
            with open(_entry_path(folder, name, key), "rb") as file:
                data = file.read()
            cut = len(_key_part(key, b"")) - 4  # Then the identity's length.
            view = memoryview(data)
            if not data.startswith(_key_part(key, b"")[:cut]):
                return None
            at = cut + 4 + int.from_bytes(view[cut:cut + 4], "little")
            size = int.from_bytes(view[at:at + 8], "little")
            value = view[at + 8:at + 8 + size]
            at += 8 + size
            if view[at:] != len(text).to_bytes(8, "little") + text:
                return None
    except OSError:
        return None
    try:
        return marshal.loads(value)
    except (ValueError, EOFError, TypeError):
        return None


def _read_exactly(descriptor: int, size: int) -> bytes | None:
    """``size`` bytes from the file (None if it ends first)."""
    data = os.read(descriptor, size)
    if len(data) == size:
        return data
    parts = [data]
    got = len(data)
    while got < size:
        more = os.read(descriptor, size - got)
        if not more:
            return None
        parts.append(more)
        got += len(more)
    return b"".join(parts)


def store(kind: str, name: str, key: bytes, text: bytes, value,
          identity: bytes = b"") -> None:
    """Keep ``value`` for ``key`` and ``text`` (silently nothing where it cannot), and
    for ``identity`` (``file_identity`` taken before ``text`` was read) if given."""
    folder = folder_for(kind)
    if folder is None:
        return
    try:
        data = marshal.dumps(value)
    except ValueError:
        return  # Not marshal data: a caller's bug, but never the program's failure.
    path = _entry_path(folder, name, key)
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(_key_part(key, identity))
            file.write(len(data).to_bytes(8, "little"))
            file.write(data)
            file.write(len(text).to_bytes(8, "little"))
            file.write(text)
        os.replace(temporary, path)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        return
    _trim(folder, path)


def compile_text(text: str, filename: str, mode: str = "eval") -> types.CodeType:
    """``compile(text, filename, mode, dont_inherit=True)``, read from the cache when it
    was compiled before. A process's first ``compile`` call costs 1-1.5 ms more than the
    compile itself (the interpreter makes its syntax tree types then), which a plain run
    of the same program never pays: breakpoint conditions and log messages (eval), and
    the code of a ``python -c`` (exec: every multiprocessing child started by spawn) come
    from here. Raises what ``compile`` raises."""
    remembered = _compiled.get((text, filename, mode))
    if remembered is not None:
        return remembered
    source = text.encode("utf-8", "surrogatepass")
    # The text is in the key too: each text has an entry of its own, so that a session
    # whose breakpoints have several conditions finds them all in every process.
    key = f"{mode} {filename}".encode("utf-8", "surrogatepass") + b"\0" + source
    code = load("expressions", mode, key, source)
    if not isinstance(code, CodeType):
        code = compile(text, filename, mode, dont_inherit=True)
        # An expression's warnings are the debugger's own business; a program's are the
        # user's (and the program's threads do not run yet: the check below changes the
        # warning filters of the whole process while it compiles).
        if mode == "eval" or _compiles_quietly(text, filename, mode):
            store("expressions", mode, key, source, code)
    if len(_compiled) >= _COMPILED_REMEMBERED:
        _compiled.clear()
    _compiled[(text, filename, mode)] = code
    return code


def _compiles_quietly(text: str, filename: str, mode: str) -> bool:
    """Whether compiling ``text`` warns of nothing. A program's code that warns (``x is
    1``, an invalid escape) is not kept: it is compiled anew by every process, whose
    warnings the interpreter shows each time, as it does for the same ``python -c``.
    Called before the program runs: the filters are the whole process's."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            compile(text, filename, mode, dont_inherit=True)
        except (SyntaxError, Warning):
            return False
    return True


# The texts this process compiled or read, by (text, filename, mode): every breakpoint of
# a session comes to each process, often with the same condition on each. A code object
# is never changed, so one serves them all. Emptied when full, so it never grows past this.
_compiled: dict[tuple[str, str, str], types.CodeType] = {}
_COMPILED_REMEMBERED = 256


# Writes since this process last weighed the folder's entries, per folder.
_writes_unweighed: dict[str, int] = {}
# How many writes a process makes between two weighings of the folder (counting its
# entries, which needs no stat, comes every time).
_WEIGH_EVERY = 32


def _count_start() -> int:
    """Where a process's count of unweighed writes starts, from 0 to ``_WEIGH_EVERY``:
    from its process id, so that processes started one after the other (a test suite's
    children) spread evenly."""
    return os.getpid() % (_WEIGH_EVERY + 1)


def _trim(folder: str, written: str) -> None:
    """At most ``_MAX_ENTRIES`` entries and ``_MAX_BYTES``: past either, the least
    recently written go until three quarters of both are left (never ``written``, the
    entry just written, whatever a coarse clock says of its time). The sizes are read (a
    stat an entry, 5-10 ms for a full folder) every ``_WEIGH_EVERY + 1`` writes of a
    process, or when there are too many entries. Where a process's count starts is
    picked by its process id: most processes that write one entry (a test's child
    running a script just written) weigh nothing, and about one in ``_WEIGH_EVERY + 1``
    weighs at its first write, so the folder is weighed as often when every process
    writes once as when one writes them all."""
    try:
        names = [entry.path for entry in os.scandir(folder) if entry.name.endswith(".entry")]
    except OSError:
        return
    unweighed = _writes_unweighed.get(folder)
    if unweighed is None:
        unweighed = _count_start()
    if len(names) <= _MAX_ENTRIES and unweighed < _WEIGH_EVERY:
        _writes_unweighed[folder] = unweighed + 1
        return
    _writes_unweighed[folder] = 0
    entries = []
    for path in names:
        try:
            entries.append((os.stat(path), path))
        except OSError:
            continue
    total = sum(info.st_size for info, _ in entries)
    if len(entries) <= _MAX_ENTRIES and total <= _MAX_BYTES:
        return
    entries.sort(key=lambda item: item[0].st_mtime_ns)
    count = len(entries)
    for info, path in entries:
        if count <= _MAX_ENTRIES * 3 // 4 and total <= _MAX_BYTES * 3 // 4:
            break
        if path == written:
            continue
        try:
            os.unlink(path)
        except OSError:
            continue
        count -= 1
        total -= info.st_size
