"""How values look in the Variables view: a safe, bounded repr, a type name, and the
children a value expands to.

Everything here may run user code (``__repr__``, ``__len__``, iteration), so every
call is guarded: a failure becomes text such as ``<repr raised ValueError: boom>``,
never an exception out of a request handler.
"""

from __future__ import annotations

import contextlib
import itertools
from dataclasses import dataclass

MAX_VALUE_LENGTH = 1000
MAX_CHILDREN = 1000
_ELLIPSIS = "…"

# Values shown as a single line with nothing to expand.
_SCALAR_TYPES = (str, bytes, bytearray, int, float, complex, bool, type(None), range)
_SEQUENCE_TYPES = (list, tuple)
_SET_TYPES = (set, frozenset)
# Key types whose repr is valid Python that evaluates back to the same key.
_LITERAL_KEY_TYPES = (str, bytes, int, float, bool, type(None))


def _describe_error(prefix: str, error: BaseException) -> str:
    try:
        detail = str(error)
    except Exception:
        detail = "<unprintable>"
    name = type(error).__name__
    return f"<{prefix} raised {name}: {detail}>" if detail else f"<{prefix} raised {name}>"


def safe_repr(value, limit: int = MAX_VALUE_LENGTH) -> str:
    """``repr(value)`` that never raises and never exceeds ``limit`` characters. Built-in
    containers are rendered item by item, so a huge list costs ``limit``, not its size."""
    text = _repr(value, limit, set())
    if len(text) > limit:
        text = text[: limit - 1] + _ELLIPSIS
    return text


def _repr(value, limit: int, active: set[int]) -> str:
    kind = type(value)
    if kind in (list, tuple, set, frozenset, dict):
        if id(value) in active:
            return "[...]" if kind is list else "{...}" if kind is dict else "(...)"
        active.add(id(value))
        try:
            return _container_repr(value, kind, limit, active)
        finally:
            active.discard(id(value))
    try:
        text = repr(value)
    except Exception as error:
        return _describe_error("repr", error)
    return text


def _container_repr(value, kind, limit: int, active: set[int]) -> str:
    if kind is dict:
        items = (f"{_repr(k, limit, active)}: {_repr(v, limit, active)}" for k, v in value.items())
        opening, closing = "{", "}"
    else:
        items = (_repr(item, limit, active) for item in value)
        if kind is list:
            opening, closing = "[", "]"
        elif kind is tuple:
            opening, closing = "(", ",)" if len(value) == 1 else ")"
        else:
            if not value:
                return f"{kind.__name__}()"
            opening, closing = ("{", "}") if kind is set else ("frozenset({", "})")
    pieces = []
    length = len(opening)
    for text in items:
        pieces.append(text)
        length += len(text) + 2
        if length > limit:
            pieces.append("...")
            break
    return opening + ", ".join(pieces) + closing


def type_name(value) -> str:
    kind = type(value)
    module = getattr(kind, "__module__", "builtins")
    name = getattr(kind, "__qualname__", kind.__name__)
    return name if module in ("builtins", "__main__") else f"{module}.{name}"


def _attribute_names(value) -> list[str]:
    """Instance attribute names: ``__dict__`` keys, then ``__slots__`` that are set."""
    names: list[str] = []
    try:
        attributes = vars(value)
    except TypeError:
        attributes = None
    if attributes is not None:
        with contextlib.suppress(Exception):
            names.extend(name for name in attributes if isinstance(name, str))
    seen = set(names)
    for klass in getattr(type(value), "__mro__", ()):
        slots = klass.__dict__.get("__slots__", ())
        if isinstance(slots, str):
            slots = (slots,)
        for slot in slots:
            if slot in seen or slot in ("__dict__", "__weakref__"):
                continue
            if slot.startswith("__") and not slot.endswith("__"):
                slot = f"_{klass.__name__.lstrip('_')}{slot}"
            seen.add(slot)
            names.append(slot)
    return names


def _safe_len(value) -> int:
    try:
        return len(value)
    except Exception:
        return 0


@dataclass
class Shape:
    """How a value expands: whether it has children and how many of each kind."""

    expandable: bool
    indexed: int = 0
    named: int = 0


def shape_of(value) -> Shape:
    if isinstance(value, _SCALAR_TYPES):
        return Shape(False)
    if isinstance(value, (_SEQUENCE_TYPES, _SET_TYPES)):
        return Shape(True, indexed=_safe_len(value))
    if isinstance(value, dict):
        return Shape(True, named=_safe_len(value))
    try:
        return Shape(bool(_attribute_names(value)))
    except Exception:
        return Shape(False)


@dataclass
class Child:
    name: str
    value: object
    evaluate_name: str | None
    # A child that stands for "more not shown" carries its text instead of a value.
    note: str | None = None


def children_of(
    value,
    evaluate_name: str | None,
    filter_kind: str | None = None,
    start: int = 0,
    count: int = 0,
) -> list[Child]:
    """The children of ``value`` for a ``variables`` request. ``filter_kind`` is the DAP
    ``filter`` (indexed, named or None for both); ``start``/``count`` page the result
    (``count`` 0 means all, capped at MAX_CHILDREN)."""
    limit = count if count > 0 else MAX_CHILDREN
    start = max(start, 0)
    if isinstance(value, _SCALAR_TYPES):
        return []
    if isinstance(value, (_SEQUENCE_TYPES, _SET_TYPES)):
        if filter_kind == "named":
            return []
        indexable = isinstance(value, _SEQUENCE_TYPES)
        items = itertools.islice(enumerate(value), start, start + limit)
        result = [
            Child(str(index), item,
                  f"{evaluate_name}[{index}]" if indexable and evaluate_name else None)
            for index, item in items
        ]
        return _note_more(result, _safe_len(value), start, count)
    if isinstance(value, dict):
        if filter_kind == "indexed":
            return []
        entries = itertools.islice(value.items(), start, start + limit)
        result = [
            Child(safe_repr(key, 200), item, _item_name(evaluate_name, key))
            for key, item in entries
        ]
        return _note_more(result, _safe_len(value), start, count)
    if filter_kind == "indexed":
        return []
    return _attribute_children(value, evaluate_name, start, limit)


def _note_more(result: list[Child], total: int, start: int, count: int) -> list[Child]:
    if count <= 0 and start + len(result) < total:
        missing = total - start - len(result)
        result.append(Child("…", None, None, note=f"{missing} more not shown"))
    return result


def _item_name(evaluate_name: str | None, key) -> str | None:
    if evaluate_name is None or type(key) not in _LITERAL_KEY_TYPES:
        return None
    if isinstance(key, float) and key != key:  # nan does not round-trip.
        return None
    return f"{evaluate_name}[{key!r}]"


def _attribute_children(value, evaluate_name, start, limit) -> list[Child]:
    result = []
    for name in _attribute_names(value)[start:start + limit]:
        try:
            attribute = getattr(value, name)
        except AttributeError:
            # An unset __slots__ entry: not an attribute yet.
            continue
        except Exception as error:
            result.append(Child(name, None, None, note=_describe_error("getattr", error)))
            continue
        expression = f"{evaluate_name}.{name}" if evaluate_name and name.isidentifier() else None
        result.append(Child(name, attribute, expression))
    return result
