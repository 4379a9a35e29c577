"""Compiling a file's source with probes: the instrumented module code, and (only when
asked) the plain code of the same source and what lies between the two.

The cost is one ``ast.parse`` and one compile of the tree, plus what the probes' own
statements cost: no plain compile of the file, no pass over all its instructions. The
import of a module with probes pays this instead of the plain compile (the finder),
so it should cost about what that does.

A probe that cannot go in is refused with a reason (the caller leaves that line to
the tracer); the rest still go in. A condition compiled into a function or class can
change the shape of its code objects (say, it names a variable of an enclosing
function that this function does not use, which makes it a new free variable), and
a live function could not take such a copy as its ``__code__``: so the code objects of
the module-level statements holding such conditions are compared with a plain compile
of those statements alone (their scoping does not depend on the rest of the module).
A condition that changes them is refused and the file compiled again. Conditions at
module level cannot change anything there: the module's scope has no cells and gives
none to nested scopes.
"""

from __future__ import annotations
import __future__

import ast
import sys
import types
from collections.abc import Mapping

from ..common.code_lines import code_tree_lines
from . import plain_code
from .bytecode import find_probe_sites
from .copies import (
    InstrumentationError,
    InstrumentedModule,
    ProbeSites,
    ShapeMismatch,
    nested_codes,
    walk_codes,
    walk_pairs,
)
from .jit_compiled import compiled_functions
from .probes import Probe
from .restartable import guard_handlers, make_restartable
from .transform import (
    StatementIndex,
    first_line,
    insert_probes,
    parse_condition,
    refusal_for_line,
    remove_probes,
    runs_no_code,
)

# Free and cell variables first: a change there also changes co_flags on 3.9-3.10
# (CO_NOFREE), and the blame is clearer from the variables.
_SHAPE_FIELDS = ("co_freevars", "co_cellvars", "co_name", "co_argcount",
                 "co_posonlyargcount", "co_kwonlyargcount", "co_flags", "co_firstlineno")
_COMPILE_ERRORS = (SyntaxError, ValueError, TypeError, RecursionError)


def instrument_source(source: bytes | str, filename: str, probes: Mapping[int, Probe],
                      optimize: int = -1, restartable: bool = False) -> InstrumentedModule:
    """Compile ``source`` with ``probes`` ({line: Probe}), and with every function made
    restartable if asked. Raises InstrumentationError when the source itself does not
    compile."""
    try:
        tree = ast.parse(source, filename)
    except _COMPILE_ERRORS as error:
        raise InstrumentationError(f"{filename} does not compile: {error}") from None
    # Indexed as parsed: the rewrite keeps each statement in its list, so a probe goes
    # in front of its statement inside the function's handler.
    index = StatementIndex(tree)
    if restartable:
        make_restartable(tree)
    return instrument_tree(tree, index, source, filename, probes, optimize, restartable)


def instrument_tree(tree: ast.Module, index: StatementIndex, source: bytes | str,
                    filename: str, probes: Mapping[int, Probe], optimize: int = -1,
                    restartable: bool = False, flags: int = 0,
                    plain: types.CodeType | None = None) -> InstrumentedModule:
    """``instrument_source`` for a tree parsed (and made restartable) already, of
    ``source``, indexed as parsed. ``flags``: compiler flags of every compile (the
    ``__future__`` features of a file a part of which the tree is); ``plain``: the
    tree's plain compile, if made already."""
    refused: dict[int, str] = {}
    candidates: dict[int, Probe] = {}
    conditions: dict[int, ast.expr | None] = {}
    executable: set[int] | None = None
    jitted = _jit_compiled_spans(tree)
    for line, probe in probes.items():
        reason = refusal_for_line(index, line, optimize) or _jit_refusal(jitted, line)
        if reason == runs_no_code(line) and sys.version_info < (3, 10):
            # 3.9 may give such a line the jump or return that follows the statement
            # (``pass`` ending a block): only its plain compile tells.
            if plain is None:
                plain = (_compile_tree(tree, filename, optimize, flags)
                         if restartable or flags
                         else plain_code.compile_plain(source, filename, optimize))
            if executable is None:
                executable = code_tree_lines(plain)
            if line in executable:
                reason = None
        condition = None
        if reason is None and probe.condition is not None:
            condition, reason = parse_condition(probe.condition)
        if reason is None:
            candidates[line] = probe
            conditions[line] = condition
        else:
            refused[line] = reason
    # Each round refuses at least one probe or ends, so this ends.
    while True:
        if not candidates:
            if plain is None:
                plain = (_compile_tree(tree, filename, optimize, flags)
                         if restartable or flags
                         else plain_code.compile_plain(source, filename, optimize))
            code = plain
            break
        code, problem = _compile_with(tree, index, filename, candidates, conditions, optimize,
                                      flags)
        if problem is None:
            problem = _shape_problem(tree, index, filename, code, candidates, optimize, flags)
        if problem is None:
            break
        guilty, reason = problem
        for line in guilty:
            refused[line] = reason
            del candidates[line]
    # The syntax tree (tens of thousands of objects for a large literal) is dropped
    # before anything else is allocated: the garbage collector would walk it again.
    del tree, index, conditions
    copies = tuple(walk_codes(code)) if candidates else ()
    sites = tuple((copy, found) for copy in copies
                  if (found := find_probe_sites(copy, candidates)) is not None)
    # A probe the compiler dropped (its statement is unreachable, or its condition a
    # constant false) has no instructions: the copy is as if it were not there.
    found_lines = set().union(*(found.lines for _, found in sites))
    for line in [line for line in candidates if line not in found_lines]:
        refused[line] = (f"line {line} runs no code (it cannot be reached, or the "
                         "condition is always false)")
        del candidates[line]
    module = InstrumentedModule(
        filename, code, dict(candidates), refused, sites,
        lambda: plain_code.compile_plain(source, filename, optimize, restartable), plain,
        restartable)
    if copies:
        module._copies = copies
    return module


