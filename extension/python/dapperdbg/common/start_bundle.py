"""The start bundle: the bytecode of the package's modules that the launcher imports before
the program runs, in one file read at once (issue 18 item 8).

Every child process of a debugged program starts the launcher, which imports some sixty
modules of this package before the program's first line. Found and loaded one by one,
through the import system's path finder (a directory listing, a stat of the source, a
pyc opened, read and checked for each), they cost about 10 ms a start on 3.12; from one
file, about 6 ms. The bundle serves only while the launcher starts (``open`` to
``close``: from the hello until the session is configured, the requests that configure
it included): then nothing of it stays in ``sys.meta_path``, and what the launcher
imports later (for a stop, a breakpoint, a child) comes through the import system as
usual.

The bundle is a cache, like the pyc files it is made of, in ``dapperdbg/__pycache__/``:
- a module is taken from it only while its source file has the size and modification
  time it had when its bytecode went in; otherwise it is imported from its source, as
  is a module the bundle does not hold;
- a start that imported any module of the package past the bundle writes it again (from
  the pyc files the import system just checked), with the modules of the earlier bundle
  that are still current: the bundle grows to what the launcher's starts import;
- a bundle that cannot be read, of another Python (the magic number of its pyc files
  says so) or of another layout is ignored, and one that cannot be written (a read-only
  installation) is not written: the package then imports as it did without it.

A module loaded from the bundle is what the import system would have made of it: its
loader is a ``SourceFileLoader`` (it reads the pyc again if asked for the code once more)
with the module's name and source path, and ``__file__``, ``__path__`` and ``__spec__``
(``__cached__`` before 3.15) are as they would be.
"""

from __future__ import annotations

import marshal
import os
import sys

try:  # The import system's own classes, loaded with the interpreter: no import costs.
    from _frozen_importlib import ModuleSpec
    from _frozen_importlib_external import MAGIC_NUMBER, SourceFileLoader, cache_from_source
except ImportError:  # Not CPython's import system: no bundle (bundle_path says None).
    ModuleSpec = None
    SourceFileLoader = object

# The bundle's own layout; a bundle of another is ignored (and written anew). The file is
# the length of its index (4 bytes, little-endian), the index marshalled (layout, magic
# number, entries), then the modules' marshalled code one after the other. A start reads
# it at once and unmarshals each module's code from a view of what it read: the bundle
# also holds the modules that other kinds of start import, and copying each entry out
# of the file cost a start as much as reading it.
_LAYOUT = 2
_INDEX_LENGTH = 4
_PACKAGE = "dapperdbg"
# The directory holding the package (this file is dapperdbg/common/start_bundle.py).
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# A module's entry: (is a package, source mtime in ns, source size, marshalled code, a
# bytes-like object: a view of the file's contents once read).
Entry = tuple


def bundle_path() -> str | None:
    """Where this interpreter's bundle is, or None where Python names no bytecode cache."""
    tag = sys.implementation.cache_tag
    if tag is None or ModuleSpec is None:
        return None
    optimization = f".opt-{sys.flags.optimize}" if sys.flags.optimize else ""
    return os.path.join(_ROOT, _PACKAGE, "__pycache__", f"start.{tag}{optimization}.bundle")


def source_path(name: str, is_package: bool) -> str:
    parts = name.split(".")
    if is_package:
        return os.path.join(_ROOT, *parts, "__init__.py")
    return os.path.join(_ROOT, *parts[:-1], parts[-1] + ".py")


class _BundleLoader(SourceFileLoader):  # type: ignore[misc,valid-type]
    """A module's loader, with its code from the bundle the first time it is asked."""

    def __init__(self, name: str, path: str, code: bytes | memoryview) -> None:
        super().__init__(name, path)
        self._code: bytes | memoryview | None = code

    def get_code(self, fullname):
        code, self._code = self._code, None
        if code is None or fullname != self.name:
            return super().get_code(fullname)
        return marshal.loads(code)


