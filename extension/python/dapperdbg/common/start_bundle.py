"""The start bundle: the bytecode of the package's modules that the launcher imports before
the program runs, in one file.

Every child process of a debugged program starts the launcher, which imports some sixty
modules of this package before the program's first line. Found and loaded one by one,
through the import system's path finder (a directory listing, a stat of the source, a
pyc opened, read and checked for each), they cost about 10 ms a start on 3.12; from one
file, about 6 ms. The bundle serves only while the launcher starts (``open`` to
``close``: from the launcher's own modules until the program is about to run, the
requests that configure the session and the instrumentation of what is loaded for its
breakpoints included):
then nothing of it stays in ``sys.meta_path``, and what the launcher imports later (for
a stop, a breakpoint set later, a child) comes through the import system as usual.

The bundle is a cache, beside the pyc files, in ``dapperdbg/__pycache__/``:
- a module is taken from it only while its source file has the size and modification
  time it had when its bytecode went in; otherwise it is imported from its source, as
  is a module the bundle does not hold;
- a start that imported any module of the package past the bundle writes it again (those
  compiled from their sources as they are then), with the modules of the earlier bundle
  that are still current: the bundle grows to what the launcher's starts import;
- a phase's recorded order that lacks a module the phase then loads (one recorded by a
  start that went another way: a child whose interpreter has no ``_socket`` stops
  before the connection's modules) gets it, in the order the modules finished loading,
  and the bundle is written again: one such start does not leave every later one
  loading the rest one by one;
- a bundle that cannot be read, of another Python (the magic number of the pyc files
  of the Python that wrote it says so) or of another layout is ignored, and one that
  cannot be written (a read-only installation) is not written: the package then
  imports as it did without it.

A module loaded from the bundle is what the import system would have made of it: its
loader is a ``SourceFileLoader`` (it reads the pyc again if asked for the code once more)
with the module's name and source path, and ``__file__``, ``__path__`` and ``__spec__``
(``__cached__`` before 3.15) are as they would be; its code lacks only the import of
``__future__`` and the docstrings (below).

The launcher's own imports skip the import system altogether once a start has recorded
them, in three phases: the *boot*, the launcher's first modules, which ``open_bundle``
loads before the hello (the package's top and ``dapperdbg.common`` among them where the
launcher's script made this module from its file: launcher/__main__.py says why); the
*start*, what every session's start needs after it (the connection, the inheritance of
a child, the loading of the user's modules, the hooks of child processes), and the
*session*, the debugger's own, which a child that runs dormant
(session/dormant.py) does without. ``load_phase`` loads the start's and the session's
modules while the engine asks the client for the session. Found through the finder, each
module still costs the import system's Python machinery (its lock, the search of
``sys.meta_path``, the checks around the spec and the module): about 30 µs a module,
1.8 ms of the 12 ms that the launcher's 58 start-up modules took on 3.12 (medians of 20
paired starts). So the bundle also keeps, for each phase, the order in which its
modules finished loading; the next start makes each module from its spec and runs its
code in that order, a package made before
any of its modules runs and its own code run when it finished (which is after the
modules it imports). Nothing is run unless every module of the order is current; a
module whose code raises is taken out with everything the loading made, and the import
system then does what is left.

The code of each order's modules is also kept marshalled together, as one object (the
phase's *block*), which a start unmarshals at once. Marshalled one by one, each module
carries its own copy of every name and constant it shares with the others (``self``,
``os``, ``debugger``, each name of the package's own imported from another module), and
a start builds each copy, interns it and drops it again; together, each is built once
and referenced after. Unmarshalling the 58 start-up modules' code in a fresh process
took 4.3 ms one by one and 3.5 ms together (3.12, medians of 30). A block that cannot be
read, or does not hold a module, leaves that module to its own entry.

A module's code in the bundle is compiled for it from the module's source, without the
import of ``__future__`` and without docstrings (common/bundle_code.py says why, and what
it costs the start that writes the bundle). This module, made from its pyc file before
the bundle serves, has no future import: its annotations that Python 3.9 could not
evaluate as it defines a function are written as strings.
"""

import marshal
import os
import sys

try:  # The import system's own classes, loaded with the interpreter: no import costs.
    from _frozen_importlib import ModuleSpec, module_from_spec
    from _frozen_importlib_external import MAGIC_NUMBER, SourceFileLoader, cache_from_source
