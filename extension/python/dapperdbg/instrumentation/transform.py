"""The ``ast`` side of instrumentation: which lines can take a probe, and inserting the
probe's statement in front of the statement that starts on its line.

Every inserted node is located on the probe's line with a zero-width column range
(col_offset == end_col_offset == 0), so tracebacks, ``co_lines`` and line events see the
original line numbers, and on 3.11+ ``co_positions`` tells probe instructions from the
statement's own (whose column ranges are never empty).
"""

from __future__ import annotations

import ast
import copy
import dis
import sys

from ..common.records import Record
from .probes import PROBE_NAME, Probe

# Conditions that would change the code around them if compiled inline: a new scope
# (its own code object), a suspension point, or an assignment to the frame's locals.
_FORBIDDEN_IN_CONDITION = {
    ast.Lambda: "a lambda",
    ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression",
    ast.Yield: "yield",
    ast.YieldFrom: "yield from",
    ast.Await: "await",
    ast.NamedExpr: "an assignment expression (:=)",
}

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES_WITH_DOCSTRINGS = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def first_line(statement: ast.stmt) -> int:
    """The line a statement starts on: a decorated definition starts at its first
    decorator, not at ``def``/``class``."""
    decorators = getattr(statement, "decorator_list", None)
    if decorators:
        return min(statement.lineno, *(d.lineno for d in decorators))
    return statement.lineno


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class _Start(Record):
    """The first statement that starts on a line, and the list it sits in."""

    owner: ast.AST
    body: list
    statement: ast.stmt
    # The statement of the module's body that holds it (or is it).
    top: ast.stmt
    # Whether it is inside a function or class (else it runs in the module's scope).
    scoped: bool


class StatementIndex:
    """Where the statements of one parsed module start and end. Only statements are
    visited, never expressions: a module holding a large literal costs one step."""

    def __init__(self, tree: ast.Module) -> None:
        self.starts: dict[int, _Start] = {}
        # (first line, last line) of every statement, to explain a refused line.
        self._spans: list[tuple[int, int]] = []
        for statement in tree.body:
            self._visit_body(tree, [statement], statement, False, tree.body)

    def _visit_body(self, owner: ast.AST, statements: list, top: ast.stmt, scoped: bool,
                    body: list | None = None) -> None:
        for statement in statements:
            line = first_line(statement)
            self.starts.setdefault(line, _Start(owner, statements if body is None else body,
                                                statement, top, scoped))
            self._spans.append((line, getattr(statement, "end_lineno", None) or line))
            self._visit_children(statement, top, scoped or isinstance(statement, _SCOPES))

    def _visit_children(self, node: ast.AST, top: ast.stmt, scoped: bool) -> None:
        for _, value in ast.iter_fields(node):
            if not isinstance(value, list) or not value:
                continue
            if isinstance(value[0], ast.stmt):
                self._visit_body(node, value, top, scoped)
            else:
                for item in value:
                    # Exception handlers and match cases hold statement lists.
                    if isinstance(item, ast.AST) and isinstance(getattr(item, "body", None), list):
                        self._visit_body(item, item.body, top, scoped)

    def enclosing_start(self, line: int) -> int | None:
        """The first line of the innermost statement that spans ``line``."""
        best = None
        for first, last in self._spans:
            if first <= line <= last and (best is None or first > best):
                best = first
        return best


