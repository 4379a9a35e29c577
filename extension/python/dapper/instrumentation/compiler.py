"""Compiling a file's source with probes: the instrumented module code, the plain code
of the same source, and what lies between them.

A probe that cannot go in is refused with a reason (the caller leaves that line to
the tracer); the rest still go in. Besides the checks on the syntax tree, the copy is
compared with the plain compile code object by code object: the two must have the
same tree of code objects with the same free and cell variables and flags, or a live
function could not take the copy as its ``__code__``. A condition that breaks this
(say, it names a variable of an enclosing function that this function does not use,
which would make it a new free variable) is refused and the file compiled again.
"""

from __future__ import annotations

import ast
import types
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from ..code_lines import code_tree_lines
from .bytecode import ProbeSites, find_probe_sites
from .probes import Probe
from .transform import StatementIndex, insert_probes, parse_condition, refusal_for_line

# Free and cell variables first: a change there also changes co_flags on 3.9-3.10
# (CO_NOFREE), and the blame is clearer from the variables.
_SHAPE_FIELDS = ("co_freevars", "co_cellvars", "co_name", "co_argcount",
                 "co_posonlyargcount", "co_kwonlyargcount", "co_flags", "co_firstlineno")


class InstrumentationError(Exception):
    """The file cannot be instrumented at all; the message is meant for the user."""


@dataclass(frozen=True)
class InstrumentedModule:
    """The result of instrumenting one file's source."""

    filename: str
    # The module code of the source as it is, compiled as the import system would.
    plain: types.CodeType
    # The module code with probes.
    code: types.CodeType
    accepted: Mapping[int, Probe]
    refused: Mapping[int, str]
    # (plain, copy) for every code object of the module, parents before children.
    pairs: tuple[tuple[types.CodeType, types.CodeType], ...]
    # (copy, where its own instructions run probes) for the copies that have probes.
    sites: tuple[tuple[types.CodeType, ProbeSites], ...]

    def sites_of(self, copy: types.CodeType) -> ProbeSites | None:
        return next((found for code, found in self.sites if code is copy), None)

    def copies_holding_probes(self) -> set[int]:
        """Ids of the copies with a probe in their own code or in code nested in it:
        the functions that must run a copy. The others equal their plain code."""
        own = {id(copy) for copy, _ in self.sites}
        holding: set[int] = set()
        for _, copy in reversed(self.pairs):
            if id(copy) in own or any(
                id(child) in holding for child in nested_codes(copy)
            ):
                holding.add(id(copy))
        return holding


def compile_plain(source: bytes | str, filename: str, optimize: int = -1) -> types.CodeType:
    try:
        return compile(source, filename, "exec", dont_inherit=True, optimize=optimize)
    except (SyntaxError, ValueError, TypeError) as error:
        raise InstrumentationError(f"{filename} does not compile: {error}") from None


def instrument_source(source: bytes | str, filename: str, probes: Mapping[int, Probe],
                      optimize: int = -1) -> InstrumentedModule:
    """Compile ``source`` with ``probes`` ({line: Probe}). Raises InstrumentationError
    when the source itself does not compile."""
    plain = compile_plain(source, filename, optimize)
    index = StatementIndex(ast.parse(source, filename))
    executable = code_tree_lines(plain)
    refused: dict[int, str] = {}
    candidates: dict[int, Probe] = {}
    for line, probe in probes.items():
        reason = refusal_for_line(index, line)
        if reason is None and line not in executable:
            # Say, a lone string or ``...``: compiled away, so it has no line event a
            # probe could stand in for.
            reason = f"line {line} runs no code"
        if reason is None and probe.condition is not None:
            reason = parse_condition(probe.condition)[1]
        if reason is None:
            candidates[line] = probe
        else:
            refused[line] = reason
    # Each round refuses at least one probe or ends, so this ends.
    while True:
        code, problem = _compile_with(source, filename, candidates, optimize)
        if problem is None:
            problem = _shape_problem(plain, code, candidates)
        if problem is None:
            break
        guilty, reason = problem
        for line in guilty:
            refused[line] = reason
            del candidates[line]
    pairs = tuple(walk_pairs(plain, code))
    sites = tuple((copy, found) for _, copy in pairs if (found := find_probe_sites(copy)))
    return InstrumentedModule(filename, plain, code, dict(candidates), refused, pairs, sites)


