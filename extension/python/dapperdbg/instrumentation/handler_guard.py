"""A guard in front of a restartable function's handler (restartable.py), on 3.11+: an
exception that is no GeneratorExit leaves the frame without entering the handler, and
until a restart is on its way no exception meets the guard at all (its entries idle).

The handler restartable.py writes for 3.11+ catches every exception (``except:``): the
guard is its match. A compiler's handler costs an exception that leaves the function
more: matched, re-raised, and re-raised again from the handler's cleanup, three steps of
unwinding in that frame where a plain function has one. In code that raises through
many frames (parsers, lookups with a fallback) that cost the program 10-30% of its time.
The compiler can express no cheaper handler, so the compiled code is changed: the body's
exception table entries point at a few instructions appended to the code, which match
the exception against GeneratorExit and re-raise anything else at once with no handler
around them (one more step of unwinding), from the instruction that raised it (the
entries push its offset, as the compiler's own cleanup entries do): a trace function
sees the frame leave on that line, as it does plain. A GeneratorExit jumps to the
handler, which runs as the compiler made it. Appended, the guard moves no instruction:
offsets, jumps and the line table stay valid, and the guard's instructions have no line
(no line event, and nothing in a traceback: the exception's entry for this frame was
made where it was raised). The name ``GeneratorExit`` is added to the function's names
where it has none.

The guard still cost such an exception one more step of unwinding per frame (the entry
found, four instructions, the re-raise: 20-50 ns on frames of 90-190 ns), and nothing
needs it but a restart. So the entries that lead to it are written *idle*: each covers
its first code unit only, its length's varint padded with zero digits to the width of
the real one. A region of the body starts with a load, a ``COPY`` or a ``POP_EXCEPT``
(a bare ``raise`` in 2 of some 10,000 regions of the standard library's modules), never
a call: an exception raised in a callee, or anywhere but at that first unit, leaves the
function as it leaves the plain one (the interpreter finds no entry for it), a
GeneratorExit of the program's included, and one raised there still goes through the
guard, as before. An entry of no length would cover nothing at all, but tools that
rewrite bytecode read such a table as malformed (torch.compile refuses the function).
The table with the real lengths is kept as the function's last constant
(``(ARMED_TABLE, table)``: a constant no instruction loads); ``arm`` writes it over the
idle one, in place and of the same size, in the function that a restart is about to
unwind to, and ``disarm`` writes the idle one back once the restart is taken (or
abandoned), so that the code compares equal to a fresh compile of its text again. The
table is a ``bytes`` object changed in place: its hash is taken before the first write
(a bytes object keeps it, and code objects hash their table), so that a code object
used as a key stays where it was filed; each function has its own table object, never
shared with a function whose real lengths differ.

3.9 and 3.10 set up their handlers with block instructions, and are left as compiled.
"""

from __future__ import annotations

import opcode
import sys

from ..common.interpreter_types import CodeType
from .inline_caches import cache_units as _cache_units
from .restarts import is_restartable

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

_PUSH_EXC_INFO = opcode.opmap.get("PUSH_EXC_INFO", -1)
_LOAD_GLOBAL = opcode.opmap["LOAD_GLOBAL"]
_CHECK_EXC_MATCH = opcode.opmap.get("CHECK_EXC_MATCH", -1)
_POP_JUMP_IF_FALSE = opcode.opmap.get("POP_JUMP_IF_FALSE",
                                 opcode.opmap.get("POP_JUMP_FORWARD_IF_FALSE", -1))
_JUMP_BACKWARD = opcode.opmap.get("JUMP_BACKWARD", -1)
_RERAISE = opcode.opmap.get("RERAISE", -1)
_SWAP = opcode.opmap.get("SWAP", -1)
_POP_TOP = opcode.opmap["POP_TOP"]
# An exception table entry's flag (its lowest bit, beside the stack depth): the offset of
# the raising instruction goes on the stack under the exception.
_PUSHES_OFFSET = 1
_EXTENDED_ARG = opcode.EXTENDED_ARG
GUARDED = sys.version_info >= (3, 11) and _cache_units(_LOAD_GLOBAL) is not None
# A location table entry for up to 8 code units without a location (3.11+).
_NO_LOCATION = 0x80 | (15 << 3)
# The first item of the constant that keeps a guarded function's armed table.
ARMED_TABLE = "__dapper_armed_table__"


