"""Value rendering and children, unit-tested directly."""

from __future__ import annotations

import collections

import pytest

from dapper.rendering import children_of, safe_repr, shape_of, type_name


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
    ({"k": [1]}, "{'k': [1]}", "dict", True, 0, 1),
    ({1, 2}, "{1, 2}", "set", True, 2, 0),
    (set(), "set()", "set", True, 0, 0),
    (frozenset({3}), "frozenset({3})", "frozenset", True, 1, 0),
    (recursive, "[1, [...]]", "list", True, 2, 0),
    (Raises(), "<repr raised ValueError: no repr for you>", "test_rendering.Raises", False, 0, 0),
    (RaisesBadly(), "<repr raised KeyError>", "test_rendering.RaisesBadly", False, 0, 0),
    (ReturnsNonString(), "<repr raised TypeError: __repr__ returned non-string (type int)>",
     "test_rendering.ReturnsNonString", False, 0, 0),
    ([Raises()], "[<repr raised ValueError: no repr for you>]", "list", True, 1, 0),
    (collections.OrderedDict(a=1), "OrderedDict({'a': 1})", "collections.OrderedDict",
     True, 0, 1),
]


@pytest.mark.parametrize("value,text,kind,expandable,indexed,named", VALUES)
def test_rendering(value, text, kind, expandable, indexed, named):
    if kind == "collections.OrderedDict" and "OrderedDict([" in repr(value):
        text = repr(value)  # Python < 3.12 prints OrderedDict as a list of pairs.
    assert safe_repr(value) == text
    assert type_name(value) == kind
    shape = shape_of(value)
    assert (shape.expandable, shape.indexed, shape.named) == (expandable, indexed, named)


def test_long_values_are_truncated():
    text = safe_repr(list(range(100000)), limit=50)
    assert len(text) <= 50 and text.endswith("…")
    assert safe_repr("x" * 5000, limit=20) == "'" + "x" * 18 + "…"


def names_values(children):
    return [(c.name, c.value if c.note is None else c.note, c.evaluate_name) for c in children]


CHILDREN = [
    ([10, 20], "v", {}, [("0", 10, "v[0]"), ("1", 20, "v[1]")]),
    ((7,), "t", {}, [("0", 7, "t[0]")]),
    ({"a": 1, 2: "b", (1,): 3}, "d", {},
     [("'a'", 1, "d['a']"), ("2", "b", "d[2]"), ("(1,)", 3, None)]),
    ({5}, "s", {}, [("0", 5, None)]),
    (Point(), "p", {}, [("x", 1, "p.x"), ("y", [2], "p.y")]),
    (Slotted(), "o", {}, [("a", 1, "o.a"), ("_Slotted__hidden", 3, "o._Slotted__hidden")]),
    (list(range(10)), "r", {"start": 3, "count": 2}, [("3", 3, "r[3]"), ("4", 4, "r[4]")]),
    (list(range(10)), "r", {"filter_kind": "named"}, []),
    ({"a": 1}, "d", {"filter_kind": "indexed"}, []),
    ([1], None, {}, [("0", 1, None)]),
    ("text", "s", {}, []),
]


@pytest.mark.parametrize("value,name,paging,expected", CHILDREN)
def test_children(value, name, paging, expected):
    assert names_values(children_of(value, name, **paging)) == expected


def test_unpaged_children_are_capped_with_a_note():
    children = children_of(list(range(1500)), "big")
    assert len(children) == 1001
    assert names_values(children[-1:]) == [("…", "500 more not shown", None)]
