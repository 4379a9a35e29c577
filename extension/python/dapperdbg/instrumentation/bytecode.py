"""Reading a compiled copy: where its probes run, for the tracer.

Three facts per copy, all found in its own instructions (so they hold for whatever the
compiler of this Python version made of the inserted statements):

- ``lines``: the lines whose probe runs in this code object. The tracer does not also
  evaluate breakpoints there.
- ``quiet_offsets``: where a line event only repeats the one the probe's first
  instruction gave on the same line. The statement's own code may begin after a jump
  from an instruction without a line (3.10-3.11), and entering a probe's except block
  (a condition raised) is reported as a line event on 3.9 and 3.11+. The tracer ignores
  line events at these offsets, so a thread stepping through a copy sees exactly the
  line events of the original.
- ``probe_offsets``: the instructions of the probes themselves, conditions included
  (with their inline caches, where a caller's ``f_lasti`` may point during a call).
  An exception raised at one of them is a condition's, which the probe reports: the
  tracer does not treat it as an exception raised by the program.

Only the instructions on the probe lines are decoded (with the lineless ones right
after them: jumps and exception cleanup), not the whole code object: a module body
holding a large literal has tens of thousands of instructions, which ``dis`` takes
tens of milliseconds to read, while a probe's are a few dozen. ``instructions`` below
decodes a byte range itself; tests compare it with ``dis`` over whole code objects.
"""

from __future__ import annotations

import dis
import itertools
import sys
from collections.abc import Collection, Iterator

from .copies import ProbeSites
from .inline_caches import CACHE_UNITS as _CACHE_UNITS
from .probes import PROBE_NAME

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

_PASS_THROUGH = frozenset({"POP_BLOCK", "POP_EXCEPT", "NOP"})
_JUMPS = frozenset({"JUMP_FORWARD", "JUMP_ABSOLUTE", "JUMP", "JUMP_NO_INTERRUPT"})
_HAS_POSITIONS = sys.version_info >= (3, 11)


_EXTENDED_ARG = dis.EXTENDED_ARG
_JREL = frozenset(dis.hasjrel)
_JABS = frozenset(dis.hasjabs)
_NAME_OPS = frozenset(dis.opmap[name] for name in ("LOAD_GLOBAL", "LOAD_NAME"))
_LOAD_CONST = dis.opmap["LOAD_CONST"]
# 3.14+ loads small integers (a probe's id among them) from the argument itself, and
# some constants from a table (3.15: True, which marks a probe's error call, among them).
_LOAD_SMALL_INT = dis.opmap.get("LOAD_SMALL_INT", -1)
_LOAD_COMMON_CONSTANT = dis.opmap.get("LOAD_COMMON_CONSTANT", -1)
_COMMON_CONSTANTS = tuple(getattr(dis, "_common_constants", ()))
# 3.10 counts jump arguments in code units, 3.9 in bytes.
_JUMP_UNIT = 1 if sys.version_info < (3, 10) else 2


class Instruction:
    """One decoded instruction: what the probe readers below need of ``dis``'s.
    ``argval`` is set for name and constant loads and for jumps (their target), else
    None; ``end`` is the offset after it and its inline caches; ``line`` is its line,
    or the one before it where it has none (as ``dis`` reports lines before 3.11);
    ``positions`` is its ``co_positions`` entry on 3.11+."""

    __slots__ = ("offset", "end", "opname", "arg", "argval", "line", "positions")

    def __init__(self, offset, end, opname, arg, argval, line, positions) -> None:
        self.offset = offset
        self.end = end
        self.opname = opname
        self.arg = arg
        self.argval = argval
        self.line = line
        self.positions = positions

    def __repr__(self) -> str:
        return f"<{self.offset} {self.opname} {self.arg} {self.argval!r} line {self.line}>"


def line_ranges(code: types.CodeType) -> list[tuple[int, int, int | None]]:
    """(start, end, line) byte ranges of ``code``'s instructions, as ``co_lines``
    (which 3.9 lacks: there the line table is read with ``dis.findlinestarts``)."""
    if sys.version_info >= (3, 10):
        return list(code.co_lines())
    starts = list(dis.findlinestarts(code))
    ends = [offset for offset, _ in starts[1:]] + [len(code.co_code)]
    return [(start, end, line) for (start, line), end in zip(starts, ends)]