def refusal_for_line(index: StatementIndex, line: int, optimize: int = -1) -> str | None:
    """Why no probe can go on ``line`` (None when one can). ``optimize`` as for the
    compile of the file (``assert`` runs no code under -O)."""
    start = index.starts.get(line)
    if start is None:
        enclosing = index.enclosing_start(line)
        if enclosing is None:
            return f"no statement starts on line {line}"
        return f"line {line} is inside the statement that starts on line {enclosing}"
    statement = start.statement
    if isinstance(statement, _LOOPS):
        # The tracer stops on a loop's header at every iteration; a probe in front of
        # the loop would run once.
        return f"line {line} is a loop header, which runs on every iteration"
    if isinstance(statement, (ast.Global, ast.Nonlocal)):
        return f"line {line} is a {type(statement).__name__.lower()} declaration, which never runs"
    if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
        return f"line {line} is a __future__ import, which must stay first"
    if (
        isinstance(start.owner, _SCOPES_WITH_DOCSTRINGS)
        and start.body is start.owner.body
        and start.body[0] is statement
        and isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    ):
        return f"line {line} is a docstring"
    if any(isinstance(earlier, _ENDS_BLOCK) for earlier in
           start.body[:next(i for i, s in enumerate(start.body) if s is statement)]):
        # After a return, raise, break or continue of its own block: never reached.
        return runs_no_code(line)
    executed = first_executed_line(statement, optimize)
    if executed == NO_CODE:
        # Say, a lone string or ``pass`` on 3.9: compiled away, so it has no line
        # event a probe could stand in for.
        return runs_no_code(line)
    if executed is not None and executed != line:
        # Say ``total = (`` / ``a + b)``: its first instruction runs on a later line,
        # and its own line only after that. A probe would add a line event in front.
        return (f"the statement on line {line} starts running on line {executed}, so a "
                "probe would run out of order")
    return None


# What ``first_executed_line`` returns for a statement that runs no instruction.
NO_CODE = 0
_ENDS_BLOCK = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def runs_no_code(line: int) -> str:
    """The reason given for a line whose statement has no instruction on it."""
    return f"line {line} runs no code"


def first_executed_line(statement: ast.stmt, optimize: int = -1) -> int | None:
    """The line of the first instruction the statement runs, NO_CODE if it runs none,
    None if unknown. Found by compiling its header alone in an ``async def`` (where
    await, yield and return compile), so it costs what the statement's header costs,
    not what the file does. Names resolve differently there; their instructions'
    lines do not."""
    if isinstance(statement, _TRIES):
        return statement.lineno  # ``try:`` itself runs first (a NOP, or SETUP_FINALLY).
    end = getattr(statement, "end_lineno", None) or statement.lineno
    # The wrapper, the stand-ins for bodies and a statement before and after the header
    # sit on a line after the statement, so their instructions cannot be taken for the
    # statement's. The one before keeps a lone string from being taken for the
    # wrapper's docstring; the one after keeps the wrapper's own ``return None`` off
    # the statement's line (3.9 gives it the line of the last statement compiled).
    wrapper_line = end + 1
    header = _header_only(statement, wrapper_line)
    extra = {"type_params": []} if sys.version_info >= (3, 12) else {}
    wrapper = ast.AsyncFunctionDef(
        name="_", args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                     kw_defaults=[], kwarg=None, defaults=[]),
        body=[_marker(wrapper_line), header, _marker(wrapper_line)], decorator_list=[],
        returns=None, type_comment=None, **extra,
    )
    _locate(wrapper, wrapper_line)
    try:
        module = compile(ast.Module(body=[wrapper], type_ignores=[]), "<probe check>",
                         "exec", dont_inherit=True, optimize=optimize)
    except (SyntaxError, ValueError, TypeError):
        return None  # Say, break outside a loop: nothing tells, so take the first line.
    inner = next(c for c in module.co_consts if hasattr(c, "co_code"))
    for _, line in dis.findlinestarts(inner):
        if line is not None and line != wrapper_line:
            return line
    return NO_CODE


_TRIES = (ast.Try, getattr(ast, "TryStar", ast.Try))


