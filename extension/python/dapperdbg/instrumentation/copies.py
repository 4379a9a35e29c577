"""An instrumented module: its code with the probes, where they run, and the plain code
each copy stands in for; and walking the trees of code objects of two compiles side by
side.

Kept apart from the compiler, which imports ``ast`` and ``dis``: a module served from
the cache of copies (copy_cache.py) needs neither.
"""

from __future__ import annotations

import sys

from ..common.interpreter_types import CodeType
from ..common.native import allocate_lock
from ..common.records import Record

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable, Iterator, Mapping

    from .probes import Probe


class ProbeSites(Record, frozen=True):
    """Where one copy's own instructions run probes (bytecode.py finds them)."""

    lines: frozenset[int]
    quiet_offsets: frozenset[int]
    probe_offsets: frozenset[int]


class InstrumentationError(Exception):
    """The file cannot be instrumented at all; the message is meant for the user."""


class InstrumentedModule:
    """The result of instrumenting one file's source.

    ``code`` is the module code with the accepted probes (the plain code when none
    was accepted). ``plain`` (the module code of the source as it is, compiled as the
    import system would) and ``pairs`` are made on first use, once: the import path
    never needs them, the live swap and undoing a swap do."""

    def __init__(self, filename: str, code: types.CodeType, accepted: Mapping[int, Probe],
                 refused: Mapping[int, str],
                 sites: tuple[tuple[types.CodeType, ProbeSites], ...],
                 plain_of: Callable[[], types.CodeType],
                 plain: types.CodeType | None = None, restartable: bool = False,
                 holding: tuple[types.CodeType, ...] | None = None) -> None:
        self.filename = filename
        # Compiled with restartable functions (restartable.py): then ``plain`` is that
        # compile without probes, the code the file's functions run when they have none.
        self.restartable = restartable
        self.code = code
        self.accepted = accepted
        self.refused = refused
        # (copy, where its own instructions run probes) for the copies that have probes.
        self.sites = sites
        self._sites_by_copy = {id(copy): found for copy, found in sites}
        self._plain_of = plain_of
        self._lock = allocate_lock()
        self._plain = plain
        self._pairs: tuple[tuple[types.CodeType, types.CodeType], ...] | None = None
        self._originals: dict[int, types.CodeType] | None = None
        self._copies: tuple[types.CodeType, ...] | None = None
        # The copies holding probes, parents before children, when the caller has them
        # (else found from every copy).
        self._holding = holding

    @property
    def plain(self) -> types.CodeType:
        """The plain compile of the source (compiled on first use)."""
        with self._lock:
            if self._plain is None:
                self._plain = self._plain_of()
            return self._plain

    @property
    def pairs(self) -> tuple[tuple[types.CodeType, types.CodeType], ...]:
        """(plain, copy) for every code object of the module, parents before children."""
        plain = self.plain
        with self._lock:
            if self._pairs is None:
                try:
                    pairs = tuple(walk_pairs(plain, self.code))
                except ShapeMismatch:
                    raise InstrumentationError(
                        f"{self.filename}: the instrumented code does not match the plain "
                        "compile (a bug)") from None
                self._originals = {id(copy): original for original, copy in pairs}
                self._pairs = pairs
            return self._pairs

    def original_of(self, copy: types.CodeType) -> types.CodeType:
        """The plain code object ``copy`` (one of this module's) stands in for."""
        self.pairs  # noqa: B018 - made on first use.
        return self._originals[id(copy)]

    def known_original_of(self, copy: types.CodeType) -> types.CodeType | None:
        """``original_of(copy)`` if the plain compile was made already, else None."""
        with self._lock:
            originals = self._originals
        return originals.get(id(copy)) if originals is not None else None

    def sites_of(self, copy: types.CodeType) -> ProbeSites | None:
        return self._sites_by_copy.get(id(copy))

    def copies(self) -> list[types.CodeType]:
        """Every code object of ``code``, parents before children."""
        if self._copies is None:
            self._copies = tuple(walk_codes(self.code))
        return list(self._copies)

    def copies_holding_probes(self) -> set[int]:
        """Ids of the copies with a probe in their own code or in code nested in it:
        the functions that must run a copy. The others equal their plain code."""
        return {id(copy) for copy in self.holding_copies()}

    def holding_copies(self) -> tuple[types.CodeType, ...]:
        """The copies with a probe in their own code or in code nested in it, parents
        before children."""
        if self._holding is None:
            holding: set[int] = set()
            for copy in reversed(self.copies()):
                if id(copy) in self._sites_by_copy or any(
                    id(child) in holding for child in nested_codes(copy)
                ):
                    holding.add(id(copy))
            self._holding = tuple(copy for copy in self.copies() if id(copy) in holding)
        return self._holding


class ShapeMismatch(Exception):
    """Two compiles that should be of the same code have trees of different shapes."""


def nested_codes(code: types.CodeType) -> list[types.CodeType]:
    code_type = CodeType
    return [const for const in code.co_consts if type(const) is code_type]


def walk_codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and every code object nested in it, parents before children."""
    # A list read from the front, not a deque: collections is not imported at start
    # on every version (this module is).
    pending = [code]
    position = 0
    while position < len(pending):
        current = pending[position]
        position += 1
        yield current
        pending.extend(nested_codes(current))


def walk_pairs(first: types.CodeType, second: types.CodeType
               ) -> Iterator[tuple[types.CodeType, types.CodeType]]:
    """Pairs of corresponding code objects of two compiles of the same code, parents
    before children. Raises ShapeMismatch if the trees differ in shape."""
    pending = [(first, second)]
    position = 0
    while position < len(pending):
        a, b = pending[position]
        position += 1
        yield a, b
        children_a, children_b = nested_codes(a), nested_codes(b)
        if len(children_a) != len(children_b):
            raise ShapeMismatch
        for x, y in zip(children_a, children_b):
            if x.co_name != y.co_name:
                raise ShapeMismatch
            pending.append((x, y))


def same_code(first: types.CodeType, second: types.CodeType) -> bool:
    """Equal code, line tables included (3.9-3.10 leave them out of ``==``)."""
    if first != second:
        return False
    if sys.version_info >= (3, 11):
        return True
    try:
        return all(a.co_lnotab == b.co_lnotab for a, b in walk_pairs(first, second))
    except ShapeMismatch:
        return False