def instructions(code: types.CodeType, ranges) -> list[Instruction]:
    """The instructions in ``ranges`` (sorted, disjoint (start, end, line) byte ranges
    on instruction boundaries), in order. Arguments, jump targets and names are worked
    out as ``dis`` does for this version."""
    if _CACHE_UNITS is None:
        return _instructions_from_dis(code, ranges)
    raw = code.co_code
    names, consts = code.co_names, code.co_consts
    opnames = dis.opname
    positions_left = code.co_positions() if _HAS_POSITIONS else None
    consumed = 0  # Code units of ``positions_left`` already read.
    result: list[Instruction] = []
    positions: list = []
    offset = extended = 0
    for start, stop, line in ranges:
        if start < offset:
            # The range begins inside the caches of the instruction read last (3.11
            # splits a long instruction's line table entry in parts).
            start = offset
        elif start > offset:
            extended = 0  # A gap: no EXTENDED_ARG carries over.
        if line is None and result and result[-1].end == start:
            line = result[-1].line
        if start >= stop:
            continue
        if positions_left is not None:
            positions = list(itertools.islice(positions_left, start // 2 - consumed,
                                              stop // 2 - consumed))
            consumed = stop // 2
        offset = start
        while offset < stop:
            op, arg = raw[offset], raw[offset + 1] | extended
            extended = arg << 8 if op == _EXTENDED_ARG else 0
            end = offset + 2 + 2 * _CACHE_UNITS[op]
            opname = opnames[op]
            argval = None
            if op in _NAME_OPS:
                argval = names[arg >> 1 if _HAS_POSITIONS and opname == "LOAD_GLOBAL" else arg]
            elif op == _LOAD_CONST:
                argval = consts[arg]
            elif op == _LOAD_SMALL_INT:
                argval = arg
            elif op == _LOAD_COMMON_CONSTANT and arg < len(_COMMON_CONSTANTS):
                argval = _COMMON_CONSTANTS[arg]
            elif op in _JREL:
                if _HAS_POSITIONS:
                    argval = end - arg * 2 if "BACKWARD" in opname else end + arg * 2
                else:
                    argval = offset + 2 + arg * _JUMP_UNIT
            elif op in _JABS:
                argval = arg * _JUMP_UNIT
            result.append(Instruction(
                offset, end, opname, arg, argval, line,
                positions[(offset - start) // 2] if positions_left is not None else None))
            offset = end
    return result


def _instructions_from_dis(code: types.CodeType, ranges) -> list[Instruction]:
    """``instructions`` read with ``dis`` over the whole code object (slow): for a
    Python whose inline cache table is not where inline_caches.py looks."""
    wanted = {}
    for start, stop, line in ranges:
        for offset in range(start, stop, 2):
            wanted[offset] = line
    every = list(dis.get_instructions(code))
    result: list[Instruction] = []
    for index, instruction in enumerate(every):
        if instruction.offset not in wanted:
            continue
        end = every[index + 1].offset if index + 1 < len(every) else len(code.co_code)
        line = wanted[instruction.offset]
        if line is None and result and result[-1].end == instruction.offset:
            line = result[-1].line
        opcode = instruction.opcode
        keeps_argval = (opcode in _NAME_OPS
                        or opcode in (_LOAD_CONST, _LOAD_SMALL_INT, _LOAD_COMMON_CONSTANT)
                        or opcode in _JREL or opcode in _JABS)
        positions = getattr(instruction, "positions", None)
        result.append(Instruction(instruction.offset, end, instruction.opname,
                                  instruction.arg, instruction.argval if keeps_argval else None,
                                  line, tuple(positions) if positions is not None else None))
    return result


def _probe_ranges(code: types.CodeType, lines: Collection[int] | None):
    """The line ranges on ``lines`` (all of them for None), each with the lineless
    ranges right before and after it (exception bookkeeping, jumps)."""
    every = line_ranges(code)
    if lines is None:
        return [entry for entry in every if entry[0] < entry[1]]
    chosen: list[tuple[int, int, int | None]] = []
    for index, (start, stop, line) in enumerate(every):
        if start == stop or line not in lines:
            continue
        before = index
        while before > 0 and every[before - 1][2] is None:
            before -= 1
        chosen.extend(entry for entry in every[before:index] if entry[0] < entry[1])
        chosen.append((start, stop, line))
        after = index + 1
        while after < len(every) and every[after][2] is None:
            if every[after][0] < every[after][1]:
                chosen.append(every[after])
            after += 1
        if after < len(every) and every[after][0] < every[after][1]:
            # And the first instruction after them, where the statement's own code may
            # go on (on another line: the probe readers look one instruction ahead).
            chosen.append((every[after][0], every[after][0] + 2, every[after][2]))
    # A range between two chosen lines is taken once, and whole.
    merged: list[tuple[int, int, int | None]] = []
    for entry in sorted(set(chosen)):
        if merged and merged[-1][0] == entry[0]:
            merged[-1] = max(merged[-1], entry)
        else:
            merged.append(entry)
    return merged


class _Undecoded(Exception):
    """Reading the probes needs an instruction outside the decoded ranges."""


class _Decoded:
    """Decoded instructions of parts of one code object, and how to move between them
    without leaving what was decoded unnoticed."""

    def __init__(self, code: types.CodeType, ranges) -> None:
        self.items = instructions(code, ranges)
        self.at = {instruction.offset: position
                   for position, instruction in enumerate(self.items)}
        self._size = len(code.co_code)

    def next(self, position: int) -> int | None:
        """The position of the instruction after the one at ``position`` in the code
        (None at the end of the code)."""
        end = self.items[position].end
        if end >= self._size:
            return None
        following = self.at.get(end)
        if following is None:
            raise _Undecoded
        return following

    def previous(self, position: int) -> int | None:
        offset = self.items[position].offset
        if offset == 0:
            return None
        if position > 0 and self.items[position - 1].end == offset:
            return position - 1
        raise _Undecoded

    def run(self, position: int, count: int) -> Iterator[Instruction]:
        """Up to ``count`` instructions that follow the one at ``position`` in the code
        (read as the caller goes: it may stop before an undecoded one)."""
        current: int | None = position
        for _ in range(count):
            current = self.next(current)
            if current is None:
                return
            yield self.items[current]

    def target(self, instruction: Instruction) -> int:
        position = self.at.get(instruction.argval)
        if position is None:
            raise _Undecoded
        return position


def find_probe_sites(code: types.CodeType, lines: Collection[int] | None = None
                     ) -> ProbeSites | None:
    """Where ``code`` runs probes, or None if it runs none. ``lines``: the only lines
    where a probe may be (None: anywhere). Only their instructions are read, unless the
    probes turn out to reach further (then the whole code object is)."""
    if PROBE_NAME not in code.co_names:
        return None
    try:
        return _sites(_Decoded(code, _probe_ranges(code, lines)))
    except _Undecoded:
        pass
    try:
        return _sites(_Decoded(code, _probe_ranges(code, None)))
    except _Undecoded:
        # Only a jump into the middle of an instruction could get here.
        return None


def _sites(decoded: _Decoded) -> ProbeSites | None:
    found = _probe_lines(decoded)
    if not found:
        return None
    return ProbeSites(found, _quiet_offsets(decoded, found),
                      _with_caches(decoded, _probe_offsets(decoded, found)))


def _with_caches(decoded: _Decoded, offsets: frozenset[int]) -> frozenset[int]:
    """``offsets`` plus the inline cache units after each of those instructions (3.11+):
    a caller's ``f_lasti`` during a call can point into the CALL's caches."""
    covered = set(offsets)
    for instruction in decoded.items:
        if instruction.offset in offsets:
            covered.update(range(instruction.offset, instruction.end, 2))
    return frozenset(covered)


def _is_probe_load(instruction: Instruction) -> bool:
    return instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME") and instruction.argval == PROBE_NAME


def _probe_lines(decoded: _Decoded) -> frozenset[int]:
    """The lines of the probe calls (``__dapper_probe__(id…)``) among the instructions."""
    found: set[int] = set()
    for position, instruction in enumerate(decoded.items):
        if not _is_probe_load(instruction) or instruction.line is None:
            continue
        for following in decoded.run(position, 3):
            if following.opname.startswith("LOAD_") and type(following.argval) is int:
                found.add(instruction.line)
                break
    return frozenset(found)


def _is_error_probe_call(decoded: _Decoded, position: int) -> bool:
    """Whether ``__dapper_probe__(id, True)`` starts at ``position``: the call a probe's
    except block makes (the call a condition leads to passes the id alone)."""
    if not _is_probe_load(decoded.items[position]):
        return False
    arguments = []
    for instruction in decoded.run(position, 5):
        if instruction.opname.startswith(("CALL", "PRECALL")):
            break
        if instruction.opname != "PUSH_NULL":
            arguments.append(instruction)
    return len(arguments) == 2 and arguments[1].argval is True


def _handler_start(decoded: _Decoded, position: int) -> int:
    """The position where the except block holding the error call at ``position``
    begins: it first drops the exception (one POP_TOP on 3.11+, three before)."""
    start = position
    for _ in range(3):
        before = decoded.previous(start)
        if before is None or decoded.items[before].opname != "POP_TOP":
            break
        start = before
    return start


def _after_call(decoded: _Decoded, position: int) -> int | None:
    """The position of the POP_TOP that ends the probe call starting at ``position``."""
    current = position
    for _ in range(7):
        current = decoded.next(current)
        if current is None:
            return None
        if decoded.items[current].opname.startswith("CALL"):
            following = decoded.next(current)
            if following is not None and decoded.items[following].opname == "POP_TOP":
                return following
    return None


def _rejoin(decoded: _Decoded, position: int) -> int | None:
    """The position of the first instruction run after the probe call that starts at
    ``position`` returns: past its POP_TOP, block bookkeeping and jumps."""
    current = _after_call(decoded, position)
    if current is None:
        return None
    current = decoded.next(current)
    for _ in range(8):  # Bounded: a few bookkeeping instructions at most.
        if current is None:
            return None
        instruction = decoded.items[current]
        if instruction.opname in _PASS_THROUGH:
            current = decoded.next(current)
        elif instruction.opname in _JUMPS and instruction.argval is not None:
            current = decoded.target(instruction)
        else:
            return current
    return None


def _quiet_offsets(decoded: _Decoded, lines: frozenset[int]) -> frozenset[int]:
    offsets = set()
    for position, instruction in enumerate(decoded.items):
        if not _is_probe_load(instruction):
            continue
        try:
            rejoin = _rejoin(decoded, position)
        except _Undecoded:
            # What runs next was not decoded, so it is on no probe line: a real event.
            rejoin = None
        # Only the same line repeats: the next statement's line is a real event.
        if rejoin is not None and decoded.items[rejoin].line == instruction.line:
            offsets.add(decoded.items[rejoin].offset)
        if _is_error_probe_call(decoded, position):
            start = _handler_start(decoded, position)
            if start < position and decoded.items[start].line in lines:
                offsets.add(decoded.items[start].offset)
    return frozenset(offsets)


def _probe_offsets(decoded: _Decoded, lines: frozenset[int]) -> frozenset[int]:
    items = decoded.items
    if _HAS_POSITIONS:
        # Every inserted node is located zero-width; the program's own never are.
        # (A co_positions entry is: line, end line, column, end column.)
        return frozenset(
            instruction.offset for instruction in items
            if instruction.positions is not None
            and instruction.positions[0] in lines
            and instruction.positions[2] == instruction.positions[3] == 0
        )
    # 3.9-3.10: a conditional probe is one block, from its SETUP_FINALLY to where the
    # statement's own code begins (its except block lies inline, in between); an
    # unconditional one is its call.
    offsets: set[int] = set()
    for position in range(len(items)):
        if _is_error_probe_call(decoded, position):
            handler = items[_handler_start(decoded, position)].offset
            setups = [p for p in range(position) if items[p].opname == "SETUP_FINALLY"
                      and items[p].argval == handler]
            end = _rejoin(decoded, position)
            if setups and end is not None:
                _check_contiguous(decoded, setups[-1], end)
                offsets.update(i.offset for i in items[setups[-1]:end])
    for position, instruction in enumerate(items):
        if _is_probe_load(instruction) and instruction.offset not in offsets:
            end = _after_call(decoded, position)
            if end is not None:
                offsets.update(i.offset for i in items[position:end + 1])
    return frozenset(offsets)


def _check_contiguous(decoded: _Decoded, first: int, last: int) -> None:
    """Raise _Undecoded if instructions between ``first`` and ``last`` were skipped."""
    for position in range(first, last):
        if decoded.next(position) != position + 1:
            raise _Undecoded