except ImportError:  # Not CPython's import system: no bundle (bundle_path says None).
    ModuleSpec = module_from_spec = None
    SourceFileLoader = object

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from types import CodeType

# The bundle's own layout; a bundle of another is ignored (and written anew, by
# common/bundle_code.py). The file is the length of its index (4 bytes, little-endian),
# the index marshalled (layout, magic number, entries, and for each phase its order and
# where its block is), then the modules' marshalled code one after the other, then the
# phases' blocks (each a dict of its order's modules' code). A start reads the index, then
# each part when it needs it: the block of each phase it loads, an entry only for a module
# that no block holds (``_File`` says why).
_LAYOUT = 7
_INDEX_LENGTH = 4
_PACKAGE = "dapperdbg"
# The directory holding the package (this file is dapperdbg/common/start_bundle.py).
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_ROOT_PREFIX = os.path.join(_ROOT, "")
_PACKAGE_SOURCE = os.sep + "__init__.py"
_PYCACHE = os.sep + "__pycache__" + os.sep
_CACHE_TAG = sys.implementation.cache_tag

# The type of code objects (types.CodeType, without importing types).
_CodeType = type((lambda: None).__code__)

# The phases, in the order a start loads them (see the module's docstring).
BOOT, START, SESSION = 0, 1, 2
_PHASES = 3

# A module's entry: (is a package, source mtime in ns, source size, marshalled code); the
# code is bytes, or (offset, length) in the bundle's file while it is not read yet.
Entry = tuple


def bundle_path() -> "str | None":
    """Where this interpreter's bundle is, or None where Python names no bytecode cache."""
    tag = sys.implementation.cache_tag
    if tag is None or ModuleSpec is None:
        return None
    optimization = f".opt-{sys.flags.optimize}" if sys.flags.optimize else ""
    return os.path.join(_ROOT, _PACKAGE, "__pycache__", f"start.{tag}{optimization}.bundle")


def source_path(name: str, is_package: bool) -> str:
    """The source file of the package's module ``name`` (what ``os.path.join`` of its
    parts makes, put together with less work: a start asks for sixty)."""
    path = _ROOT_PREFIX + name.replace(".", os.sep)
    return path + _PACKAGE_SOURCE if is_package else path + ".py"


def cached_path(origin: str) -> str:
    """``cache_from_source(origin)`` for a source file named ``*.py``: in the common case
    (no ``sys.pycache_prefix``, no optimization level) put together here, about 3 µs less
    a module than the import system's general way."""
    if sys.pycache_prefix is not None or sys.flags.optimize or _CACHE_TAG is None:
        return cache_from_source(origin)
    head, _, tail = origin.rpartition(os.sep)
    return f"{head}{_PYCACHE}{tail[:-3]}.{_CACHE_TAG}.pyc"


class _BundleLoader(SourceFileLoader):  # type: ignore[misc,valid-type]
    """A module's loader, with its code from the bundle the first time it is asked."""

    def __init__(self, name: str, path: str, code: "bytes | CodeType",
                 finished: "list[str] | None") -> None:
        super().__init__(name, path)
        self._code: bytes | CodeType | None = code
        self._finished = finished

    def get_code(self, fullname):
        code, self._code = self._code, None
        if code is None or fullname != self.name:
            return super().get_code(fullname)
        if type(code) is _CodeType:
            return code
        try:
            return marshal.loads(code)
        except (EOFError, ValueError, TypeError):
            # Not what was written (the file changed in place): the import system's way.
            return super().get_code(fullname)

    def exec_module(self, module) -> None:
        super().exec_module(module)
        finished, self._finished = self._finished, None
        if finished is not None:
            finished.append(module.__name__)