def guard_handlers(code: types.CodeType) -> types.CodeType:
    """``code`` with the guard in every restartable function among it and its nested
    code objects; the same object where there is none to add (other code, 3.9-3.10, a
    function guarded already)."""
    return _guard_tree(code, {}, {}) if GUARDED else code


def _guard_tree(code: types.CodeType, made: dict, shared: dict) -> types.CodeType:
    consts = code.co_consts
    nested = tuple(_guard_tree(const, made, shared) if type(const) is CodeType
                   else const for const in consts)
    changes = {}
    if any(new is not old for new, old in zip(nested, consts)):
        changes["co_consts"] = nested
    if is_restartable(code):
        # The compiler shares equal line tables and names between code objects, which
        # the cache's marshal then writes once and loads as one object: the guarded
        # functions share their equal tables and names too.
        # Not the idle table: equal idle tables may stand for different real lengths,
        # and arming one function must not arm another differently.
        key = (code.co_code, code.co_linetable, code.co_exceptiontable, code.co_names)
        guarded = made.get(key, False)
        if guarded is False:
            guarded = _guarded(code)
            if guarded is not None:
                guarded = (*guarded[:2], *(shared.setdefault(part, part)
                                           for part in guarded[2:4]), guarded[4])
            made[key] = guarded
        if guarded is not None:
            (changes["co_code"], changes["co_exceptiontable"], changes["co_linetable"],
             changes["co_names"], armed) = guarded
            changes["co_consts"] = changes.get("co_consts", consts) + (armed,)
    return code.replace(**changes) if changes else code