class StartBundle:
    """A meta path finder for the package's modules, from the bundle, while installed."""

    def __init__(self, path: str, entries: dict[str, Entry]) -> None:
        self._path = path
        self._entries = entries
        # Modules of the package looked for past the bundle (none there, or stale).
        self.missed: list[str] = []
        # Whether the entries differ from the file's (a stale one taken out).
        self._changed = False

    def find_spec(self, name: str, path=None, target=None):
        if name != _PACKAGE and not name.startswith(_PACKAGE + "."):
            return None
        entry = self._entries.get(name)
        if entry is None:
            self.missed.append(name)
            return None
        is_package, mtime_ns, size, code = entry
        origin = source_path(name, is_package)
        try:
            status = os.stat(origin)
        except OSError:
            status = None
        if status is None or (status.st_mtime_ns, status.st_size) != (mtime_ns, size):
            del self._entries[name]
            self._changed = True
            self.missed.append(name)
            return None
        spec = ModuleSpec(name, _BundleLoader(name, origin, code), origin=origin,
                          is_package=is_package)
        spec.has_location = True
        spec.cached = cache_from_source(origin)
        if is_package:
            spec.submodule_search_locations = [os.path.dirname(origin)]
        return spec

    def invalidate_caches(self) -> None:
        pass

    def write(self) -> None:
        """Write the bundle anew: the entries still current, and the modules imported
        past it from the pyc files the import system has just checked."""
        entries = self._entries
        changed = self._changed
        for name in self.missed:
            entry = _entry_of(sys.modules.get(name))
            if entry is not None:
                entries[name] = entry
                changed = True
        if not changed:  # Only names that are no module (an import that failed).
            return
        index = {}
        offset = 0
        for name, (is_package, mtime_ns, size, code) in entries.items():
            index[name] = (is_package, mtime_ns, size, offset, len(code))
            offset += len(code)
        head = marshal.dumps((_LAYOUT, MAGIC_NUMBER, index))
        temporary = f"{self._path}.{os.getpid()}.tmp"
        try:
            with open(temporary, "xb") as file:
                file.write(len(head).to_bytes(_INDEX_LENGTH, "little"))
                file.write(head)
                for entry in entries.values():
                    file.write(entry[3])
            os.replace(temporary, self._path)
        except OSError:  # A read-only installation, or a folder gone: no bundle.
            _remove(temporary)


def _remove(path: str) -> None:
    # Not contextlib.suppress: contextlib, and what it imports, would cost every start
    # 1-2 ms before the hello.
    try:
        os.unlink(path)
    except OSError:
        return


def _entry_of(module) -> Entry | None:
    """A module's entry, from its pyc file when that is current for its source."""
    spec = getattr(module, "__spec__", None)
    source = getattr(spec, "origin", None)
    cached = getattr(spec, "cached", None)
    if not source or not cached:
        return None
    try:
        with open(cached, "rb") as file:
            data = file.read()
        status = os.stat(source)
    except OSError:
        return None
    header = data[:16]
    # A pyc checked by timestamp (flags 0) whose source is the file as it is now.
    if (len(header) < 16 or header[:4] != MAGIC_NUMBER or header[4:8] != bytes(4)
            or int.from_bytes(header[8:12], "little") != int(status.st_mtime) & 0xFFFFFFFF
            or int.from_bytes(header[12:16], "little") != status.st_size & 0xFFFFFFFF):
        return None
    is_package = os.path.basename(source) == "__init__.py"
    return (is_package, status.st_mtime_ns, status.st_size, data[16:])


def _read(path: str) -> dict[str, Entry]:
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return {}
    try:
        data = os.read(descriptor, os.fstat(descriptor).st_size)
    except OSError:
        return {}
    finally:
        os.close(descriptor)
    view = memoryview(data)
    start = _INDEX_LENGTH + int.from_bytes(data[:_INDEX_LENGTH], "little")
    try:
        layout, magic, index = marshal.loads(view[_INDEX_LENGTH:start])
        if layout != _LAYOUT or magic != MAGIC_NUMBER or not isinstance(index, dict):
            return {}
        entries = {}
        for name, (is_package, mtime_ns, size, offset, length) in index.items():
            end = start + offset + length
            if end > len(data):  # Cut short: not the file that was written.
                return {}
            entries[name] = (is_package, mtime_ns, size, view[start + offset:end])
    except (EOFError, ValueError, TypeError):
        return {}
    return entries


_installed: StartBundle | None = None


def open_bundle() -> None:
    """Serve the package's modules from the bundle, until ``close_bundle``."""
    global _installed
    path = bundle_path()
    if path is None or _installed is not None:
        return
    _installed = StartBundle(path, _read(path))
    sys.meta_path.insert(0, _installed)


def close_bundle() -> None:
    """The launcher's start is over: take the finder out of ``sys.meta_path``, and write
    the bundle anew if a module of the package was imported past it."""
    global _installed
    bundle, _installed = _installed, None
    if bundle is None:
        return
    if bundle in sys.meta_path:
        sys.meta_path.remove(bundle)
    if bundle.missed:
        bundle.write()
