"""Patching a live class from its new ``class`` statement: its methods (plain, static,
class, properties, decorated), nested classes and new members, after checking that its
layout (bases, metaclass, ``__slots__``, dataclass fields) did not change."""

from __future__ import annotations

import ast
import dataclasses
import sys
import types

from .errors import Refusal
from .functions import (
    _UNKNOWN,
    Context,
    Patch,
    Plan,
    class_doc,
    is_definition_of,
    latest_definitions,
    make_function,
    plan_function,
    resolve,
    static_value,
)
from .source import Definition

_MISSING = object()


def layout_change(live: type, node: ast.ClassDef, namespaces: tuple) -> str | None:
    """Why the new statement would build a class of another layout, or None."""
    bases = [static_value(base, namespaces) for base in node.bases]
    if _UNKNOWN not in bases:
        expected = tuple(bases) or (object,)
        if expected != live.__bases__:
            names = ", ".join(getattr(b, "__name__", repr(b)) for b in expected)
            return f"its bases changed (now {names}): the class must be rebuilt"
    for keyword in node.keywords:
        if keyword.arg == "metaclass":
            meta = static_value(keyword.value, namespaces)
            if meta is not _UNKNOWN and meta is not type(live):
                return "its metaclass changed"
    old_slots = _slot_names(live.__dict__.get("__slots__", _MISSING))
    new_slots = _MISSING
    for statement in node.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__slots__" for t in statement.targets
        ):
            value = static_value(statement.value, ())
            new_slots = _slot_names(value) if value is not _UNKNOWN else _UNKNOWN
    if new_slots is not _UNKNOWN and new_slots != old_slots:
        return "its __slots__ changed: instances have another layout"
    if dataclasses.is_dataclass(live) and "__dataclass_fields__" in live.__dict__:
        own = own_annotation_names(live)
        new_fields = [
            s.target.id
            for s in node.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        ]
        if own is not None and new_fields != own:
            return "its dataclass fields changed: __init__ and instances have another layout"
    return None


def own_annotation_names(cls: type) -> list[str] | None:
    """The names the class's own body annotates, in order, without evaluating them (None
    when they cannot be read). 3.14+ keeps them lazily in ``__annotate__``: the STRING
    format runs it with stand-ins for every name, so no program code runs."""
    if sys.version_info < (3, 14):
        return list(cls.__dict__.get("__annotations__", {}))
    import annotationlib  # 3.14+

    try:
        return list(annotationlib.get_annotations(cls, format=annotationlib.Format.STRING))
    except Exception:  # noqa: BLE001 (a hand-written __annotate__ may raise)
        return None


def _slot_names(value):
    if value is _MISSING:
        return _MISSING
    if isinstance(value, str):
        return (value,)
    try:
        return tuple(value)
    except TypeError:
        return _UNKNOWN


def plan_class(live: type, definition: Definition, ctx: Context, plan: Plan) -> bool:
    """Plan the patches of ``live``; False when the class is refused as a whole."""
    namespaces = (dict(live.__dict__), ctx.namespace)
    reason = layout_change(live, definition.node, namespaces)
    if reason:
        plan.refused.append(Refusal(definition.qualname, reason))
        return False
    before = len(plan.patches)
    doc = class_doc(definition.node)
    if doc != live.__dict__.get("__doc__"):
        plan.patches.append(Patch(definition.qualname, "class", lambda: _set_doc(live, doc)))
    children = latest_definitions(definition.children)
    for child in children:
        raw = live.__dict__.get(child.name, _MISSING)
        if child.is_class:
            _plan_nested_class(live, raw, child, ctx, plan)
        elif raw is _MISSING:
            _plan_new_method(live, child, ctx, namespaces, plan)
        else:
            _plan_method(live, raw, child, ctx, namespaces, plan)
    names = {child.name for child in children}
    for name, raw in live.__dict__.items():
        if name not in names and _defined_here(raw, f"{definition.qualname}.{name}", ctx):
            plan.removed.append(f"{definition.qualname}.{name}")
    if len(plan.patches) > before and all(p.qualname != definition.qualname for p in plan.patches):
        plan.patches.append(Patch(definition.qualname, "class", lambda: None))
    return True


def _set_doc(live: type, doc: str | None) -> None:
    live.__doc__ = doc


