"""Finding the module of a file, compiling its new source once, and indexing the
definitions of that source (AST nodes paired with their code objects) by qualified name."""

from __future__ import annotations
import __future__

import ast
import copy
import importlib.machinery
import importlib.util
import os
import sys
import types
from dataclasses import dataclass, field

from ..common.source_texts import normalize
from .errors import COMPILE_ERROR, NOT_A_PYTHON_SOURCE, NOT_LOADED, ReloadError

_DEF_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_CO_NEWLOCALS = 0x0002
_HAS_QUALNAME = sys.version_info >= (3, 11)
_LAZY_ANNOTATIONS = sys.version_info >= (3, 14)
_COMPILE_NAMES_MODULE = sys.version_info >= (3, 15)


def find_modules(path: str, modules) -> list[tuple[str, types.ModuleType]]:
    """The loaded modules whose source is ``path`` (a main script can be loaded twice:
    as ``__main__`` and by its import name)."""
    wanted = normalize(path)
    base = os.path.basename(wanted)
    found = []
    for name, module in list(modules.items()):
        file = getattr(module, "__file__", None)
        if not isinstance(file, str) or os.path.normcase(os.path.basename(file)) != base:
            continue
        if normalize(file) == wanted:
            found.append((name, module))
    return found


def check_source_path(path: str) -> None:
    if not path.endswith(tuple(importlib.machinery.SOURCE_SUFFIXES)):
        raise ReloadError(
            NOT_A_PYTHON_SOURCE, f"{os.path.basename(path)} is not a Python source file", path=path
        )


def locate(path: str, modules) -> list[tuple[str, types.ModuleType]]:
    check_source_path(path)
    found = find_modules(path, modules)
    if not found:
        raise ReloadError(
            NOT_LOADED, f"{os.path.basename(path)} is not loaded by the program", path=path
        )
    return found


def read_source(path: str, new_source: str | bytes | None) -> str:
    try:
        if new_source is None:
            with open(path, "rb") as file:
                new_source = file.read()
        if isinstance(new_source, bytes):
            return importlib.util.decode_source(new_source)
        return new_source
    except (OSError, UnicodeDecodeError, SyntaxError) as error:
        raise ReloadError(
            NOT_A_PYTHON_SOURCE, f"cannot read {path} as Python source: {error}", path=path
        ) from error


def compiler_module(name: str) -> dict:
    """The keyword naming the module to the compiler (3.15+), as import passes it."""
    return {"module": name} if _COMPILE_NAMES_MODULE else {}


def compile_source(
    source: str, filename: str, path: str, module_name: str, restartable: bool = False
) -> tuple[ast.Module, types.CodeType]:
    """Parse and compile the tree; errors carry the line and column. 3.15+ compiles with
    the module's name, as import does, for its warnings filters. ``restartable``: the
    module was imported with restartable functions (instrumentation/restartable.py), and
    its new code must be too; the tree returned is the source's as written."""
    named = compiler_module(module_name)
    try:
        tree = ast.parse(source, filename, **named)
        compiled = tree
        if restartable:
            from ..instrumentation.restartable import guard_handlers, make_restartable

            compiled = ast.parse(source, filename, **named)
            make_restartable(compiled)
        code = compile(compiled, filename, "exec", dont_inherit=True, **named)
        if restartable:
            code = guard_handlers(code)
    except (SyntaxError, ValueError) as error:
        line = getattr(error, "lineno", None)
        column = getattr(error, "offset", None)
        message = getattr(error, "msg", None) or str(error)
        where = f" (line {line})" if line else ""
        raise ReloadError(
            COMPILE_ERROR, f"{message}{where}", path=path, line=line, column=column
        ) from error
    return tree, code


@dataclass
class Definition:
    """One ``def`` or ``class`` statement of the new source."""

    qualname: str
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    parent: Definition | None
    # True when the statement sits directly in its module or class body (not under an
    # ``if``/``try``/``with``): only such statements may be executed to add a definition.
    direct: bool
    code: types.CodeType | None = None
    # 3.14+: the code of the function's lazy ``__annotate__`` (None without annotations,
    # or with ``from __future__ import annotations``, which keeps them eager strings).
    annotate: types.CodeType | None = None
    children: list[Definition] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def is_class(self) -> bool:
        return isinstance(self.node, ast.ClassDef)

    @property
    def in_function(self) -> bool:
        return self.parent is not None and not self.parent.is_class

    @property
    def role(self) -> str:
        """``getter``/``setter``/``deleter`` for property accessors, else ``function``."""
        for decorator in self.node.decorator_list:
            if isinstance(decorator, ast.Attribute) and decorator.attr in ("setter", "deleter"):
                return decorator.attr
            if isinstance(decorator, ast.Name) and decorator.id == "property":
                return "getter"
        return "function"


