"""Instrumented copies kept across processes and runs: a file's copies are compiled once
for a set of probes, and every later process of the session (a test suite's children),
and every later run, reads them (common/code_cache.py) while the file's text, the
probes' lines and conditions, the options and this package's compiler stay the same.

A copy calls its probes by id, and ids are fresh each time probes are applied (a frame
still running an old copy must call ids nobody knows, probe_stops.py). So copies are
compiled, and kept, with stand-in ids (``_PLACEHOLDER`` downwards, numbers no program
writes), which are replaced by the real ones in the constants of the copies that hold
probes whenever a module is handed out: the bytecode, and with it what bytecode.py read
from it, stays the same. The stand-ins are large numbers, loaded from the constants on
every version (3.14 loads small integers from the instruction itself).

A hit needs neither ``ast`` nor ``dis``: nothing of the compiler is imported.
"""

from __future__ import annotations

import types

from ..common import code_cache
from . import plain_code
from .copies import InstrumentedModule, ProbeSites, nested_codes

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Mapping

    from .probes import Probe

# The stand-in id of the n-th probe (by line) is _PLACEHOLDER - n.
_PLACEHOLDER = -0x5DA9_9E8B_71C3_4000


def instrument_file(source: bytes | str, filename: str, probes: Mapping[int, Probe],
                    optimize: int = -1, restartable: bool = False) -> InstrumentedModule:
    """``compiler.instrument_source``'s result, from the cache when it holds it; else
    compiled (only the definitions holding probes, where segments.py can) and kept.
    Raises InstrumentationError when the source does not compile."""
    ordered = sorted(probes.items())
    key = plain_code.cache_key(filename, optimize, restartable,
                               tuple((line, probe.condition) for line, probe in ordered))
    text = plain_code.as_bytes(source)

    def plain_of() -> types.CodeType:
        return plain_code.compile_plain(source, filename, optimize, restartable)

    ids = {_PLACEHOLDER - number: probe.probe_id for number, (_, probe) in enumerate(ordered)}
    kept = code_cache.load("copies", filename, key, text)
    module = _module_of(kept, filename, probes, ids, plain_of, None, restartable)
    if module is None:
        from .compiler import instrument_source
        from .probes import Probe
        from .segments import instrument_parts

        stand_ins = {line: Probe(_PLACEHOLDER - number, probe.condition)
                     for number, (line, probe) in enumerate(ordered)}
        compiled = instrument_parts(source, filename, stand_ins, plain_of, optimize,
                                    restartable)
        plain = compiled.plain if compiled is not None else None
        if compiled is None:
            compiled = instrument_source(source, filename, stand_ins, optimize, restartable)
        kept = _entry_of(compiled)
        code_cache.store("copies", filename, key, text, kept)
        module = _module_of(kept, filename, probes, ids, plain_of, plain, restartable)
    return module


def _entry_of(module: InstrumentedModule) -> tuple:
    """What is kept of a module: its code, where its probes run (by the position of the
    copy in ``walk_codes`` order), the lines accepted and the refusals."""
    position_of = {id(code): position for position, code in enumerate(module.copies())}
    sites = tuple((position_of[id(copy)], found.lines, found.quiet_offsets,
                   found.probe_offsets) for copy, found in module.sites)
    return module.code, sites, tuple(sorted(module.accepted)), dict(module.refused)


def _module_of(kept, filename: str, probes: Mapping[int, Probe], ids: dict[int, int],
               plain_of, plain: types.CodeType | None,
               restartable: bool) -> InstrumentedModule | None:
    """The module a kept entry stands for, with the real probe ids; None for anything
    that is no such entry (a miss)."""
    try:
        code, sites, accepted, refused = kept
        codes = _relocated(code, {position for position, *_ in sites}, ids)
        return InstrumentedModule(
            filename, codes[0], {line: probes[line] for line in accepted}, dict(refused),
            tuple((codes[position], ProbeSites(frozenset(lines), frozenset(quiet),
                                               frozenset(offsets)))
                  for position, lines, quiet, offsets in sites),
            plain_of, plain, restartable, codes)
    except (TypeError, ValueError, IndexError, KeyError, AttributeError):
        return None


def _relocated(code: types.CodeType, holding_probes: set[int],
               ids: dict[int, int]) -> tuple[types.CodeType, ...]:
    """Every code object of ``code`` in ``walk_codes`` order, those at
    ``holding_probes`` (positions in that order) and the ones around them with the
    stand-in ids in their constants replaced by ``ids``."""
    codes = [code]
    parents = [-1]
    position = 0
    while position < len(codes):
        for child in nested_codes(codes[position]):
            codes.append(child)
            parents.append(position)
        position += 1
    changed = set()
    for position in holding_probes:
        while position >= 0 and position not in changed:
            changed.add(position)
            position = parents[position]
    new: dict[int, types.CodeType] = {}  # id(old) -> new, children first
    relocated = list(codes)
    for position in sorted(changed, reverse=True):
        old = codes[position]
        replacement = new.get(id(old))
        if replacement is None:
            code_type = types.CodeType
            constants = tuple(
                new.get(id(const), const) if type(const) is code_type
                else ids.get(const, const) if type(const) is int else const
                for const in old.co_consts)
            replacement = new[id(old)] = old.replace(co_consts=constants)
        relocated[position] = replacement
    return tuple(relocated)