class StartBundle:
    """A meta path finder for the package's modules, from the bundle, while installed."""

    def __init__(self, path: str, entries: dict[str, Entry],
                 orders: "list[list[str]] | None" = None,
                 blocks: "list[tuple[int, int] | None] | None" = None,
                 file: "_File | None" = None) -> None:
        self._path = path
        self._entries = entries
        # The file the entries and blocks not read yet are in (open until ``close``).
        self._file = file
        # Each phase's modules in the order they finished loading, as the file has it,
        # and as this start records it; and where its block is in the file (None: none
        # there, or taken).
        self.orders = [list(order) for order in orders or ()]
        self.orders += [[] for _ in range(_PHASES - len(self.orders))]
        self._orders_read = [list(order) for order in self.orders]
        self._blocks = list(blocks or ())
        self._blocks += [None] * (_PHASES - len(self._blocks))
        # The phase being recorded, and the modules that finished loading since it began
        # (None: not recording); and whether they are to extend the phase's order rather
        # than be it (the order is being loaded, and may lack modules the phase loads).
        self.recording: int | None = None
        self.finished: list[str] | None = None
        self._extending = False
        # Modules of the package looked for past the bundle (none there, or stale), and
        # how many of them were looked for before the phase being recorded began.
        self.missed: list[str] = []
        self._missed_before = 0
        # Whether the entries differ from the file's (a stale one taken out).
        self._changed = False

    def find_spec(self, name: str, path=None, target=None):
        if name == _PACKAGE:
            # Found here even past the bundle: the launcher's script does not put the
            # package on sys.path, which may not name it (-E, -I) or name another.
            return self.spec_for(name) or _source_spec(
                name, source_path(name, is_package=True), is_package=True)
        if not name.startswith(_PACKAGE + "."):
            return None
        return self.spec_for(name)

    def codes(self, phase: int) -> dict:
        """The phase's block: its code by module name (see ``_codes``)."""
        where, self._blocks[phase] = self._blocks[phase], None
        return _codes(self._part(where))

    def _part(self, where: "tuple[int, int] | None") -> "bytes | None":
        """The bytes of a part of the file (None where there is none, or it cannot be
        read)."""
        file = self._file
        return None if where is None or file is None else file.read(*where)

    def _marshalled(self, name: str) -> "bytes | None":
        """An entry's marshalled code, read from the file the first time (None where it
        cannot be read: the entry is taken out, and the module is imported as usual)."""
        is_package, mtime_ns, size, code = self._entries[name]
        if type(code) is tuple:
            code = self._part(code)
            if code is None:
                del self._entries[name]
                self._changed = True
                return None
            self._entries[name] = (is_package, mtime_ns, size, code)
        return code

    def close(self) -> None:
        """The file is no longer read."""
        file, self._file = self._file, None
        if file is not None:
            file.close()

    def record(self, phase: int, extending: bool = False) -> None:
        """Record the modules that finish loading from now on as ``phase``'s order, or,
        ``extending``, as what its order lacked."""
        self.recording, self.finished = phase, []
        self._extending = extending
        self._missed_before = len(self.missed)

    def end_recording(self) -> None:
        """The phase being recorded is over: what finished loading is the next start's
        order for it, or what the order loaded lacked is added to its end (an order a
        start recorded on another way, one whose connection could not be made, say, must
        not leave every later start importing the rest one by one); none (recorded again
        next time) when a module of the phase came past the bundle (stale, or new). A
        name looked for that is no module, as ``from package import name`` may look for,
        is not one."""
        phase, finished = self.recording, self.finished or []
        self.recording = self.finished = None
        if phase is None:
            return
        past = any(name in sys.modules for name in self.missed[self._missed_before:])
        if past:
            self.orders[phase] = []
        elif self._extending:
            # The order's own modules finished loading among the others: the order they
            # all finished in is the one to run them in.
            order = self.orders[phase]
            if any(name not in order for name in finished):
                self.orders[phase] = finished + [name for name in order if name not in finished]
        else:
            self.orders[phase] = finished

    def spec_for(self, name: str, code: "CodeType | None" = None):
        """The module's spec while its entry is current, its code ``code`` if given
        (else its entry's); None otherwise."""
        entry = self._entries.get(name)
        if entry is None:
            self.missed.append(name)
            return None
        is_package, mtime_ns, size, _ = entry
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
        if code is None:
            code = self._marshalled(name)
            if code is None:
                self.missed.append(name)
                return None
        return _source_spec(name, origin, is_package,
                            _BundleLoader(name, origin, code, self.finished))

    def invalidate_caches(self) -> None:
        pass

    def write(self) -> None:
        """Write the bundle anew if it changed: the entries still current, the modules
        imported past it (compiled for it from their sources), and the phases' orders
        (common/bundle_code.py, which only a start that writes loads, makes both)."""
        entries = self._entries
        changed = self._changed or self.orders != self._orders_read
        for name in self.missed:
            module = sys.modules.get(name)
            if module is None:
                continue  # A name looked for that is no module.
            from .bundle_code import entry_of

            entry = entry_of(module)
            if entry is not None:
                entries[name] = entry
                changed = True
        if not changed:  # Only names that are no module (an import that failed).
            return
        for name in list(entries):
            self._marshalled(name)
        from .bundle_code import write_file

        write_file(self._path, entries, self.orders, layout=(_LAYOUT, MAGIC_NUMBER),
                   index_length=_INDEX_LENGTH)


