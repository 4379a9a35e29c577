"""Restarting a frame (DAP ``restartFrame``) from the tracer's 'line' event in that frame.

What CPython allows, and so what this does: a trace function (``sys.settrace`` 'line'
event, or a ``sys.monitoring`` LINE callback) may set ``frame.f_lineno`` of the frame the
event is for, to a line of that frame's own code object. Nothing else can redirect a
frame: it cannot be given another code object, made to return a chosen value, or popped
without unwinding its callers (an exception raised from the trace function propagates
through every caller that does not catch it; the call cannot be re-issued by the caller).
So a frame restarts with the code object it is running: after a reload that changed its
function, that is the OLD code, and the new code runs from the function's next call.
The restart jumps to the first line of the body and puts back the argument values (from a
snapshot the tracer took at the call, or the current ones when no argument can have been
rebound).

Only the frame the current 'line' event is for may be restarted, never one of its callers:
CPython 3.10-3.13 accept setting ``f_lineno`` on a caller frame from a callee's line event
and that corrupts the caller (3.11: a spurious UnboundLocalError; 3.13: the interpreter
aborts with "Fatal Python error: Executing a cache"). The tracer must answer a
``restartFrame`` for any frame but the stopped thread's top frame with a refusal."""

from __future__ import annotations

import dis
import sys
import types
import warnings
from dataclasses import dataclass, field

from .stacks import replacement_of

_CO_NEWLOCALS = 0x0002
_CO_VARARGS = 0x0004
_CO_VARKEYWORDS = 0x0008
_SUSPENDABLE = 0x0020 | 0x0080 | 0x0100 | 0x0200  # generator, coroutine, iterable cor., async gen
_PROLOGUE = {"RESUME", "MAKE_CELL", "COPY_FREE_VARS", "RETURN_GENERATOR", "GEN_START", "NOP"}
_STORES = {
    "STORE_FAST",
    "DELETE_FAST",
    "STORE_DEREF",
    "DELETE_DEREF",
    "STORE_FAST_LOAD_FAST",
    "STORE_FAST_STORE_FAST",
    "STORE_FAST_MAYBE_NULL",
}
_SUSPENDS = {"YIELD_VALUE", "YIELD_FROM", "SEND", "GET_AWAITABLE"}


@dataclass(frozen=True)
class RestartRefusal:
    reason: str


@dataclass
class RestartPlan:
    """Apply it from the next 'line' event of ``frame`` (the tracer's own callback)."""

    frame: types.FrameType
    line: int
    # Argument values to write back with the jump (only those that differ).
    restore: dict = field(default_factory=dict)
    # True when a reload replaced the frame's code: the restart runs the code it had.
    runs_old_code: bool = False
    notes: list[str] = field(default_factory=list)

    def apply(self) -> None:
        """Jump, then restore the arguments. Raises ValueError when CPython refuses the
        jump (for instance from inside a ``finally`` block on 3.9), or when the frame is
        not on this thread's stack."""
        current = sys._getframe(1)
        while current is not None and current is not self.frame:
            current = current.f_back
        if current is None:
            raise ValueError("the frame to restart is not on this thread's stack")
        with warnings.catch_warnings():
            # 3.12+ warns about locals it sets to None for the jump: they are rebound by the
            # function's own code before they are read, as in a fresh call.
            warnings.simplefilter("ignore", RuntimeWarning)
            self.frame.f_lineno = self.line
        # Read f_locals after the jump: before 3.13 it is a snapshot that the settrace
        # trampoline writes back when the trace function returns, so it must hold what the
        # jump left plus the restored arguments (3.13+: a write-through proxy).
        local_variables = self.frame.f_locals
        for name, value in self.restore.items():
            local_variables[name] = value


def argument_names(code: types.CodeType) -> tuple[str, ...]:
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & _CO_VARARGS) + bool(code.co_flags & _CO_VARKEYWORDS)
    return code.co_varnames[:count]


def capture_arguments(frame: types.FrameType) -> dict:
    """The argument values at the call (a tracer calls this from the 'call' event of frames
    it may later restart; the objects are kept, not copied)."""
    local_variables = frame.f_locals
    return {
        name: local_variables[name]
        for name in argument_names(frame.f_code)
        if name in local_variables
    }


def first_body_line(code: types.CodeType) -> int:
    line = code.co_firstlineno
    after_generator_start = False
    for instruction in dis.get_instructions(code):
        if instruction.opname in _PROLOGUE or (
            after_generator_start and instruction.opname == "POP_TOP"
        ):
            after_generator_start = instruction.opname == "RETURN_GENERATOR"
            continue
        line = _line_of(instruction, line)
        break
    return line