def first_line(node: ast.AST) -> int:
    decorators = getattr(node, "decorator_list", None)
    return decorators[0].lineno if decorators else node.lineno


def code_qualname(code: types.CodeType, fallback: str) -> str:
    return code.co_qualname if _HAS_QUALNAME else fallback


def index_codes(module_code: types.CodeType) -> dict[tuple[str, int], types.CodeType]:
    """Every nested code object, keyed by (qualified name, first line). The qualified name
    is the compiler's on 3.11+, computed here as the compiler would before."""
    found: dict[tuple[str, int], types.CodeType] = {}

    def walk(code: types.CodeType, prefix: str) -> None:
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                computed = prefix + const.co_name
                qualname = code_qualname(const, computed)
                found.setdefault((qualname, const.co_firstlineno), const)
                is_function = const.co_flags & _CO_NEWLOCALS
                walk(const, qualname + (".<locals>." if is_function else "."))

    walk(module_code, "")
    return found


def index_definitions(tree: ast.Module, module_code: types.CodeType) -> list[Definition]:
    """The module's definitions as a tree, each paired with its code object."""
    codes = index_codes(module_code)

    def walk(body, prefix: str, parent: Definition | None, direct: bool) -> list[Definition]:
        out: list[Definition] = []
        for statement in body:
            if isinstance(statement, _DEF_NODES):
                qualname = prefix + statement.name
                definition = Definition(qualname, statement, parent, direct)
                definition.code = codes.get((qualname, first_line(statement)))
                if _LAZY_ANNOTATIONS and not definition.is_class and _annotated(statement):
                    definition.annotate = _annotate_code(codes, definition, prefix)
                inner = qualname + ("." if definition.is_class else ".<locals>.")
                definition.children = walk(statement.body, inner, definition, True)
                out.append(definition)
            else:
                for block in _blocks(statement):
                    out.extend(walk(block, prefix, parent, False))
        return out

    return walk(tree.body, "", None, True)


def _annotated(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    args = node.args
    every = args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
    return node.returns is not None or any(a is not None and a.annotation for a in every)


def _annotate_code(codes: dict, definition: Definition, prefix: str) -> types.CodeType | None:
    """A function's ``__annotate__`` is compiled next to it, starting on its ``def`` line:
    named ``f.__annotate__`` on 3.15+, plain ``__annotate__`` in f's scope on 3.14 (the
    module's or class's own starts on another line or comes later: the first one wins)."""
    line = definition.node.lineno
    return codes.get((f"{definition.qualname}.__annotate__", line)) or codes.get(
        (f"{prefix}__annotate__", line)
    )


def _blocks(statement: ast.stmt):
    for name in ("body", "orelse", "finalbody"):
        block = getattr(statement, name, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
    for handler in getattr(statement, "handlers", ()):
        yield handler.body
    for case in getattr(statement, "cases", ()):
        yield case.body


def body_statements(tree: ast.Module) -> dict[str, list[tuple[ast.stmt, str]]]:
    """The statements that are not definitions (nor docstrings) of the module body (scope
    ``""``) and of every class body outside functions (scope: the class's qualified name),
    each with a comparison key that ignores positions and nested definitions."""
    out: dict[str, list[tuple[ast.stmt, str]]] = {}

    def walk(body: list, scope: str) -> None:
        items = out.setdefault(scope, [])
        for index, statement in enumerate(body):
            if isinstance(statement, ast.ClassDef):
                walk(statement.body, f"{scope}.{statement.name}" if scope else statement.name)
            elif isinstance(statement, _DEF_NODES) or (index == 0 and _is_docstring(statement)):
                continue
            else:
                if any(isinstance(node, _DEF_NODES) for node in ast.walk(statement)):
                    statement = _StripDefinitions().visit(copy.deepcopy(statement))
                items.append((statement, ast.dump(statement)))

    walk(tree.body, "")
    return out


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def future_flags(tree: ast.Module) -> int:
    """The compiler flags of the module's ``from __future__`` imports, for compiling one
    of its statements on its own."""
    flags = 0
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
            for alias in statement.names:
                feature = getattr(__future__, alias.name, None)
                if feature is not None:
                    flags |= feature.compiler_flag
    return flags


class _StripDefinitions(ast.NodeTransformer):
    def _strip(self, node):
        return ast.Pass()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _strip