def _defined_here(raw, qualname: str, ctx: Context) -> bool:
    if isinstance(raw, type):
        return raw.__qualname__ == qualname and raw.__module__ == ctx.module_name
    if isinstance(raw, property):
        raw = raw.fget
    elif isinstance(raw, (staticmethod, classmethod)):
        raw = raw.__func__
    return is_definition_of(raw, qualname, ctx)


def _plan_nested_class(live, raw, child: Definition, ctx: Context, plan: Plan) -> None:
    if isinstance(raw, type) and raw.__qualname__ == child.qualname:
        plan_class(raw, child, ctx, plan)
    elif raw is _MISSING and child.direct:
        plan.patches.append(
            Patch(child.qualname, "added", lambda: _define_in_class(live, child, ctx))
        )
    elif raw is _MISSING:
        plan.warnings.append(f"{child.qualname} is defined under a condition: not run")
    else:
        plan.refused.append(Refusal(child.qualname, "the live attribute is not this class"))


def _define_in_class(live: type, child: Definition, ctx: Context) -> None:
    """Run only the nested ``class`` statement, with the live class body as its locals."""
    namespace = dict(live.__dict__)
    code = ctx.compile(ast.Module([child.node], []))
    exec(code, ctx.namespace, namespace)
    made = namespace[child.name]
    made.__qualname__ = child.qualname
    setattr(live, child.name, made)


def _plan_method(live, raw, child: Definition, ctx: Context, namespaces, plan: Plan) -> None:
    function = resolve(raw, child.qualname, child.role, ctx)
    if isinstance(function, str):
        plan.refused.append(Refusal(child.qualname, function))
        return
    code = child.code
    old_free = function.__code__.co_freevars
    if code is not None and set(code.co_freevars) ^ set(old_free) == {"__class__"}:
        outcome = _replace_for_super(live, raw, function, child, ctx, namespaces)
        if isinstance(outcome, Patch):
            plan.warnings.append(
                f"{child.qualname}: its super() cell changed, so a new function replaces it in "
                "the class; references taken before the reload keep the old one"
            )
        plan.add(outcome, function, child.qualname)
        return
    plan.add(plan_function(function, child, namespaces), function, child.qualname)


def _replace_for_super(live, raw, function, child, ctx, namespaces) -> Patch | Refusal:
    """A method that starts or stops using zero-argument super() gains or loses its
    ``__class__`` cell, so its code cannot be swapped in place: a new function (with the
    cell pointing at the live class) replaces it in the class."""
    cells = {}
    for name, cell in zip(function.__code__.co_freevars, function.__closure__ or ()):
        cells[name] = cell
    cells.update(_class_cells(live))
    made = make_function(child.code, child, ctx, namespaces, cells)
    if isinstance(made, str):
        return Refusal(child.qualname, made)
    if raw is function:
        replacement = made
    elif isinstance(raw, (staticmethod, classmethod)) and raw.__func__ is function:
        replacement = type(raw)(made)
    elif isinstance(raw, property):
        accessor = {"setter": "setter", "deleter": "deleter"}.get(child.role, "getter")
        replacement = getattr(raw, accessor)(made)
    else:
        return Refusal(
            child.qualname,
            "it now uses (or stops using) super() under a decorator: the wrapper cannot be rebuilt",
        )

    def apply() -> None:
        setattr(live, child.name, replacement)

    return Patch(
        child.qualname,
        "updated",
        apply,
        {id(function.__code__): (function.__code__, child.code)},
    )


def _class_cells(live: type) -> dict:
    """The cells a function compiled in the class body may close over: ``__class__``
    (zero-argument super()) and, for its 3.14+ ``__annotate__``, the class namespace."""
    return {"__class__": types.CellType(live), "__classdict__": types.CellType(live.__dict__)}


def _plan_new_method(live, child: Definition, ctx: Context, namespaces, plan: Plan) -> None:
    if not child.direct or child.code is None:
        plan.warnings.append(f"{child.qualname} is defined under a condition: not run")
        return
    cells = _class_cells(live)
    made = make_function(child.code, child, ctx, namespaces, cells)
    if isinstance(made, str):
        plan.refused.append(Refusal(child.qualname, made))
        return
    decorators = []
    for node in child.node.decorator_list:
        decorators.append(ctx.compile(ast.Expression(node), "eval"))

    def apply() -> None:
        value = made
        class_namespace = dict(live.__dict__)
        for decorator in reversed(decorators):
            value = eval(decorator, ctx.namespace, class_namespace)(value)
        setattr(live, child.name, value)

    plan.patches.append(Patch(child.qualname, "added", apply))