def _line_of(instruction, fallback: int) -> int:
    positions = getattr(instruction, "positions", None)
    if positions is not None and positions.lineno is not None:
        return positions.lineno
    starts = getattr(instruction, "starts_line", None)
    return starts if isinstance(starts, int) and not isinstance(starts, bool) else fallback


def plan_restart(
    frame: types.FrameType,
    *,
    arguments: dict | None = None,
    locals_writable: bool = True,
    new_code: types.CodeType | None = None,
) -> RestartPlan | RestartRefusal:
    """Plan re-entering ``frame`` at its first line with its original arguments.

    ``arguments``: a snapshot from ``capture_arguments`` at the call, if the tracer took
    one. ``locals_writable``: False when the caller cannot write locals (a
    ``sys.monitoring`` callback on 3.12: writes to ``f_locals`` are not kept before 3.13).
    ``new_code``: the code the frame's function has now, when the caller knows it."""
    code = frame.f_code
    if not code.co_flags & _CO_NEWLOCALS:
        return RestartRefusal(
            "a module-level (or class body) frame cannot be restarted: "
            "it would re-run top-level statements"
        )
    lasti = frame.f_lasti
    instructions = list(dis.get_instructions(code))
    if code.co_flags & _SUSPENDABLE and _may_have_suspended(instructions, lasti):
        return RestartRefusal(
            "a generator or coroutine that already yielded or awaited cannot "
            "be restarted: its consumer has seen its earlier values"
        )
    names = argument_names(code)
    current = frame.f_locals
    restore = {}
    notes = []
    if arguments is not None:
        for name in names:
            if name in arguments and (name not in current or current[name] is not arguments[name]):
                restore[name] = arguments[name]
        if restore and not locals_writable:
            return RestartRefusal(
                f"argument(s) {', '.join(restore)} were rebound and this tracer cannot write "
                "them back"
            )
    else:
        rebound = _possibly_rebound(instructions, names, lasti)
        if rebound:
            return RestartRefusal(
                f"argument(s) {', '.join(rebound)} may have been reassigned since the call: "
                "their original values are lost"
            )
        missing = [name for name in names if name not in current]
        if missing:
            return RestartRefusal(f"argument(s) {', '.join(missing)} were deleted")
    notes.append(
        "arguments changed in place (a list appended to, an attribute set) cannot be "
        "detected: the restart sees the objects as they are now"
    )
    plan = RestartPlan(frame, first_body_line(code), restore, notes=notes)
    if new_code is None:
        new_code = replacement_of(code)
    if new_code is not None and new_code is not code:
        plan.runs_old_code = True
        notes.append(
            "the function was reloaded after this frame started: CPython cannot give "
            "a running frame new code, so it restarts with the code it started with; "
            "the new code runs from the next call"
        )
    return plan


def _jumps(instructions):
    for instruction in instructions:
        if instruction.opcode in dis.hasjabs or instruction.opcode in dis.hasjrel:
            target = instruction.argval
            if isinstance(target, int):
                yield instruction.offset, target


def _reachable_before(instructions, lasti: int, predicate) -> list:
    """Instructions matching ``predicate`` that may have run before ``lasti``: placed before
    it, or inside a loop (a backward jump) that encloses it."""
    loops = [
        (target, source) for source, target in _jumps(instructions) if target <= lasti <= source
    ]
    found = []
    for instruction in instructions:
        if not predicate(instruction):
            continue
        offset = instruction.offset
        if offset < lasti or any(start <= offset <= end for start, end in loops):
            found.append(instruction)
    return found


def _may_have_suspended(instructions, lasti: int) -> bool:
    return bool(_reachable_before(instructions, lasti, lambda i: i.opname in _SUSPENDS))


def _possibly_rebound(instructions, names, lasti: int) -> list[str]:
    wanted = set(names)

    def stores_argument(instruction) -> bool:
        if instruction.opname not in _STORES:
            return False
        value = instruction.argval
        targets = value if isinstance(value, tuple) else (value,)
        if instruction.opname == "STORE_FAST_LOAD_FAST":
            targets = targets[:1]
        return bool(wanted.intersection(targets))

    out = []
    for instruction in _reachable_before(instructions, lasti, stores_argument):
        value = instruction.argval
        for name in value if isinstance(value, tuple) else (value,):
            if name in wanted and name not in out:
                out.append(name)
    return out


if sys.version_info < (3, 11):  # pragma: no cover (3.9/3.10 prologue differs)
    _PROLOGUE.discard("NOP")