def _source_spec(name: str, origin: str, is_package: bool, loader=None):
    """The spec the import system would find for the package's module ``name`` of source
    file ``origin`` (its loader ``loader``, else the import system's own)."""
    spec = ModuleSpec(name, loader or SourceFileLoader(name, origin), origin=origin,
                      is_package=is_package)
    spec.has_location = True
    spec.cached = cached_path(origin)
    if is_package:
        spec.submodule_search_locations = [os.path.dirname(origin)]
    return spec


def _codes(block: "bytes | None") -> dict:
    """A block's code by module name; empty where the file has none or it cannot be read
    (each module's own entry serves then)."""
    if block is None:
        return {}
    try:
        codes = marshal.loads(block)
    except (EOFError, ValueError, TypeError):
        return {}
    return codes if type(codes) is dict else {}


def _open(path: str) -> tuple:
    """The bundle's entries, each phase's order and where its block is, and its file,
    open; none of them where it cannot be read or is not one this code wrote."""
    nothing: tuple = ({}, [], [], None)
    try:
        file = _File(os.open(path, os.O_RDONLY))
    except OSError:
        return nothing
    try:
        length = file.size
        head = file.read(0, _INDEX_LENGTH)
        if head is None:
            raise ValueError("cut short")
        start = _INDEX_LENGTH + int.from_bytes(head, "little")
        index = file.read(_INDEX_LENGTH, start - _INDEX_LENGTH)
        if index is None:
            raise ValueError("cut short")
        layout, magic, entries_read, phases = marshal.loads(index)
        if (layout != _LAYOUT or magic != MAGIC_NUMBER or not isinstance(entries_read, dict)
                or not isinstance(phases, list) or len(phases) != _PHASES):
            raise ValueError("another layout")
        entries = {}
        for name, (is_package, mtime_ns, size, offset, size_of_code) in entries_read.items():
            if start + offset + size_of_code > length:  # Cut short: not what was written.
                raise ValueError("cut short")
            entries[name] = (is_package, mtime_ns, size, (start + offset, size_of_code))
        orders, blocks = [], []
        for order, (offset, size_of_block) in phases:
            if start + offset + size_of_block > length or not isinstance(order, list):
                raise ValueError("cut short")
            orders.append([name for name in order if type(name) is str and name in entries])
            blocks.append((start + offset, size_of_block))
    except (OSError, EOFError, ValueError, TypeError):
        file.close()
        return nothing
    return entries, orders, blocks, file


class _File:
    """The bundle's file, open while the bundle serves, each part read when a start needs
    it: the index, then the block of each phase the start loads, about half of the file
    (a dormant child's start, a third). Mapping the file instead cost every start the
    ``mmap`` module's import, and reading all of it copied what most starts never use
    (0.45 M instructions a start, 3.12). Where the system has no ``pread`` (Windows,
    which also refuses to replace a file another process holds open: the bundle could
    not be written again while a child starts), the file is read whole at once and
    closed."""

    def __init__(self, descriptor: int) -> None:
        """Raises OSError (the descriptor closed) where the file cannot be read."""
        self.descriptor = descriptor
        self._contents: bytes | None = None
        try:
            self.size = os.fstat(descriptor).st_size
            if _pread is None:
                self._contents = os.read(descriptor, self.size)
        except OSError:
            self.close()
            raise
        if _pread is None:
            self.close()

    def read(self, offset: int, length: int) -> "bytes | None":
        """``length`` bytes at ``offset``; None where they cannot all be read."""
        contents = self._contents
        if contents is not None:
            data = contents[offset:offset + length]
        else:
            try:
                data = _pread(self.descriptor, length, offset)
            except OSError:
                return None
        # A regular file gives all that it has in one read.
        return data if len(data) == length else None

    def close(self) -> None:
        descriptor, self.descriptor = self.descriptor, -1
        if descriptor < 0:
            return
        try:
            os.close(descriptor)
        except OSError:
            return


