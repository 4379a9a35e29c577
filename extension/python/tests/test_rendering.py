"""Value rendering and children, unit-tested directly."""

from __future__ import annotations

import collections

import pytest

from dapperdbg.inspection.rendering import (
    CLASS_GROUP,
    FUNCTION_GROUP,
    SPECIAL_GROUP,
    TRUNCATION_MARKER,
    children_of,
    safe_repr,
    shape_of,
    type_name,
)


class Raises:
    def __repr__(self):
        raise ValueError("no repr for you")


class RaisesBadly:
    def __repr__(self):
        raise KeyError


class ReturnsNonString:
    def __repr__(self):
        return 42


class Point:
    def __init__(self):
        self.x = 1
        self.y = [2]


class Slotted:
    __slots__ = ("a", "b", "__hidden")

    def __init__(self):
        self.a = 1
        self.__hidden = 3


recursive = [1]
recursive.append(recursive)


def repr_type_error(value) -> str:
    """Python's own message for a ``__repr__`` that returns no string (3.15 reworded
    "__repr__ returned non-string (type int)")."""
    try:
        repr(value)
    except TypeError as error:
        return str(error)
    raise AssertionError("repr did not raise")


# (value, expected value text, expected type, expandable, indexed, named)
VALUES = [
    (1, "1", "int", False, 0, 0),
    ("hi", "'hi'", "str", False, 0, 0),
    (b"x", "b'x'", "bytes", False, 0, 0),
    (None, "None", "NoneType", False, 0, 0),
    (True, "True", "bool", False, 0, 0),
    (1.5, "1.5", "float", False, 0, 0),
    ([1, "a"], "[1, 'a']", "list", True, 2, 0),
    ((1,), "(1,)", "tuple", True, 1, 0),
    ((), "()", "tuple", True, 0, 0),
    ({"k": [1]}, "{'k': [1]}", "dict", True, 1, 0),
    ({1, 2}, "{1, 2}", "set", True, 2, 0),
    (set(), "set()", "set", True, 0, 0),
    (frozenset({3}), "frozenset({3})", "frozenset", True, 1, 0),
    (recursive, "[1, [...]]", "list", True, 2, 0),
    (Raises(), "<repr raised ValueError: no repr for you>", "test_rendering.Raises", True, 0, 0),
    (RaisesBadly(), "<repr raised KeyError>", "test_rendering.RaisesBadly", True, 0, 0),
    (ReturnsNonString(),
     f"<repr raised TypeError: {repr_type_error(ReturnsNonString())}>",
     "test_rendering.ReturnsNonString", True, 0, 0),
    (collections.deque([1, 2]), "deque([1, 2])", "collections.deque", True, 2, 0),
    (range(3), "range(0, 3)", "range", False, 0, 0),
    ([Raises()], "[<repr raised ValueError: no repr for you>]", "list", True, 1, 0),
    (collections.OrderedDict(a=1), "OrderedDict({'a': 1})", "collections.OrderedDict",
     True, 1, 0),
]


@pytest.mark.parametrize("value,text,kind,expandable,indexed,named", VALUES)
def test_rendering(value, text, kind, expandable, indexed, named):
    if kind == "collections.OrderedDict" and "OrderedDict([" in repr(value):
        text = repr(value)  # Python < 3.12 prints OrderedDict as a list of pairs.
    assert safe_repr(value) == text
    assert type_name(value) == kind
    shape = shape_of(value)
    assert (shape.expandable, shape.indexed, shape.named) == (expandable, indexed, named)


@pytest.mark.parametrize("value,limit,expected", [
    (list(range(100000)), 50, repr(list(range(100)))[:50] + TRUNCATION_MARKER),
    ("x" * 5000, 20, "'" + "x" * 19 + TRUNCATION_MARKER),
    ("short", 20, "'short'"),
    ("x" * 5000, None, "'" + "x" * 5000 + "'"),
    ({"k": "v" * 100}, 10, "{'k': 'vvv" + TRUNCATION_MARKER),
])
def test_truncation(value, limit, expected):
    assert safe_repr(value, limit=limit) == expected


@pytest.mark.parametrize("value,expected", [
    (255, "0xff"),
    (-1, "-0x1"),
    (True, "True"),
    ([10, {"a": 255, 16: (17,)}], "[0xa, {'a': 0xff, 0x10: (0x11,)}]"),
    (1.5, "1.5"),
    ("ff", "'ff'"),
])
def test_hex(value, expected):
    assert safe_repr(value, hex=True) == expected


def names_values(children):
    return [(c.name, c.value if c.note is None else c.note, c.evaluate_name)
            for c in children if c.group is None]


class Key:
    pass


KEY = Key()


