"""How values look in the Variables view: a safe, bounded repr, a type name, and the
children a value expands to.

Everything here may run user code (``__repr__``, ``__len__``, properties), so every
call is guarded: a failure becomes text such as ``<repr raised ValueError: boom>`` and
user code that runs too long is interrupted (inside a work item, see stopped_work) and
shown as ``<repr timed out after 1 s>``, never an exception out of a request handler.
"""

from __future__ import annotations

import collections.abc
import contextlib
import inspect
import itertools
import types

from .presenters import field_order, presenter_for, public_type_name
from .values import (
    MAX_CHILDREN,
    MAX_VALUE_LENGTH,
    TRUNCATION_MARKER,
    Child,
    Failed,
    Group,
    Shape,
    describe_error,
    guarded,
    member_expression,
    note_more,
)

SPECIAL_GROUP = "special variables"
FUNCTION_GROUP = "function variables"
CLASS_GROUP = "class variables"
GROUP_ORDER = (SPECIAL_GROUP, FUNCTION_GROUP, CLASS_GROUP)

# Values shown as a single line with nothing to expand.
_SCALAR_TYPES = (str, bytes, bytearray, int, float, complex, bool, type(None), range)
# Types whose repr runs no user code: no deadline needed (that keeps big scopes fast).
_PLAIN_REPR_TYPES = frozenset({str, bytes, int, float, complex, bool, type(None), range})
# Types whose repr is short and runs no user code.
_SHORT_REPR_TYPES = frozenset({int, float, bool, type(None)})
# Values that are never functions or classes, whatever their name.
simple_member_types = frozenset({str, bytes, int, float, complex, bool, type(None), list,
                                 tuple, dict, set, frozenset})
# Built-in containers, rendered item by item (not by their own repr) when big.
_CONTAINER_TYPES = frozenset({list, tuple, set, frozenset, dict})
_INDEXABLE_TYPES = (list, tuple)
_SET_TYPES = (set, frozenset)
# Key types whose repr is valid Python that evaluates back to the same key.
_LITERAL_KEY_TYPES = (str, bytes, int, float, bool, type(None))


class Format:
    """How to render: ``limit`` characters at most (None: no limit), integers in hex,
    and with ``own_repr`` every value as its own repr (the debug console and the
    clipboard: a DataFrame as its table) rather than a presenter's one-line summary.
    (The value classes here are plain classes, not dataclasses: each dataclass costs
    its module's import a fraction of a ms.)"""

    __slots__ = ("limit", "hex", "own_repr")

    def __init__(self, limit: int | None = MAX_VALUE_LENGTH, hex: bool = False,
                 own_repr: bool = False) -> None:
        self.limit = limit
        self.hex = hex
        self.own_repr = own_repr

    def _key(self) -> tuple:
        return (self.limit, self.hex, self.own_repr)

    def __eq__(self, other) -> bool:
        if type(other) is not Format:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Format(limit={self.limit!r}, hex={self.hex!r}, "
                f"own_repr={self.own_repr!r})")


DEFAULT_FORMAT = Format()


def safe_repr(value, limit: int | None = MAX_VALUE_LENGTH, hex: bool = False) -> str:
    """``repr(value)`` that never raises and never exceeds ``limit`` characters (plus the
    truncation marker). Built-in containers are rendered item by item, so a huge list
    costs ``limit``, not its size."""
    return format_value(value, Format(limit, hex))


def format_value(value, fmt: Format) -> str:
    """``safe_repr`` with the limit and hex setting of ``fmt``."""
    limit = fmt.limit
    kind = type(value)
    if kind in _PLAIN_REPR_TYPES and not (fmt.hex and kind is int) and (
        limit is None or kind not in (str, bytes) or len(value) <= limit
    ):
        # The common case (scopes full of numbers and short strings) stays cheap.
        text = _plain_repr(value)
    else:
        text = None
        if kind in _CONTAINER_TYPES and not fmt.hex:
            # Before the general path, which guards against recursion: a container of
            # scalars only cannot contain itself.
            text = _small_container_repr(value, kind)
        if text is None:
            text = _repr(value, fmt, set())
    if limit is not None and len(text) > limit:
        text = text[:limit] + TRUNCATION_MARKER
    return text


def _plain_repr(value) -> str:
    """The repr of a value of one of _PLAIN_REPR_TYPES. Only an int can fail: one with
    more digits than ``sys.get_int_max_str_digits()`` allows (3.11+) raises ValueError."""
    try:
        return repr(value)
    except ValueError as error:
        return describe_error("repr", error)


