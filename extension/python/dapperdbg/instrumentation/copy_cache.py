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

from ..common import code_cache
from ..common.interpreter_types import CodeType
from . import plain_code
from .copies import InstrumentedModule, ProbeSites

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Mapping

    from .probes import Probe

# The stand-in id of the n-th probe (by line) is _PLACEHOLDER - n.
_PLACEHOLDER = -0x5DA9_9E8B_71C3_4000


def _key(filename: str, probes: Mapping[int, Probe], optimize: int,
         restartable: bool) -> bytes:
    return plain_code.cache_key(filename, optimize, restartable,
                                tuple((line, probe.condition)
                                      for line, probe in sorted(probes.items())))


def is_kept(filename: str, probes: Mapping[int, Probe], optimize: int = -1,
            restartable: bool = False) -> bool:
    """Whether ``instrument_file`` would find copies of the file for these probes kept
    (unless the file changed since): then it needs no compiler."""
    return code_cache.has_entry("copies", filename,
                                _key(filename, probes, optimize, restartable))


def instrument_file(source: bytes | str, filename: str, probes: Mapping[int, Probe],
                    optimize: int = -1, restartable: bool = False) -> InstrumentedModule:
    """``compiler.instrument_source``'s result, from the cache when it holds it; else
    compiled (only the definitions holding probes, where segments.py can) and kept.
    Raises InstrumentationError when the source does not compile."""
    ordered = sorted(probes.items())
    key = _key(filename, probes, optimize, restartable)
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
    """What is kept of a module: its code, where its probes run (each copy by its path
    from the module's code: the positions among the constants, one a level), the lines
    accepted and the refusals."""
    path_of: dict[int, tuple[int, ...]] = {id(module.code): ()}
    pending = [module.code]
    for current in pending:
        for position, const in enumerate(current.co_consts):
            if type(const) is CodeType and id(const) not in path_of:
                path_of[id(const)] = path_of[id(current)] + (position,)
                pending.append(const)
    sites = tuple((path_of[id(copy)], found.lines, found.quiet_offsets, found.probe_offsets)
                  for copy, found in module.sites)
    return module.code, sites, tuple(sorted(module.accepted)), dict(module.refused)


def _module_of(kept, filename: str, probes: Mapping[int, Probe], ids: dict[int, int],
               plain_of, plain: types.CodeType | None,
               restartable: bool) -> InstrumentedModule | None:
    """The module a kept entry stands for, with the real probe ids; None for anything
    that is no such entry (a miss)."""
    try:
        code, sites, accepted, refused = kept
        if type(code) is not CodeType:
            return None
        made: dict[tuple[int, ...], types.CodeType] = {}
        root = _relocated(code, (), [path for path, *_ in sites], ids, made)
        return InstrumentedModule(
            filename, root, {line: probes[line] for line in accepted}, dict(refused),
            tuple((made[path], ProbeSites(frozenset(lines), frozenset(quiet),
                                          frozenset(offsets)))
                  for path, lines, quiet, offsets in sites),
            plain_of, plain, restartable, tuple(made[path] for path in sorted(made, key=len)))
    except (TypeError, ValueError, IndexError, KeyError, AttributeError, RecursionError):
        return None


def _relocated(code: types.CodeType, path: tuple[int, ...], paths: list[tuple[int, ...]],
               ids: dict[int, int], made: dict) -> types.CodeType:
    """``code`` (at ``path`` from the module's code) with the code objects on ``paths``
    (relative to it) replaced by copies in which the stand-in ids are the real ones
    (``ids``); the new objects are put in ``made`` by path. Only the copies holding
    probes are rebuilt, from the module's code down."""
    if not paths:
        return code
    below: dict[int, list[tuple[int, ...]]] = {}
    for each in paths:
        if each:
            below.setdefault(each[0], []).append(each[1:])
    constants = list(code.co_consts)
    for position, rest in below.items():
        constants[position] = _relocated(constants[position], (*path, position), rest, ids,
                                         made)
    if () in paths:
        constants = [ids.get(const, const) if type(const) is int else const
                     for const in constants]
    made[path] = code.replace(co_consts=tuple(constants))
    return made[path]