def _jit_compiled_spans(tree: ast.Module) -> list[tuple[int, int, str]]:
    """(first body line, last line, name) of each function another compiler takes
    (jit_compiled.py)."""
    return [(function.body[0].lineno, function.end_lineno or function.lineno, function.name)
            for function in compiled_functions(tree)]


def _jit_refusal(spans: list[tuple[int, int, str]], line: int) -> str | None:
    for first, last, name in spans:
        if first <= line <= last:
            return (f"line {line} is in {name}, which a JIT compiler (numba) compiles from "
                    "its bytecode, where a probe would break it: the tracer stops there "
                    "when it runs as Python")
    return None


def _compile_tree(tree: ast.Module, filename: str, optimize: int,
                  flags: int = 0) -> types.CodeType:
    try:
        return guard_handlers(compile(tree, filename, "exec", flags=flags, dont_inherit=True,
                                      optimize=optimize))
    except _COMPILE_ERRORS as error:
        raise InstrumentationError(f"{filename} does not compile: {error}") from None


def _compile_with(tree: ast.Module, index: StatementIndex, filename: str,
                  candidates: Mapping[int, Probe], conditions: Mapping[int, ast.expr | None],
                  optimize: int, flags: int = 0):
    """The instrumented module code, or (guilty lines, reason) when it does not compile.
    The tree is left as it was parsed."""
    inserted = insert_probes(index, {line: (probe, conditions[line])
                                     for line, probe in candidates.items()})
    try:
        return guard_handlers(compile(tree, filename, "exec", flags=flags, dont_inherit=True,
                                      optimize=optimize)), None
    except SyntaxError as error:
        # Inserted nodes sit on their probe's line, so the error names the culprit (or
        # the file itself does not compile: then every probe goes, and the plain
        # compile raises the error).
        reason = f"the condition does not compile here: {error.msg}"
        if error.lineno in candidates:
            return None, ([error.lineno], reason)
        return None, (list(candidates), reason)
    except _COMPILE_ERRORS as error:
        return None, (list(candidates), f"the file does not compile with probes: {error}")
    finally:
        remove_probes(inserted)


def _future_flags(tree: ast.Module) -> int:
    """The compiler flags of the module's ``from __future__`` imports."""
    flags = 0
    for position, statement in enumerate(tree.body):
        if position == 0 and isinstance(statement, ast.Expr) and isinstance(
                statement.value, ast.Constant) and isinstance(statement.value.value, str):
            continue  # The docstring.
        if not (isinstance(statement, ast.ImportFrom) and statement.module == "__future__"):
            break
        for alias in statement.names:
            feature = getattr(__future__, alias.name, None)
            flags |= getattr(feature, "compiler_flag", 0)
    return flags


def _reference_pairs(tree: ast.Module, filename: str, code: types.CodeType,
                     tops: list[ast.stmt], optimize: int, flags: int = 0):
    """(plain, copy) for the code objects of the module-level statements ``tops``: the
    plain ones from a compile of those statements alone."""
    reference = guard_handlers(compile(ast.Module(body=tops, type_ignores=[]), filename,
                                       "exec", flags=_future_flags(tree) | flags,
                                       dont_inherit=True, optimize=optimize))
    spans = [(first_line(top), getattr(top, "end_lineno", None) or top.lineno) for top in tops]
    # Compound statements own their lines, so the copies made from ``tops`` are the
    # module's code objects that begin within them, in the same order.
    copies = [child for child in nested_codes(code)
              if any(first <= child.co_firstlineno <= last for first, last in spans)]
    plains = nested_codes(reference)
    if len(copies) != len(plains):
        raise ShapeMismatch
    pairs = []
    for plain_child, copy_child in zip(plains, copies):
        pairs.extend(walk_pairs(plain_child, copy_child))
    return pairs


def _shape_problem(tree: ast.Module, index: StatementIndex, filename: str,
                   copy: types.CodeType | None, candidates: Mapping[int, Probe],
                   optimize: int, flags: int = 0):
    if copy is None:
        return None
    tops: list[ast.stmt] = []
    for line, probe in candidates.items():
        start = index.starts[line]
        if probe.condition is not None and start.scoped and not any(
                top is start.top for top in tops):
            tops.append(start.top)
    if not tops:
        return None
    tops.sort(key=first_line)
    try:
        pairs = _reference_pairs(tree, filename, copy, tops, optimize, flags)
    except ShapeMismatch:
        return list(candidates), "instrumenting changed the file's functions (a bug)"
    except _COMPILE_ERRORS as error:
        return list(candidates), f"the file's functions could not be checked: {error}"
    # Free variables first: a new one in a function is the cause, the new cell variable
    # of its enclosing function (and on 3.9-3.10 a changed CO_NOFREE flag) the effect.
    for field in _SHAPE_FIELDS:
        for original, copy_code in pairs:
            if getattr(original, field) != getattr(copy_code, field):
                return _blame(original, field, copy_code, candidates)
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




__all__ = [
    "InstrumentationError", "InstrumentedModule", "ProbeSites",
    "condition_names", "instrument_source", "instrument_tree", "nested_codes", "walk_codes",
    "walk_pairs",
]