CHILDREN = [
    ([10, 20], "v", {}, [("0", 10, "v[0]"), ("1", 20, "v[1]")]),
    ((7,), "t", {}, [("0", 7, "t[0]")]),
    ({"a": 1, 2: "b", (1,): 3}, "d", {},
     [("'a'", 1, "d['a']"), ("2", "b", "d[2]"), ("(1,)", 3, "d[list(d)[2]]")]),
    ({5}, "s", {}, [("0", 5, "list(s)[0]")]),
    (collections.deque("ab"), "q", {}, [("0", "a", "q[0]"), ("1", "b", "q[1]")]),
    (Point(), "p", {}, [("x", 1, "p.x"), ("y", [2], "p.y")]),
    (Slotted(), "o", {}, [("a", 1, "o.a"), ("_Slotted__hidden", 3, "o._Slotted__hidden")]),
    (list(range(10)), "r", {"start": 3, "count": 2}, [("3", 3, "r[3]"), ("4", 4, "r[4]")]),
    (list(range(10)), "r", {"filter_kind": "named"}, []),
    # A dict's items are indexed (named by their keys): clients page only those.
    ({"a": 1}, "d", {"filter_kind": "named"}, []),
    ({i: -i for i in range(100_000)}, "d", {"filter_kind": "indexed", "start": 99_998,
                                             "count": 5},
     [("99998", -99_998, "d[99998]"), ("99999", -99_999, "d[99999]")]),
    ([1], None, {}, [("0", 1, None)]),
    ("text", "s", {}, []),
    (collections.OrderedDict(b=2), "od", {}, [("'b'", 2, "od['b']")]),
]


@pytest.mark.parametrize("value,name,paging,expected", CHILDREN)
def test_children(value, name, paging, expected):
    assert names_values(children_of(value, name, **paging)) == expected


def test_unpaged_children_are_capped_with_a_note():
    children = children_of(list(range(1500)), "big")
    assert len(children) == 1001
    assert names_values(children[-1:]) == [("…", "500 more not shown", None)]


class NoIteration(list):
    """A list that refuses to be iterated: paging must index it, not walk it."""

    def __iter__(self):
        raise AssertionError("paging iterated the list")


def test_paging_the_end_of_a_huge_list_indexes_it():
    big = NoIteration(range(1_000_000))
    children = children_of(big, "big", "indexed", 999_900, 100)
    assert len(children) == 100
    assert names_values(children[-1:]) == [("999999", 999_999, "big[999999]")]


class Member:
    kind = "class attribute"

    def __init__(self):
        self.value = 1

    def method(self):
        return 2

    @property
    def broken(self):
        raise RuntimeError("no")


def groups_of(children):
    return {c.name: c.group for c in children if c.group is not None}


def test_object_members_are_grouped():
    children = children_of(Member(), "m")
    assert names_values(children) == [("value", 1, "m.value")]
    groups = groups_of(children)
    assert list(groups) == [SPECIAL_GROUP, FUNCTION_GROUP, CLASS_GROUP]
    special = {name for name, _, _ in groups[SPECIAL_GROUP].members}
    assert {"__class__", "__init__", "__dict__"} <= special
    functions = [(n, e) for n, _, e in groups[FUNCTION_GROUP].members]
    assert functions == [("method", "m.method")]
    class_members = {n: v for n, v, _ in groups[CLASS_GROUP].members}
    assert class_members["kind"] == "class attribute"
    broken = children_of(groups[CLASS_GROUP], None)
    assert [c.note for c in broken if c.name == "broken"] == [
        "<getattr raised RuntimeError: no>"
    ]


class ArrayLike:
    """Neither a list nor a Sequence, but indexable with a shape, as numpy arrays are."""

    shape = (3,)

    def __len__(self):
        return 3

    def __getitem__(self, index):
        if index == 1:
            raise IndexError("hole")
        return index * 10


def test_numpy_like_values_are_indexed():
    value = ArrayLike()
    assert shape_of(value).indexed == 3
    items = children_of(value, "a", "indexed")
    assert names_values(items) == [
        ("0", 0, "a[0]"), ("1", "<indexing raised IndexError: hole>", None), ("2", 20, "a[2]"),
    ]
    assert children_of(value, "a", "named") == []


def test_classes_and_modules_group_their_members_as_scopes_do():
    children = children_of(Member, "Member")
    assert names_values(children) == [("broken", Member.__dict__["broken"], "Member.broken"),
                                      ("kind", "class attribute", "Member.kind")]
    groups = groups_of(children)
    assert [n for n, _, _ in groups[FUNCTION_GROUP].members] == ["method"]
    assert "__init__" in {n for n, _, _ in groups[SPECIAL_GROUP].members}
    module_children = children_of(collections, "collections")
    assert ("OrderedDict", collections.OrderedDict, "collections.OrderedDict") in \
        groups_of(module_children)[CLASS_GROUP].members
