"""``stepInTargets``: the calls made by the line a frame is stopped on, in the order they
run, and the test that tells when a targeted ``stepIn`` has entered the chosen one.

The calls come from the syntax tree of the frame's source file (through linecache, so
unsaved or synthetic sources registered there work too): every call expression that
starts on the line, in evaluation order (a call's callee and arguments are evaluated,
and their own calls made, before the call itself).
"""

from __future__ import annotations

import ast
import linecache
import types
from dataclasses import dataclass

from ..breakpoints.functions import qualified_name


@dataclass(frozen=True)
class CallTarget:
    label: str  # the callee as written: ``add``, ``self.helper``, ``Box``
    name: str  # the last part of it, compared with the code object entered
    line: int
    column: int  # 0-based, as ast gives it
    end_column: int


def _calls_in_evaluation_order(node: ast.AST):
    """Call nodes under ``node``, children before parents (the order calls happen)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                              ast.ClassDef)):
            continue  # Bodies of definitions do not run on this line.
        yield from _calls_in_evaluation_order(child)
    if isinstance(node, ast.Call):
        yield node


def _statement_at(tree: ast.AST, line: int):
    """The innermost statement that starts on ``line``."""
    found = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno == line:
            found = node
    return found


def call_targets(filename: str, line: int) -> list[CallTarget]:
    source = "".join(linecache.getlines(filename))
    if not source:
        return []
    try:
        tree = ast.parse(source, filename)
    except (SyntaxError, ValueError):
        return []
    statement = _statement_at(tree, line)
    if statement is None:
        return []
    # Compound statements run only their header on this line (an if's test, a for's
    # iterable), not their bodies.
    roots: list[ast.AST]
    if isinstance(statement, (ast.If, ast.While)):
        roots = [statement.test]
    elif isinstance(statement, (ast.For, ast.AsyncFor)):
        roots = [statement.iter]
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        roots = list(statement.items)
    elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        roots = [*statement.decorator_list]
    elif isinstance(statement, ast.Try):
        roots = []
    else:
        roots = [statement]
    targets = []
    for root in roots:
        for call in _calls_in_evaluation_order(root):
            label = ast.unparse(call.func)
            name = label.rsplit(".", 1)[-1]
            targets.append(CallTarget(label, name, call.lineno, call.col_offset,
                                      call.end_col_offset or call.col_offset))
    return targets


def enters_target(code: types.CodeType, name: str) -> bool:
    """Whether entering ``code`` is entering a call of ``name`` (a class's call enters
    its ``__init__``, or ``__new__``, whose qualified name starts with the class)."""
    if code.co_name == name:
        return True
    if code.co_name in ("__init__", "__new__"):
        return qualified_name(code).startswith(name + ".")
    return False