def _repr(value, fmt: Format, active: set[int]) -> str:
    kind = type(value)
    if kind is int and fmt.hex:
        return hex(value)
    if kind in _PLAIN_REPR_TYPES:
        if kind in (str, bytes) and fmt.limit is not None and len(value) > fmt.limit:
            # Only the shown part is rendered; the quote is added back for symmetry.
            return repr(value[: fmt.limit + 1])
        return _plain_repr(value)
    if kind in _CONTAINER_TYPES:
        if id(value) in active:
            return "[...]" if kind is list else "{...}" if kind is dict else "(...)"
        active.add(id(value))
        try:
            return _container_repr(value, kind, fmt, active)
        finally:
            active.discard(id(value))
    if not fmt.own_repr:
        presenter = presenter_for(kind)
        if presenter is not None:
            text = presenter.text(value, lambda item, limit: _repr(item, Format(limit), active))
            if text is not None:
                return text
    text, error = guarded(lambda: repr(value), "repr")
    return text if error is None else error


def _small_container_repr(value, kind) -> str | None:
    """The interpreter's own repr of a small built-in container of numbers and short
    strings (exact, and cheaper than rendering item by item), else None. An int too long
    for decimal makes it None too: the item-by-item path shows that failure in place."""
    if len(value) > 16:
        return None
    for item in itertools.chain.from_iterable(value.items()) if kind is dict else value:
        item_kind = type(item)
        if item_kind not in _SHORT_REPR_TYPES and not (item_kind is str and len(item) <= 64):
            return None
    try:
        return repr(value)
    except ValueError:
        return None


def _container_repr(value, kind, fmt: Format, active: set[int]) -> str:
    if not fmt.hex:
        text = _small_container_repr(value, kind)
        if text is not None:
            return text
    if kind is dict:
        items = (f"{_repr(k, fmt, active)}: {_repr(v, fmt, active)}" for k, v in value.items())
        opening, closing = "{", "}"
    else:
        items = (_repr(item, fmt, active) for item in value)
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
        if fmt.limit is not None and length > fmt.limit:
            pieces.append("...")
            break
    return opening + ", ".join(pieces) + closing


def type_name(value) -> str:
    kind = type(value)
    module = getattr(kind, "__module__", "builtins")
    name = getattr(kind, "__qualname__", kind.__name__)
    if module in ("builtins", "__main__"):
        return name
    if not isinstance(module, str) or not isinstance(name, str):
        return f"{module}.{name}"
    return public_type_name(kind, module, name)


def _instance_attribute_names(value) -> list[str]:
    """Instance attribute names: ``__dict__`` keys, then ``__slots__`` names; a
    dataclass's or an attrs class's declared fields come first, in their order."""
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
    declared = field_order(type(value))
    if declared:
        first = [name for name in declared if name in seen]
        chosen = set(first)
        names = first + [name for name in names if name not in chosen]
    return names


def _user_length(value) -> int | None:
    """``len(value)`` under a deadline; None when it fails or is not a sane count."""
    length, error = guarded(lambda: len(value), "len")
    if error is not None or not isinstance(length, int) or length < 0:
        return None
    return length


def _is_numpy_like(value) -> bool:
    """Sequences the user defined, and array-likes (``shape`` plus indexing), whose
    items are shown by index. Strings and mappings are not."""
    kind = type(value)
    if isinstance(value, (str, bytes, bytearray, collections.abc.Mapping)):
        return False
    if not (hasattr(kind, "__len__") and hasattr(kind, "__getitem__")):
        return False
    return isinstance(value, collections.abc.Sequence) or hasattr(kind, "shape")


def _is_mapping(value) -> bool:
    return isinstance(value, (dict, collections.abc.Mapping))


def shape_of(value) -> Shape:
    kind = type(value)
    if kind is list or kind is tuple or kind is set or kind is frozenset or kind is dict:
        # A dict's items are indexed children too (named by their keys): clients page
        # indexed children only, and every key of a big dict must be reachable.
        return Shape(True, indexed=len(value))
    presenter = presenter_for(kind)
    if presenter is not None:
        if not presenter.expandable:
            return Shape(False)
        return Shape(True, indexed=presenter.indexed_count(value),
                     named=presenter.named_count(value))
    if isinstance(value, _SCALAR_TYPES):
        return Shape(False)
    if isinstance(value, (_INDEXABLE_TYPES, _SET_TYPES, collections.deque, dict)):
        return Shape(True, indexed=len(value))
    if _is_mapping(value):
        return Shape(True, indexed=_user_length(value) or 0)
    if _is_numpy_like(value):
        return Shape(True, indexed=_user_length(value) or 0)
    # Any other object has at least its special members to show.
    return Shape(True)