def _header_only(statement: ast.stmt, filler_line: int) -> ast.stmt:
    """A shallow copy of ``statement`` whose nested statements are a single ``pass``
    on ``filler_line``: only the header decides where the statement starts, and a
    large class or function body is not compiled again for it."""
    header = copy.copy(statement)
    if isinstance(getattr(header, "body", None), list):
        header.body = [_locate(ast.Pass(), filler_line)]
    if isinstance(getattr(header, "orelse", None), list):
        header.orelse = []
    cases = getattr(header, "cases", None)
    if isinstance(cases, list):
        trimmed = []
        for case in cases:
            case = copy.copy(case)
            case.body = [_locate(ast.Pass(), filler_line)]
            trimmed.append(case)
        header.cases = trimmed
    return header


def _marker(line: int) -> ast.stmt:
    """A statement that runs an instruction on ``line``: the load of a name."""
    return _locate(ast.Expr(_locate(ast.Name("_", ast.Load()), line)), line)


def _locate(node: ast.AST, line: int) -> ast.AST:
    node.lineno = node.end_lineno = line
    node.col_offset = node.end_col_offset = 0
    return node


def parse_condition(text: str) -> tuple[ast.expr | None, str | None]:
    """The condition's expression tree, or the reason it cannot be compiled inline."""
    try:
        tree = ast.parse(text.strip(), "<breakpoint condition>", mode="eval")
    except SyntaxError as error:
        return None, f"the condition does not compile: {error.msg}"
    except ValueError as error:
        return None, f"the condition does not compile: {error}"
    for node in ast.walk(tree):
        kind = _FORBIDDEN_IN_CONDITION.get(type(node))
        if kind is not None:
            return None, f"the condition contains {kind}, which cannot be compiled inline"
    return tree.body, None


def probe_statement(probe: Probe, condition: ast.expr | None, line: int) -> ast.stmt:
    """With a condition (without one, the ``if`` is left out)::

        try:
            if <condition>:
                __dapper_probe__(id)
        except:
            __dapper_probe__(id, True)

    The bare ``except`` keeps the program's exception state: the condition's exception
    is handled only inside the block and the one being handled before is current again
    after it. The probe function re-raises what is not an ``Exception``.

    An unconditional probe has the ``try`` too: a handler that must stop at a line event
    (where a debugger may jump) raises out of the probe, and entering the ``except``
    block gives that line event (probes.py, ``StopAtLineEvent``).
    """
    call = _probe_call(probe.probe_id)
    body = [call] if condition is None else [ast.If(test=condition, body=[call], orelse=[])]
    statement: ast.stmt = ast.Try(
        body=body,
        handlers=[ast.ExceptHandler(type=None, name=None,
                                    body=[_probe_call(probe.probe_id, failed=True)])],
        orelse=[],
        finalbody=[],
    )
    for node in ast.walk(statement):
        if isinstance(node, (ast.stmt, ast.expr, ast.excepthandler)):
            node.lineno = node.end_lineno = line
            node.col_offset = node.end_col_offset = 0
    return statement


def _probe_call(probe_id: int, failed: bool = False) -> ast.stmt:
    arguments: list[ast.expr] = [ast.Constant(probe_id)]
    if failed:
        arguments.append(ast.Constant(True))
    return ast.Expr(ast.Call(ast.Name(PROBE_NAME, ast.Load()), arguments, []))


def insert_probes(index: StatementIndex, probes: dict[int, tuple[Probe, ast.expr | None]]
                  ) -> list[tuple[list, ast.stmt]]:
    """Insert each probe's statement in front of the statement starting on its line
    (lines already checked with ``refusal_for_line``). Mutates the indexed tree; returns
    what ``remove_probes`` takes to restore it."""
    inserted = []
    for line, (probe, condition) in probes.items():
        start = index.starts[line]
        position = next(i for i, s in enumerate(start.body) if s is start.statement)
        statement = probe_statement(probe, condition, line)
        start.body.insert(position, statement)
        inserted.append((start.body, statement))
    return inserted


def remove_probes(inserted: list[tuple[list, ast.stmt]]) -> None:
    """Take out what ``insert_probes`` put in, leaving the tree as parsed."""
    for body, statement in inserted:
        del body[next(i for i, s in enumerate(body) if s is statement)]
