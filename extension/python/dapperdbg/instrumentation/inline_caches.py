"""How many inline cache units follow each opcode (3.11+), for the code that reads and
writes bytecode (bytecode.py, handler_guard.py), from ``opcode`` alone: ``dis`` imports
more, which the restartable compile of a program (handler_guard.py) would pay for.
"""

from __future__ import annotations

import opcode
import sys


def _cache_units() -> list[int] | None:
    """How many inline cache units (3.11+) follow each opcode, from the table ``dis``
    itself reads (a list by opcode on 3.11-3.12, a dict by name on 3.13-3.14, a
    frozendict, no dict subclass, on 3.15). None where it cannot be found: then
    bytecode.py's ``instructions`` asks ``dis``."""
    if sys.version_info < (3, 11):
        return [0] * 256
    entries = getattr(opcode, "_inline_cache_entries", None)
    table = [0] * 256
    if hasattr(entries, "items"):
        for name, count in entries.items():
            op = opcode.opmap.get(name)
            if op is not None and op < 256:
                table[op] = count
    elif isinstance(entries, (list, tuple)):
        for op, count in enumerate(entries[:256]):
            table[op] = count
    else:
        return None
    return table


CACHE_UNITS = _cache_units()


def cache_units(op: int) -> int | None:
    """How many inline cache units follow opcode ``op`` (None: unknown here)."""
    return None if CACHE_UNITS is None else CACHE_UNITS[op]
