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
"""

from __future__ import annotations

import dis
import sys
import types
from dataclasses import dataclass

from .probes import PROBE_NAME

_PASS_THROUGH = frozenset({"POP_BLOCK", "POP_EXCEPT", "NOP"})
_JUMPS = frozenset({"JUMP_FORWARD", "JUMP_ABSOLUTE", "JUMP", "JUMP_NO_INTERRUPT"})


@dataclass(frozen=True)
class ProbeSites:
    lines: frozenset[int]
    quiet_offsets: frozenset[int]
    probe_offsets: frozenset[int]


def find_probe_sites(code: types.CodeType) -> ProbeSites | None:
    """Where ``code`` runs probes, or None if it runs none."""
    if PROBE_NAME not in code.co_names:
        return None
    instructions = list(dis.get_instructions(code))
    lines_at = _lines(instructions)
    lines = frozenset(_probe_ids_by_line(instructions, lines_at))
    if not lines:
        return None
    return ProbeSites(lines, _quiet_offsets(instructions, lines_at, lines),
                      _with_caches(instructions, _probe_offsets(instructions, lines_at, lines),
                                   len(code.co_code)))


def _with_caches(instructions, offsets: frozenset[int], end: int) -> frozenset[int]:
    """``offsets`` plus the inline cache units after each of those instructions (3.11+):
    a caller's ``f_lasti`` during a call can point into the CALL's caches."""
    covered = set(offsets)
    for position, instruction in enumerate(instructions):
        if instruction.offset in offsets:
            following = (instructions[position + 1].offset if position + 1 < len(instructions)
                         else end)
            covered.update(range(instruction.offset, following, 2))
    return frozenset(covered)


def probe_ids_by_line(code: types.CodeType) -> dict[int, int]:
    """{line: probe id} for the probe calls among ``code``'s own instructions."""
    instructions = list(dis.get_instructions(code))
    return _probe_ids_by_line(instructions, _lines(instructions))


def _lines(instructions) -> list[int | None]:
    """The line of each instruction (dis gives it only where a line starts before 3.11)."""
    result = []
    line = None
    for instruction in instructions:
        if sys.version_info >= (3, 11):
            positions = instruction.positions
            if positions is not None and positions.lineno:
                line = positions.lineno
        elif instruction.starts_line:
            line = instruction.starts_line
        result.append(line)
    return result


def _is_probe_load(instruction: dis.Instruction) -> bool:
    return instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME") and instruction.argval == PROBE_NAME


def _probe_ids_by_line(instructions, lines_at) -> dict[int, int]:
    found: dict[int, int] = {}
    for position, instruction in enumerate(instructions):
        if not _is_probe_load(instruction) or lines_at[position] is None:
            continue
        for following in instructions[position + 1:position + 4]:
            if following.opname.startswith("LOAD_") and type(following.argval) is int:
                found[lines_at[position]] = following.argval
                break
    return found


def _is_error_probe_call(instructions, position: int) -> bool:
    """Whether ``__dapper_probe__(id, True)`` starts at ``position``: the call a probe's
    except block makes (the call a condition leads to passes the id alone)."""
    if not _is_probe_load(instructions[position]):
        return False
    arguments = []
    for instruction in instructions[position + 1:position + 6]:
        if instruction.opname.startswith(("CALL", "PRECALL")):
            break
        if instruction.opname != "PUSH_NULL":
            arguments.append(instruction)
    return len(arguments) == 2 and arguments[1].argval is True


def _handler_start(instructions, position: int) -> int:
    """The position where the except block holding the error call at ``position``
    begins: it first drops the exception (one POP_TOP on 3.11+, three before)."""
    start = position
    while start > max(position - 3, 0) and instructions[start - 1].opname == "POP_TOP":
        start -= 1
    return start


def _after_call(instructions, position: int) -> int | None:
    """The position of the POP_TOP that ends the probe call starting at ``position``."""
    for call in range(position + 1, min(position + 8, len(instructions) - 1)):
        if instructions[call].opname.startswith("CALL") and (
            instructions[call + 1].opname == "POP_TOP"
        ):
            return call + 1
    return None


def _rejoin(instructions, at: dict[int, int], position: int) -> int | None:
    """The position of the first instruction run after the probe call that starts at
    ``position`` returns: past its POP_TOP, block bookkeeping and jumps."""
    end = _after_call(instructions, position)
    if end is None:
        return None
    current = end + 1
    for _ in range(8):  # Bounded: a few bookkeeping instructions at most.
        if current >= len(instructions):
            return None
        instruction = instructions[current]
        if instruction.opname in _PASS_THROUGH:
            current += 1
        elif instruction.opname in _JUMPS and instruction.argval in at:
            current = at[instruction.argval]
        else:
            return current
    return None


def _quiet_offsets(instructions, lines_at, lines: frozenset[int]) -> frozenset[int]:
    at = {instruction.offset: position for position, instruction in enumerate(instructions)}
    offsets = set()
    for position, instruction in enumerate(instructions):
        if not _is_probe_load(instruction):
            continue
        rejoin = _rejoin(instructions, at, position)
        # Only the same line repeats: the next statement's line is a real event.
        if rejoin is not None and lines_at[rejoin] == lines_at[position]:
            offsets.add(instructions[rejoin].offset)
        if _is_error_probe_call(instructions, position):
            start = _handler_start(instructions, position)
            if start < position and lines_at[start] in lines:
                offsets.add(instructions[start].offset)
    return frozenset(offsets)


def _probe_offsets(instructions, lines_at, lines: frozenset[int]) -> frozenset[int]:
    if sys.version_info >= (3, 11):
        # Every inserted node is located zero-width; the program's own never are.
        return frozenset(
            instruction.offset for instruction in instructions
            if instruction.positions is not None
            and instruction.positions.lineno in lines
            and instruction.positions.col_offset == instruction.positions.end_col_offset == 0
        )
    # 3.9-3.10: a conditional probe is one block, from its SETUP_FINALLY to where the
    # statement's own code begins (its except block lies inline, in between); an
    # unconditional one is its call.
    at = {instruction.offset: position for position, instruction in enumerate(instructions)}
    offsets: set[int] = set()
    for position in range(len(instructions)):
        if _is_error_probe_call(instructions, position):
            handler = instructions[_handler_start(instructions, position)].offset
            setups = [p for p in range(position) if instructions[p].opname == "SETUP_FINALLY"
                      and instructions[p].argval == handler]
            end = _rejoin(instructions, at, position)
            if setups and end is not None:
                offsets.update(i.offset for i in instructions[setups[-1]:end])
    for position, instruction in enumerate(instructions):
        if _is_probe_load(instruction) and instruction.offset not in offsets:
            end = _after_call(instructions, position)
            if end is not None:
                offsets.update(i.offset for i in instructions[position:end + 1])
    return frozenset(offsets)
