"""Which code objects are instrumented copies, of what, and which probe lines each one
handles itself (the tracer must not also stop there).

Readers (the tracer, on any thread, on its hot path) take no lock: every change builds
new dicts and publishes them with one assignment each, so a reader sees the old or the
new state of a file, never half of one. Keys are ``identity(code)`` (from the address,
as ``id`` is), not code objects, because code objects compare by value: equal
functions at equal lines in two files would be one key. The registry holds every code
object it names, so a key stays unique while it is registered; a lookup still checks
identity to be safe against a stale read.
"""

from __future__ import annotations

from ..common.native import allocate_lock
from ..common.records import Record

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types


class CopyInfo(Record, frozen=True):
    """One instrumented copy and the code object it stands in for.

    The original is either given (the live swap: the code the function ran) or, for
    copies a module was imported with, the plain compile's twin of the copy, which is
    compiled only when first asked for (undoing or redoing a swap): the import itself
    never pays for it."""

    canonical: str
    # The original when known (None: ``module.original_of(copy)``, made on demand).
    given_original: types.CodeType | None
    copy: types.CodeType
    # Lines of the copy's own instructions where a probe runs.
    probe_lines: frozenset[int]
    # Offsets where a line event only repeats the probe line's (bytecode.py).
    quiet_offsets: frozenset[int] = frozenset()
    # Offsets of the probes' own instructions, conditions included (bytecode.py).
    probe_offsets: frozenset[int] = frozenset()
    # The InstrumentedModule the copy comes from, for an original made on demand.
    module: object = None

    @property
    def original(self) -> types.CodeType:
        """The code object the copy stands in for (the same object on every call)."""
        if self.given_original is not None:
            return self.given_original
        return self.module.original_of(self.copy)

    def original_if_made(self) -> types.CodeType | None:
        """``original`` without compiling anything: None if not made yet."""
        if self.given_original is not None:
            return self.given_original
        return self.module.known_original_of(self.copy)

    @classmethod
    def of(cls, canonical: str, original: types.CodeType | None, copy: types.CodeType,
           module) -> CopyInfo:
        """The entry for ``copy``, one of the copies of ``module`` (an
        InstrumentedModule), standing in for ``original`` (None: the plain compile's
        code object for ``copy``, made when first needed)."""
        sites = module.sites_of(copy)
        if sites is None:
            return cls(canonical, original, copy, frozenset(), module=module)
        return cls(canonical, original, copy, sites.lines, sites.quiet_offsets,
                   sites.probe_offsets, module)


_NO_LINES: frozenset[int] = frozenset()
# The key of a code object here and in the tracer's tables: unique among live objects
# (a hash of the address), like id(), but ``id()`` raises an audit event on each call,
# which costs a Python call per lookup once any audit hook is installed (sources.py
# installs one).
identity = object.__hash__
# How many replaced copies stay known (they hold their code objects alive).
_RETIRED_LIMIT = 4096


class InstrumentationRegistry:
    def __init__(self) -> None:
        self._write_lock = allocate_lock()
        self._by_file: dict[str, tuple[CopyInfo, ...]] = {}
        # identity(copy) -> CopyInfo, over all files.
        self.copies: dict[int, CopyInfo] = {}
        # identity(copy) -> CopyInfo of the copies replaced or removed since: frames may still
        # run them (a loop at module level, a suspended generator). The tracer covers
        # their breakpoint lines itself, and needs their quiet and probe offsets to
        # read their events as the original's. Bounded: see _RETIRED_LIMIT.
        self.retired: dict[int, CopyInfo] = {}
        # Files whose module code was compiled with restartable functions (the import
        # finder, the main program): recompiles of them (probes, hot reload) must be too,
        # or their functions would no longer match.
        self.restartable_files: frozenset[str] = frozenset()

    # Readers: no lock, no allocation.

    def info_for_copy(self, code: types.CodeType) -> CopyInfo | None:
        info = self.copies.get(identity(code))
        return info if info is not None and info.copy is code else None

    def probe_lines(self, code: types.CodeType) -> frozenset[int]:
        """The lines the probes of ``code`` handle (empty for code that is no copy)."""
        info = self.copies.get(identity(code))
        if info is None or info.copy is not code:
            return _NO_LINES
        return info.probe_lines

    def known_copy(self, code: types.CodeType) -> CopyInfo | None:
        """The entry of ``code`` if it is a copy, current or retired."""
        info = self.copies.get(identity(code))
        if info is None:
            info = self.retired.get(identity(code))
        return info if info is not None and info.copy is code else None

    def copy_of(self, original: types.CodeType) -> types.CodeType | None:
        """The current copy standing in for ``original``. A scan (nothing on a hot path
        asks): originals made on demand are not made for it, and one not made yet was
        never handed out, so it cannot be ``original``."""
        for info in self.copies.values():
            if info.original_if_made() is original:
                return info.copy
        return None

    def original_of(self, code: types.CodeType) -> types.CodeType:
        """The code a copy, current or retired, stands in for; any other code object is
        its own original. A retired copy still runs where a frame was left on an older
        copy of its module: the functions that frame defines run the older copies of
        theirs, and they are still the original's."""
        info = self.known_copy(code)
        return info.original if info is not None else code

    def retired_of_file(self, canonical: str) -> list[CopyInfo]:
        """The retired copies of one file (a scan: asked only when probes change)."""
        return [info for info in self.retired.values() if info.canonical == canonical]

    def files(self) -> tuple[str, ...]:
        return tuple(self._by_file)

    def infos_for_file(self, canonical: str) -> tuple[CopyInfo, ...]:
        return self._by_file.get(canonical, ())

    # Writers.

    def add_restartable_file(self, canonical: str) -> None:
        with self._write_lock:
            self.restartable_files = self.restartable_files | {canonical}

    def set_file(self, canonical: str, infos: tuple[CopyInfo, ...]) -> None:
        """Replace what is registered for one file (an empty tuple forgets it)."""
        with self._write_lock:
            by_file = dict(self._by_file)
            if infos:
                by_file[canonical] = infos
            else:
                by_file.pop(canonical, None)
            self._publish(by_file)

    def add_to_file(self, canonical: str, infos: tuple[CopyInfo, ...]) -> None:
        """Register more copies for a file, keeping those already there."""
        with self._write_lock:
            by_file = dict(self._by_file)
            by_file[canonical] = by_file.get(canonical, ()) + infos
            self._publish(by_file)

    def _publish(self, by_file: dict[str, tuple[CopyInfo, ...]]) -> None:
        copies: dict[int, CopyInfo] = {}
        for infos in by_file.values():
            for info in infos:
                copies[identity(info.copy)] = info
        dropped = {key: info for key, info in self.copies.items() if key not in copies}
        if dropped:
            retired = {key: info for key, info in self.retired.items() if key not in copies}
            retired.update(dropped)
            if len(retired) > _RETIRED_LIMIT:
                # The oldest go first (dicts keep insertion order): frames still running
                # them after this many breakpoint changes are unlikely, and would only
                # see a line event twice where a conditional probe was.
                retired = dict(list(retired.items())[-_RETIRED_LIMIT:])
            self.retired = retired
        # The file table last: a reader going through it then finds its copies.
        self.copies = copies
        self._by_file = by_file