def _compile_with(source, filename, candidates: Mapping[int, Probe], optimize: int):
    """The instrumented module code, or (guilty lines, reason) when it does not compile."""
    # A fresh tree each time: inserting mutates it.
    tree = ast.parse(source, filename)
    index = StatementIndex(tree)
    insert_probes(tree, index, {
        line: (probe, parse_condition(probe.condition)[0] if probe.condition else None)
        for line, probe in candidates.items()
    })
    try:
        return compile(tree, filename, "exec", dont_inherit=True, optimize=optimize), None
    except SyntaxError as error:
        # Inserted nodes sit on their probe's line, so the error names the culprit.
        reason = f"the condition does not compile here: {error.msg}"
        if error.lineno in candidates:
            return None, ([error.lineno], reason)
        return None, (list(candidates), reason)


def _shape_problem(plain: types.CodeType, copy: types.CodeType | None,
                   candidates: Mapping[int, Probe]):
    if copy is None:
        return None
    try:
        pairs = list(walk_pairs(plain, copy))
    except _ShapeMismatch:
        return list(candidates), "instrumenting changed the file's functions (a bug)"
    # Free variables first: a new one in a function is the cause, the new cell variable
    # of its enclosing function (and on 3.9-3.10 a changed CO_NOFREE flag) the effect.
    for field in _SHAPE_FIELDS:
        for plain_code, copy_code in pairs:
            if getattr(plain_code, field) != getattr(copy_code, field):
                return _blame(plain_code, field, copy_code, candidates)
    return None


def _blame(plain_code, field: str, copy_code, candidates: Mapping[int, Probe]):
    if field in ("co_freevars", "co_cellvars"):
        changed = set(getattr(plain_code, field)) ^ set(getattr(copy_code, field))
        guilty = [
            line for line, probe in candidates.items()
            if probe.condition is not None and changed & condition_names(probe.condition)
        ]
        if guilty:
            names = ", ".join(sorted(changed))
            return guilty, (f"the condition uses {names} of an enclosing function, which "
                            "the function it is in does not use: compiled in, it would "
                            "change the function's closure")
    conditional = [line for line, probe in candidates.items() if probe.condition is not None]
    return (conditional or list(candidates)), (
        f"a condition changes {field} of {plain_code.co_name}, so live code cannot be swapped")


def condition_names(text: str) -> set[str]:
    names = {node.id for node in ast.walk(ast.parse(text.strip(), mode="eval"))
             if isinstance(node, ast.Name)}
    if "super" in names:
        names.add("__class__")  # A zero-argument super() reads the __class__ cell.
    return names


class _ShapeMismatch(Exception):
    pass


def nested_codes(code: types.CodeType) -> list[types.CodeType]:
    return [const for const in code.co_consts if isinstance(const, types.CodeType)]


def walk_pairs(first: types.CodeType, second: types.CodeType
               ) -> Iterator[tuple[types.CodeType, types.CodeType]]:
    """Pairs of corresponding code objects of two compiles of the same code, parents
    before children. Raises _ShapeMismatch if the trees differ in shape."""
    pending = [(first, second)]
    while pending:
        a, b = pending.pop(0)
        yield a, b
        children_a, children_b = nested_codes(a), nested_codes(b)
        if len(children_a) != len(children_b) or any(
            x.co_name != y.co_name for x, y in zip(children_a, children_b)
        ):
            raise _ShapeMismatch
        pending.extend(zip(children_a, children_b))
