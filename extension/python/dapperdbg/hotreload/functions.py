"""Patching one live function in place from a new code object, and finding that function
under the decorators, descriptors and wrapper closures the program put around it."""

from __future__ import annotations

import ast
import builtins
import functools
import sys
import types
from dataclasses import dataclass, field
from typing import Callable

from ..common.source_texts import normalize
from .errors import Refusal
from .source import Definition, compiler_module

_UNKNOWN = object()
_UNCHANGED = object()
_CO_FUTURE_ANNOTATIONS = 0x1000000
_ROLE_ATTRIBUTE = {"function": "fget", "getter": "fget", "setter": "fset", "deleter": "fdel"}
_C_TYPES = (
    types.BuiltinFunctionType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    types.MethodWrapperType,
    types.ClassMethodDescriptorType,
)


@dataclass
class Context:
    """What every patch of one module needs."""

    module_name: str
    namespace: dict
    filename: str  # the co_filename the module's code objects carry
    path: str  # normalized
    future: int = 0  # compiler flags of the module's __future__ imports
    _same_file: dict = field(default_factory=dict)

    def compile(self, tree: ast.Module | ast.Expression, mode: str = "exec") -> types.CodeType:
        """Compile part of the new source as the module was compiled (its ``__future__``
        imports; on 3.15+ its name, which warnings filters match)."""
        return compile(
            tree, self.filename, mode, flags=self.future, dont_inherit=True,
            **compiler_module(self.module_name),
        )

    def is_ours(self, code: types.CodeType) -> bool:
        filename = code.co_filename
        known = self._same_file.get(filename)
        if known is None:
            known = filename == self.filename or normalize(filename) == self.path
            self._same_file[filename] = known
        return known


@dataclass
class Patch:
    """One change, planned before anything is touched and applied by ``apply``."""

    qualname: str
    category: str  # "updated", "moved" (only its lines changed) or "added"
    apply: Callable[[], None]
    # id(old code) -> (old code, new code): frames running an old one are reported (and,
    # while the program runs, make the patch wait). Keyed by identity: equal code objects
    # of different functions are different code to a frame.
    replaced: dict = field(default_factory=dict)


def same_code(old: types.CodeType, new: types.CodeType) -> bool:
    """Equal code, line table included (code equality ignores line tables on 3.9)."""
    if old is new:
        return True
    if old != new or _lines(old) != _lines(new):
        return False
    nested_old = [c for c in old.co_consts if isinstance(c, types.CodeType)]
    nested_new = [c for c in new.co_consts if isinstance(c, types.CodeType)]
    return all(same_code(a, b) for a, b in zip(nested_old, nested_new))


def only_moved(old: types.CodeType, new: types.CodeType) -> bool:
    """The same code, every line moved by the same amount (an edit above it)."""
    return same_code(_shifted(old, new.co_firstlineno - old.co_firstlineno), new)


