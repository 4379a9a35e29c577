"""Request handlers for data breakpoints: dataBreakpointInfo and setDataBreakpoints
(breakpoints/data.py says what can be watched and what each watch costs).

dataBreakpointInfo names a binding by a variables reference and a child's name (the
Variables view's "Break When Value Changes"), or by a frame and an expression (a
watch: ``count``, ``self.count``, ``d['k']``, ``xs[3]``). Finding the binding may run
the program's code (the owner of an attribute, a subscript's key), so it runs on the
stopped thread that owns the frame, as evaluate does.
"""

from __future__ import annotations

import ast
import collections.abc
from typing import TYPE_CHECKING

from ..breakpoints.data import (
    ACCESS_TYPES,
    GlobalTarget,
    LocalTarget,
    Target,
    attribute_target,
    frame_on_a_stack,
    item_target,
)
from ..inspection.evaluation import run_code
from ..inspection.inspector import RETURN_VALUE_PREFIX, Container
from ..inspection.rendering import Group, member_expression, safe_repr
from .handling import RequestError, argument
from .inspection import RENDER_SECONDS, _on_stopped_thread

if TYPE_CHECKING:
    import types

    from ..session.debugger import Debugger


_NO_KEY = object()


def data_breakpoint_info(debugger: Debugger, arguments: dict):
    name = argument(arguments, "name", str)
    if arguments.get("asAddress") or arguments.get("bytes") is not None:
        return _no_data("Python values have no addresses to watch: watch a variable, "
                        "an attribute or an item instead.")
    inspector = debugger.inspector
    reference = arguments.get("variablesReference")
    frame_id = arguments.get("frameId")
    if reference:
        container = inspector.container(reference)
        thread_id = container.thread_id

        def work():
            return _describe(debugger, _child_target(container, name))
    elif frame_id is not None:
        entry = inspector.frame(frame_id)
        thread_id = entry.thread_id

        def work():
            return _describe(debugger, _expression_target(entry.frame, name))
    else:
        return _no_data("A data breakpoint needs a variable of a stopped frame.")
    return _on_stopped_thread(debugger, thread_id, work, RENDER_SECONDS)


def set_data_breakpoints(debugger: Debugger, arguments: dict):
    requested = arguments.get("breakpoints")
    if not isinstance(requested, list):
        raise RequestError("setDataBreakpoints 'breakpoints' must be an array")
    store = debugger.store
    answers = store.data_breakpoints().set_breakpoints(requested, store.allocate_fresh_id,
                                                       frame_on_a_stack)
    debugger.breakpoints_changed()
    return {"breakpoints": answers}


def _no_data(description: str) -> dict:
    return {"dataId": None, "description": description}


def _describe(debugger: Debugger, target: Target | str) -> dict:
    if isinstance(target, str):
        return _no_data(target)
    return {"dataId": debugger.store.data_breakpoints().data_id(target),
            "description": target.description,
            "accessTypes": ACCESS_TYPES, "canPersist": False}


def _scope_target(frame: types.FrameType, scope: str, name: str) -> Target | str:
    if scope == "globals" or frame.f_locals is frame.f_globals:
        if name not in frame.f_globals:
            return f"{name} is not a global of this module"
        return GlobalTarget(frame.f_globals, name, name)
    if name not in frame.f_locals:
        return f"{name} is not a local of this frame"
    return LocalTarget(frame, name, f"{name} (in {frame.f_code.co_name})")


def _child_target(container: Container, name: str) -> Target | str:
    """The binding shown as ``name`` in ``container`` (a scope, a group or a value)."""
    if name.startswith(RETURN_VALUE_PREFIX):
        return "A return value is not a variable."
    if container.kind in ("locals", "globals"):
        return _scope_target(container.frame, container.kind, name)
    if container.kind == "group":
        group = container.target
        assert isinstance(group, Group)
        if group.owner is None:
            return _scope_target(container.frame, container.scope or "locals", name)
        return _guarded(lambda: attribute_target(group.owner, name, name))
    target = container.target
    parent = container.evaluate_name or type(target).__name__
    if isinstance(target, collections.abc.Mapping):
        key = next((key for key in list(target.keys()) if safe_repr(key, 200) == name),
                   _NO_KEY)
        if key is _NO_KEY:
            return f"no key {name} in this mapping"
        return _guarded(lambda: item_target(target, key, f"{parent}[{name}]"))
    if isinstance(target, collections.abc.Sequence) and name.lstrip("-").isdigit():
        return _guarded(lambda: item_target(target, int(name), f"{parent}[{name}]"))
    return _guarded(lambda: attribute_target(target, name, member_expression(parent, name)
                                             or name))


def _expression_target(frame: types.FrameType, expression: str) -> Target | str:
    """The binding an expression names: ``name``, ``owner.attribute`` or
    ``container[key]`` (the owner, the container and the key are evaluated)."""
    try:
        node = ast.parse(expression.strip(), mode="eval").body
    except SyntaxError:
        return f"{expression} is not a variable, an attribute or an item"
    if isinstance(node, ast.Name):
        local = frame.f_locals is not frame.f_globals and node.id in frame.f_locals
        return _scope_target(frame, "locals" if local else "globals", node.id)
    if isinstance(node, ast.Attribute):
        return _guarded(lambda: attribute_target(
            run_code(frame, ast.unparse(node.value), allow_statements=False), node.attr,
            expression.strip()))
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        return _guarded(lambda: item_target(
            run_code(frame, ast.unparse(node.value), allow_statements=False),
            run_code(frame, ast.unparse(node.slice), allow_statements=False),
            expression.strip()))
    return f"{expression} is not a variable, an attribute or an item"


def _guarded(make) -> Target | str:
    try:
        return make()
    except RequestError as error:
        return str(error)