_pread = getattr(os, "pread", None)  # Windows has none.


_installed: "StartBundle | None" = None


def open_bundle() -> None:
    """Serve the package's modules from the bundle, until ``close_bundle``, and load the
    boot's as an earlier start recorded them, past the import system; or, without such a
    record (or with a module of it stale), record them as the imports that follow load
    them, until the next phase."""
    global _installed
    path = bundle_path()
    if path is None or _installed is not None:
        return
    _installed = bundle = StartBundle(path, *_open(path))
    sys.meta_path.insert(0, bundle)
    _load(bundle, BOOT)


# The modules each phase of the last start made and ran (what a test can ask).
loaded_at: list[tuple[str, ...]] = [() for _ in range(_PHASES)]


def load_phase(phase: int) -> None:
    """The phase before is over (what it recorded is the next start's order for it).
    Load ``phase``'s modules as an earlier start recorded them, past the import system;
    or, without such a record (or with a module of it stale), record them as the imports
    that follow load them, until the next phase or ``phases_loaded``."""
    bundle = _installed
    if bundle is not None:
        bundle.end_recording()
        _load(bundle, phase)


def phases_loaded() -> None:
    """The launcher's start-up imports are done: what finished loading since the last
    phase began is the order the next start loads it in."""
    bundle = _installed
    if bundle is not None:
        bundle.end_recording()


def _load(bundle: StartBundle, phase: int) -> None:
    # What the order's modules import that it lacks is recorded as they run, too.
    bundle.record(phase, extending=True)
    loaded = _preload(bundle, bundle.orders[phase], bundle.codes(phase))
    if loaded is None:
        bundle.record(phase)
    else:
        loaded_at[phase] = loaded


def _preload(bundle: StartBundle, order: list[str], codes: dict) -> "tuple[str, ...] | None":
    """Make and run ``order``'s modules from ``codes`` (else their entries), those not
    loaded already; the names of those made (none when every one was loaded already: a
    process that imported the launcher before it ran, a test's), or None when there is
    no order, a module of it is stale, or one raised (nothing is left of what this made
    then: the import system does the rest, and raises what a module raises)."""
    if not order:
        return None
    specs = {}
    for name in order:
        if name not in sys.modules:
            spec = bundle.spec_for(name, codes.get(name))
            if spec is None:  # Stale: taken out of the entries, written again at close.
                return None
            specs[name] = spec
    made: dict = {}
    try:
        for name, spec in specs.items():
            module = made.get(name)
            if module is None:
                if name in sys.modules:  # A module run before it imported it.
                    continue
                module = _make(name, specs, made)
            spec.loader.exec_module(module)
    except Exception:
        for name, module in made.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]
            parent, _, child = name.rpartition(".")
            package = sys.modules.get(parent)
            if package is not None and getattr(package, child, None) is module:
                delattr(package, child)
        return None
    return tuple(made)


def _make(name: str, specs: dict, made: dict):
    """A module made from its spec and entered in ``sys.modules`` and in its package
    (made first where needed), as the import system does before running its code."""
    parent, _, child = name.rpartition(".")
    package = (sys.modules.get(parent) or _make(parent, specs, made)) if parent else None
    module = made[name] = module_from_spec(specs[name])
    sys.modules[name] = module
    if package is not None:
        setattr(package, child, module)
    return module


def close_bundle() -> None:
    """The launcher's start is over: take the finder out of ``sys.meta_path``, and write
    the bundle anew if a module of the package was imported past it."""
    global _installed
    # In its package, as an import would have put it (the launcher's script made this
    # module before its package).
    package = sys.modules.get(__name__.rpartition(".")[0])
    if package is not None:
        package.start_bundle = sys.modules[__name__]
    bundle, _installed = _installed, None
    if bundle is None:
        return
    bundle.end_recording()
    if bundle in sys.meta_path:
        sys.meta_path.remove(bundle)
    try:
        bundle.write()
    finally:
        bundle.close()