def children_of(
    value,
    evaluate_name: str | None,
    filter_kind: str | None = None,
    start: int = 0,
    count: int = 0,
) -> list[Child]:
    """The children of ``value`` for a ``variables`` request. ``filter_kind`` is the DAP
    ``filter`` (indexed, named or None for both); ``start``/``count`` page the result
    (``count`` 0 means all, capped at MAX_CHILDREN). Paging a list indexes it directly,
    so the last page of a million items costs what the first does."""
    limit = count if count > 0 else MAX_CHILDREN
    start = max(start, 0)
    if isinstance(value, Group):
        return note_more(_page_group(value, start, limit), len(value.members), start, count)
    kind = type(value)
    presenter = None if kind in _CONTAINER_TYPES else presenter_for(kind)
    if presenter is not None:
        return _presented_children(presenter, value, evaluate_name, filter_kind, start,
                                   count, limit)
    if isinstance(value, _SCALAR_TYPES):
        return []
    if isinstance(value, (_INDEXABLE_TYPES, _SET_TYPES, collections.deque)):
        if filter_kind == "named":
            return []
        return note_more(_sequence_page(value, evaluate_name, start, limit),
                          len(value), start, count)
    if _is_mapping(value):
        if filter_kind == "named":
            return []
        total = _user_length(value) or 0
        return note_more(_mapping_page(value, evaluate_name, start, limit), total, start, count)
    if _is_numpy_like(value):
        if filter_kind == "named":
            return []
        if filter_kind == "indexed":
            total = _user_length(value) or 0
            return note_more(_user_sequence_page(value, evaluate_name, start, limit, total),
                              total, start, count)
        # Both kinds: the members first (they are few), then the items.
        members = object_children(value, evaluate_name)
        total = _user_length(value) or 0
        items = _user_sequence_page(value, evaluate_name, start, limit, total)
        return members + note_more(items, total, start, count)
    if filter_kind == "indexed":
        return []
    return object_children(value, evaluate_name)[start:start + limit]


def _presented_children(presenter, value, evaluate_name, filter_kind, start, count,
                        limit) -> list[Child]:
    """A presenter's children: the named ones (a few), then a page of the indexed."""
    if not presenter.expandable:
        return []
    if filter_kind == "named":
        return presenter.named(value, evaluate_name)[start:start + limit]
    named = [] if filter_kind == "indexed" else presenter.named(value, evaluate_name)
    total = presenter.indexed_count(value)
    if not total:
        return named[start:start + limit] if filter_kind is None else []
    items = presenter.indexed(value, evaluate_name, start, min(start + limit, total))
    return named + note_more(items, total, start, count)


def _sequence_page(value, evaluate_name, start, limit) -> list[Child]:
    if isinstance(value, _INDEXABLE_TYPES):
        items = enumerate(value[start:start + limit], start)
    else:
        items = itertools.islice(enumerate(value), start, start + limit)
    if isinstance(value, (_INDEXABLE_TYPES, collections.deque)):
        pattern = f"{evaluate_name}[{{}}]" if evaluate_name else None
    else:
        # A set has no index; its iteration order is stable while it is unchanged, so
        # the nth element is reachable as list(s)[n].
        pattern = f"list({evaluate_name})[{{}}]" if evaluate_name else None
    return [Child(str(index), item, pattern.format(index) if pattern else None)
            for index, item in items]


def _user_sequence_page(value, evaluate_name, start, limit, total) -> list[Child]:
    result = []
    for index in range(start, min(start + limit, total)):
        item, error = guarded(lambda index=index: value[index], "indexing")
        name = str(index)
        if error is not None:
            result.append(Child(name, None, None, note=error))
        else:
            result.append(Child(name, item, f"{evaluate_name}[{index}]" if evaluate_name else None))
    return result