def _guarded(code: types.CodeType) -> tuple[bytes, bytes, bytes, tuple, tuple] | None:
    """The guarded function's code, idle exception table, line table, names and the
    constant that keeps its armed table; None where its handler is not the one
    restartable.py writes."""
    raw = code.co_code
    entries = _read_table(code.co_exceptiontable)
    # The restart handler is the last one the code has: the compiler emits a handler
    # after its try's body, and the restart's try holds the whole body. Its clause
    # catches everything (``except:``, whose code starts by dropping the exception).
    handler = max((target for _, _, target, _ in entries
                   if raw[target * 2] == _PUSH_EXC_INFO), default=None)
    if (handler is None or raw[handler * 2 + 2] != _POP_TOP
            or _line_at(code, handler * 2 + 2) != code.co_firstlineno):
        return None
    names = code.co_names
    if "GeneratorExit" not in names:
        names += ("GeneratorExit",)
    start = len(raw)
    # LOAD_GLOBAL's argument is the name's index shifted left (its lowest bit: push a
    # NULL for a call, not wanted here).
    guard = bytearray(_with_prefixes(_LOAD_GLOBAL, names.index("GeneratorExit") << 1))
    guard += _instruction(_CHECK_EXC_MATCH, 0)
    # A GeneratorExit: without the offset the entries push, on to the handler.
    to_handler = _instruction(_SWAP, 2) + _instruction(_POP_TOP, 0)
    to_handler += _jump_back(start + len(guard) + 2 + 2 * _caches(_POP_JUMP_IF_FALSE)
                             + len(to_handler), handler * 2)
    guard += _instruction(_POP_JUMP_IF_FALSE, len(to_handler) // 2)
    guard += to_handler
    # Anything else: raised on from where it was raised (the offset the entries push),
    # so that the frame leaves on that line, as it does plain.
    guard += _instruction(_RERAISE, 1)
    retargeted = [(first, end, start // 2, depth | _PUSHES_OFFSET) if target == handler
                  else (first, end, target, depth)
                  for first, end, target, depth in entries]
    units = len(guard) // 2
    locations = bytearray()
    while units:
        run = min(units, 8)
        locations.append(_NO_LOCATION | (run - 1))
        units -= run
    armed = _write_table(retargeted)
    return (raw + bytes(guard), _idle(armed), code.co_linetable + bytes(locations), names,
            (ARMED_TABLE, armed))


def _caches(op: int) -> int:
    return _cache_units(op) or 0


def _instruction(op: int, arg: int) -> bytes:
    return bytes((op, arg)) + bytes(2 * _caches(op))


def _with_prefixes(op: int, arg: int) -> bytes:
    """The instruction, with the EXTENDED_ARG prefixes an argument past 255 needs."""
    prefixes = b""
    shift = 8
    while arg >> shift:
        shift += 8
    for high in range(shift - 8, 0, -8):
        prefixes += bytes((_EXTENDED_ARG, (arg >> high) & 0xFF))
    return prefixes + _instruction(op, arg & 0xFF)


def _jump_back(at: int, target: int) -> bytes:
    """A JUMP_BACKWARD placed at offset ``at`` to offset ``target`` (EXTENDED_ARG first
    where the distance needs it: the distance counts from the end of the jump)."""
    size = 2 + 2 * _caches(_JUMP_BACKWARD)
    for prefixes in range(4):
        distance = (at + 2 * prefixes + size - target) // 2
        if distance < 1 << (8 * (prefixes + 1)):
            parts = [(distance >> (8 * shift)) & 0xFF for shift in range(prefixes, 0, -1)]
            return (b"".join(bytes((_EXTENDED_ARG, part)) for part in parts)
                    + _instruction(_JUMP_BACKWARD, distance & 0xFF))
    raise ValueError("the code is too long to jump back")


def _line_at(code: types.CodeType, offset: int) -> int | None:
    for start, end, line in code.co_lines():
        if start <= offset < end:
            return line
    return None


def _read_table(table: bytes) -> list[tuple[int, int, int, int]]:
    """The exception table's entries: (start, end, target, depth and lasti), in code
    units, as CPython writes them (3.11+: 6-bit big-endian varints, 0x40 continues,
    0x80 marks an entry's first byte)."""
    values: list[int] = []
    value = 0
    for byte in table:
        value = (value << 6) | (byte & 0x3F)
        if not byte & 0x40:
            values.append(value)
            value = 0
    return [(start, start + length, target, depth)
            for start, length, target, depth in zip(*[iter(values)] * 4)]


def _write_table(entries: list[tuple[int, int, int, int]],
                 idle_target: int | None = None) -> bytes:
    """The table of ``entries``; those that lead to ``idle_target`` covering their first
    code unit only, their length written as wide as their real one (leading zero
    digits)."""
    out = bytearray()
    for start, end, target, depth in entries:
        for position, value in enumerate((start, end - start, target, depth)):
            chunks = [value & 0x3F]
            value >>= 6
            while value:
                chunks.append(value & 0x3F)
                value >>= 6
            if position == 1 and target == idle_target:
                chunks = [1] + [0] * (len(chunks) - 1)
            chunks.reverse()
            encoded = [chunk | 0x40 for chunk in chunks[:-1]] + [chunks[-1]]
            if position == 0:
                encoded[0] |= 0x80
            out += bytes(encoded)
    return bytes(out)


def _idle(armed: bytes) -> bytes:
    """``armed`` with the entries that lead to the guard (the last target: it is
    appended after the compiler's code) covering their first code unit only, at the
    same size."""
    entries = _read_table(armed)
    return _write_table(entries, max(target for _, _, target, _ in entries))


def _armed_table(code: types.CodeType) -> bytes | None:
    """The table with the guard's entries in force, where ``code`` was guarded."""
    consts = code.co_consts
    last = consts[-1] if consts else None
    if (type(last) is tuple and len(last) == 2 and last[0] == ARMED_TABLE
            and type(last[1]) is bytes and len(last[1]) == len(code.co_exceptiontable)):
        return last[1]
    return None


def arm(code: types.CodeType) -> bool:
    """Put the guard's entries of ``code`` in force: a frame running it catches what a
    restart raises (and every exception leaving it goes through the guard, until
    ``disarm``). False where ``code`` has no idle entries (not guarded here)."""
    armed = _armed_table(code)
    if armed is None:
        return False
    _write_over(code.co_exceptiontable, armed)
    return True


def disarm(code: types.CodeType) -> None:
    """Make the guard's entries of ``code`` idle again (as compiled)."""
    armed = _armed_table(code)
    if armed is not None:
        _write_over(code.co_exceptiontable, _idle(armed))


def _write_over(table: bytes, content: bytes) -> None:
    """Write ``content`` over the bytes of ``table`` (the same size), in place, with the
    interpreter's lock held (a ctypes array's slice assignment copies in C)."""
    if table == content:
        return
    import ctypes  # Only a restart writes a table.

    hash(table)  # Kept from now on: the code object's hash stays what it was.
    start = id(table) + bytes.__basicsize__ - 1  # ob_sval: past the header and hash.
    (ctypes.c_char * len(table)).from_address(start)[:] = content