def _shifted(code: types.CodeType, delta: int) -> types.CodeType:
    """``code`` as if it started ``delta`` lines further down (line tables are relative
    to the first line, on every supported version)."""
    consts = tuple(_shifted(c, delta) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return code.replace(co_firstlineno=code.co_firstlineno + delta, co_consts=consts)


def _lines(code: types.CodeType):
    return getattr(code, "co_linetable", None) if sys.version_info >= (3, 10) else code.co_lnotab


def code_doc(code: types.CodeType) -> str | None:
    """The ``__doc__`` a function made from ``code`` gets, exactly as the interpreter
    derives it (3.13 cleans indentation at compile time, 3.14 flags docstrings)."""
    cells = tuple(types.CellType() for _ in code.co_freevars) or None
    return types.FunctionType(code, {}, None, None, cells).__doc__


def class_doc(node: ast.ClassDef) -> str | None:
    """The ``__doc__`` the ``class`` statement would give (compiled as the interpreter
    compiles docstrings: cleaned on 3.13+)."""
    raw = ast.get_docstring(node, clean=False)
    if raw is None or sys.version_info < (3, 13):
        return raw
    template = ast.parse("def _():\n    pass\n")
    template.body[0].body = [ast.Expr(ast.Constant(raw))]
    code = compile(ast.fix_missing_locations(template), "<doc>", "exec", dont_inherit=True)
    function_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    return code_doc(function_code)


def code_name(function: types.FunctionType) -> str:
    code = function.__code__
    return getattr(code, "co_qualname", None) or function.__qualname__


def is_definition_of(obj, qualname: str, ctx: Context) -> bool:
    if not isinstance(obj, types.FunctionType):
        return False
    code = obj.__code__
    if code.co_name != qualname.rsplit(".", 1)[-1] or not ctx.is_ours(code):
        return False
    return code_name(obj) == qualname


def resolve(obj, qualname: str, role: str, ctx: Context) -> types.FunctionType | str:
    """The function object defined by ``qualname`` inside ``obj`` (a function, a method
    descriptor, a property, a decorator's wrapper), or the reason it cannot be patched."""
    start = obj
    if isinstance(obj, property):
        start = getattr(obj, _ROLE_ATTRIBUTE[role])
    elif isinstance(obj, (staticmethod, classmethod)):
        start = obj.__func__
    seen = set()
    queue = [start]
    for _ in range(32):
        if not queue:
            break
        current = queue.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if is_definition_of(current, qualname, ctx):
            return current
        for attribute in ("__wrapped__", "__func__", "func"):
            inner = getattr(current, attribute, None) if _plain_attr(current) else None
            if inner is not None:
                queue.append(inner)
        if isinstance(current, types.FunctionType):
            for cell in current.__closure__ or ():
                try:
                    content = cell.cell_contents
                except ValueError:
                    continue
                if callable(content):
                    queue.append(content)
    if isinstance(start, _C_TYPES):
        return "implemented in C, not Python: it cannot be patched"
    if isinstance(start, types.FunctionType):
        return (
            f"the live {code_name(start)} is not this definition "
            "(the program rebound the name or copied the function)"
        )
    return f"the live object is a {type(start).__name__}, not a function defined in this file"


def _plain_attr(obj) -> bool:
    # Reading attributes of arbitrary program objects may run their code; only look into
    # the kinds that wrap functions.
    return (
        isinstance(
            obj,
            (
                types.FunctionType,
                types.MethodType,
                staticmethod,
                classmethod,
                functools.partial,
                functools.partialmethod,
                functools.cached_property,
            ),
        )
        or hasattr(type(obj), "__wrapped__")
        or "__wrapped__" in getattr(obj, "__dict__", ())
    )


def _literal(node: ast.expr) -> object:
    """A literal's value; names are not looked up (a nested function's defaults may name
    locals of its enclosing function)."""
    if isinstance(node, ast.Constant):
        return node.value
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNKNOWN


def static_value(node: ast.expr, namespaces: tuple) -> object:
    """The value of a literal or a dotted name, without running program code."""
    value = _literal(node)
    if value is not _UNKNOWN:
        return value
    if isinstance(node, ast.Name):
        for namespace in namespaces:
            if node.id in namespace:
                return namespace[node.id]
        return getattr(builtins, node.id, _UNKNOWN)
    if isinstance(node, ast.Attribute):
        base = static_value(node.value, namespaces)
        if base is _UNKNOWN or not isinstance(base, (types.ModuleType, type)):
            return _UNKNOWN
        return base.__dict__.get(node.attr, _UNKNOWN)
    return _UNKNOWN


def _keep_identity(old, new):
    """An equal old default is kept, and so is an old mutable default of the same type (it
    may hold program state, a cache say): a reload never resets it."""
    if type(old) is type(new) and isinstance(old, (list, dict, set, bytearray)):
        return old
    try:
        if type(old) is type(new) and old == new:
            return old
    except Exception:  # noqa: BLE001 (program __eq__)
        pass
    return new


def new_defaults(function, node, namespaces, evaluate=None):
    """(``__defaults__``, ``__kwdefaults__``) for the new signature, or a refusal reason.
    ``evaluate`` (for a new definition, whose ``def`` may run) computes what a static
    reading cannot."""
    old_code = function.__code__
    old_positional = old_code.co_varnames[: old_code.co_argcount]
    old_defaults = function.__defaults__ or ()
    old_by_name = dict(zip(old_positional[len(old_positional) - len(old_defaults) :], old_defaults))
    old_by_name.update(function.__kwdefaults__ or {})

    args = node.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    with_default = positional[len(positional) - len(args.defaults) :]
    defaults = []
    for name, expression in zip(with_default, args.defaults):
        value = _default(name, expression, namespaces, old_by_name, evaluate)
        if isinstance(value, Refusal):
            return value.reason
        defaults.append(value)
    kwdefaults = {}
    for argument, expression in zip(args.kwonlyargs, args.kw_defaults):
        if expression is not None:
            value = _default(argument.arg, expression, namespaces, old_by_name, evaluate)
            if isinstance(value, Refusal):
                return value.reason
            kwdefaults[argument.arg] = value
    return (tuple(defaults) or None), (kwdefaults or None)


def _default(name, expression, namespaces, old_by_name, evaluate):
    value = static_value(expression, namespaces) if namespaces is not None else _literal(expression)
    if value is _UNKNOWN:
        if name in old_by_name:
            return old_by_name[name]
        if evaluate is not None:
            return evaluate(expression)
        return Refusal(name, f"the new default of {name} cannot be computed without running code")
    if name in old_by_name:
        return _keep_identity(old_by_name[name], value)
    return value


def new_annotations(function, node, code, namespaces) -> dict | None:
    """The new ``__annotations__``, or None when some cannot be computed statically."""
    args = node.args
    pairs = [(a.arg, a.annotation) for a in args.posonlyargs + args.args + args.kwonlyargs]
    for extra in (args.vararg, args.kwarg):
        if extra is not None:
            pairs.append((extra.arg, extra.annotation))
    pairs.append(("return", node.returns))
    as_strings = bool(code.co_flags & _CO_FUTURE_ANNOTATIONS)
    out = {}
    for name, annotation in pairs:
        if annotation is None:
            continue
        if as_strings:
            out[name] = ast.unparse(annotation)
            continue
        value = static_value(annotation, namespaces) if namespaces is not None else _UNKNOWN
        if value is _UNKNOWN:
            return None
        out[name] = value
    return out


def plan_function(
    function: types.FunctionType,
    definition: Definition,
    namespaces: tuple,
) -> Patch | Refusal | None:
    """The patch making ``function`` the new definition in place (None: nothing changed)."""
    new_code = definition.code
    qualname = definition.qualname
    if new_code is None:
        return Refusal(qualname, "its new code object was not found in the compiled source")
    old_code = function.__code__
    if new_code.co_freevars != old_code.co_freevars:
        return Refusal(
            qualname,
            f"its free variables changed ({', '.join(old_code.co_freevars) or 'none'} -> "
            f"{', '.join(new_code.co_freevars) or 'none'}): existing closures cannot take it",
        )
    defaults = new_defaults(function, definition.node, namespaces)
    if isinstance(defaults, str):
        return Refusal(qualname, defaults)
    doc = code_doc(new_code)
    annotate = _lazy_annotations(function, definition)
    annotations = None
    if annotate is None:
        annotations = new_annotations(function, definition.node, new_code, namespaces)
        try:
            if annotations == function.__annotations__:
                annotations = None
        except Exception:  # noqa: BLE001 (3.14+: the old lazy annotations may raise)
            pass
    elif annotate is _UNCHANGED:
        annotate = None
    unchanged = (
        same_code(old_code, new_code)
        and defaults == (function.__defaults__, function.__kwdefaults__)
        and doc == function.__doc__
        and annotations is None
        and annotate is None
    )
    if unchanged:
        return None

    def apply() -> None:
        function.__code__ = new_code
        function.__defaults__, function.__kwdefaults__ = defaults
        function.__doc__ = doc
        if annotate is not None:
            function.__annotate__ = annotate  # and forgets the annotations it computed
        elif annotations is not None:
            function.__annotations__ = annotations

    old_annotate = getattr(function, "__annotate__", None)
    annotations_moved = annotate is None or (
        isinstance(old_annotate, types.FunctionType)
        and only_moved(old_annotate.__code__, annotate.__code__)
    )
    same_otherwise = (defaults == (function.__defaults__, function.__kwdefaults__)
                      and doc == function.__doc__ and annotations is None and annotations_moved)
    category = "moved" if same_otherwise and only_moved(old_code, new_code) else "updated"
    return Patch(qualname, category, apply, {id(old_code): (old_code, new_code)})


def make_function(
    code: types.CodeType,
    definition: Definition,
    ctx: Context,
    namespaces: tuple,
    cells: dict,
) -> types.FunctionType | str:
    """A new function from its code object (used for methods added to a live class);
    ``cells`` gives the closure cells by free variable name (``__class__`` for super())."""
    missing = [name for name in code.co_freevars if name not in cells]
    if missing:
        return f"it closes over {', '.join(missing)}, which a reload cannot provide"
    closure = tuple(cells[name] for name in code.co_freevars) or None
    function = types.FunctionType(code, ctx.namespace, definition.name, None, closure)
    function.__qualname__ = definition.qualname
    class_namespace, module_namespace = namespaces

    def evaluate(expression: ast.expr):
        code = ctx.compile(ast.Expression(expression), "eval")
        return eval(code, module_namespace, dict(class_namespace))

    try:
        defaults = new_defaults(function, definition.node, namespaces, evaluate)
    except Exception as error:  # noqa: BLE001 (the program's default expression raised)
        return f"its default values raised {type(error).__name__}: {error}"
    if isinstance(defaults, str):
        return defaults
    function.__defaults__, function.__kwdefaults__ = defaults
    function.__doc__ = code_doc(code)
    function.__module__ = ctx.module_name
    annotate = _lazy_annotations(function, definition, cells)
    if isinstance(annotate, types.FunctionType):
        function.__annotate__ = annotate
    else:
        annotations = new_annotations(function, definition.node, code, namespaces)
        if annotations:
            function.__annotations__ = annotations
    return function


def _lazy_annotations(function, definition: Definition, cells: dict | None = None):
    """3.14+: the new ``__annotate__`` function (annotations stay lazy, evaluated when read,
    as the ``def`` statement would leave them), ``_UNCHANGED`` when the old one has the
    same code, or None when there is none to make (no annotations, eager ones, or a free
    variable no cell can be found for): then they are computed statically."""
    code = definition.annotate
    if code is None:
        return None
    old = getattr(function, "__annotate__", None)
    if isinstance(old, types.FunctionType):
        if same_code(old.__code__, code):
            return _UNCHANGED
        cells = dict(cells or {})
        cells.update(zip(old.__code__.co_freevars, old.__closure__ or ()))
    cells = cells or {}
    if any(name not in cells for name in code.co_freevars):
        return None
    closure = tuple(cells[name] for name in code.co_freevars) or None
    annotate = types.FunctionType(code, function.__globals__, "__annotate__", None, closure)
    annotate.__qualname__ = code_name(annotate)
    return annotate


@dataclass
class Plan:
    """Everything one reload will do, gathered before anything changes."""

    patches: list[Patch] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Functions the plan patches (by id), so copies sharing their code can be told apart.
    patched: set = field(default_factory=set)
    # Qualified name -> the live function found for it (patched or not): the code of an
    # enclosing function leads to the code objects of the closures it made.
    live: dict = field(default_factory=dict)

    def add(self, outcome: Patch | Refusal | None, function=None, qualname=None) -> None:
        if function is not None and qualname is not None:
            self.live[qualname] = function
        if isinstance(outcome, Patch):
            self.patches.append(outcome)
            if function is not None:
                self.patched.add(id(function))
        elif isinstance(outcome, Refusal):
            self.refused.append(outcome)


def latest_definitions(definitions: list[Definition]) -> list[Definition]:
    """One definition per (name, accessor role): the last one wins, as it does when the
    body runs (``typing.overload`` stubs, ``if``/``else`` variants)."""
    chosen: dict = {}
    for definition in definitions:
        chosen[(definition.name, definition.role if not definition.is_class else "class")] = (
            definition
        )
    return list(chosen.values())