def _mapping_page(value, evaluate_name, start, limit) -> list[Child]:
    entries, error = guarded(lambda: list(itertools.islice(value.items(), start, start + limit)),
                             "items")
    if error is not None:
        return [Child("items", None, None, note=error)]
    return [
        Child(safe_repr(key, 200), item, _item_name(evaluate_name, key, position))
        for position, (key, item) in enumerate(entries, start)
    ]


def _item_name(evaluate_name: str | None, key, position: int) -> str | None:
    if evaluate_name is None:
        return None
    if type(key) in _LITERAL_KEY_TYPES and not (isinstance(key, float) and key != key):
        return f"{evaluate_name}[{key!r}]"
    # A key without a literal form (an object, nan) is reached through its position.
    return f"{evaluate_name}[list({evaluate_name})[{position}]]"


def _page_group(group: Group, start: int, limit: int) -> list[Child]:
    return [Child(name, None, None, note=value.message) if isinstance(value, Failed)
            else Child(name, value, expression)
            for name, value, expression in group.members[start:start + limit]]


def classify_scope_member(name: str, value) -> str | None:
    """The group a scope's variable belongs to, or None to show it directly."""
    if name[:2] == "__" and name[-2:] == "__":
        return SPECIAL_GROUP
    if type(value) in simple_member_types:
        return None
    if name.startswith("__") and name.endswith("__"):
        return SPECIAL_GROUP
    if inspect.isroutine(value):
        return FUNCTION_GROUP
    if isinstance(value, type):
        return CLASS_GROUP
    return None


def grouped(plain: list[Child], groups: dict[str, list], owner=None) -> list[Child]:
    """Plain children, then one child per non-empty group, in the usual order."""
    result = list(plain)
    for kind in GROUP_ORDER:
        members = groups.get(kind)
        if members:
            result.append(Child(kind, None, None, group=Group(kind, members, owner)))
    return result


def _namespace_children(value, evaluate_name: str | None) -> list[Child]:
    """A module's or a class's members, grouped as a scope's are: plain values first,
    then special, function and class members."""
    names, error = guarded(lambda: sorted(n for n in dir(value) if isinstance(n, str)), "dir")
    plain: list[Child] = [] if error is None else [Child("dir()", None, None, note=error)]
    groups: dict[str, list] = {}
    for name in names or ():
        member, error = guarded(lambda name=name: getattr(value, name), "getattr")
        if error is not None and error.startswith("<getattr raised AttributeError"):
            continue
        expression = member_expression(evaluate_name, name)
        group = SPECIAL_GROUP if name[:2] == "__" and name[-2:] == "__" else (
            None if error is not None else classify_scope_member(name, member))
        if group is None:
            plain.append(Child(name, member, expression) if error is None
                         else Child(name, None, None, note=error))
        else:
            groups.setdefault(group, []).append(
                (name, Failed(error) if error else member, expression))
    return grouped(plain, groups, value)


def object_children(value, evaluate_name: str | None) -> list[Child]:
    """An object's members: instance attributes directly, then the special (dunder),
    function and class members in groups, as debugpy shows them."""
    if isinstance(value, (type, types.ModuleType)):
        return _namespace_children(value, evaluate_name)
    instance_names = _instance_attribute_names(value)
    plain: list[Child] = []
    for name in instance_names:
        attribute, error = guarded(lambda name=name: getattr(value, name), "getattr")
        if error is not None:
            if error.startswith("<getattr raised AttributeError"):
                continue  # An unset __slots__ entry: not an attribute yet.
            plain.append(Child(name, None, None, note=error))
            continue
        plain.append(Child(name, attribute, member_expression(evaluate_name, name)))
    names, error = guarded(lambda: sorted(n for n in dir(value) if isinstance(n, str)), "dir")
    if error is not None:
        plain.append(Child("dir()", None, None, note=error))
        names = []
    groups: dict[str, list] = {kind: [] for kind in GROUP_ORDER}
    shown = set(instance_names)
    for name in names:
        if name in shown:
            continue
        attribute, error = guarded(lambda name=name: getattr(value, name), "getattr")
        if error is not None and error.startswith("<getattr raised AttributeError"):
            continue
        if name.startswith("__") and name.endswith("__"):
            kind = SPECIAL_GROUP
        elif error is None and inspect.isroutine(attribute):
            kind = FUNCTION_GROUP
        else:
            kind = CLASS_GROUP
        groups[kind].append(
            (name, Failed(error) if error else attribute, member_expression(evaluate_name, name))
        )
    return grouped(plain, groups, value)
