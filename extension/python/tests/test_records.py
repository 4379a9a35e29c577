"""common/records.py: plain data records behave as the dataclasses they replace."""

from __future__ import annotations

import pytest

from dapperdbg.common.records import Factory, Record


class Point(Record, frozen=True):
    x: int
    y: int = 0


class Bag(Record):
    name: str
    items: list = Factory(list)
    size: int = 0


class Handle(Record, eq=False):
    id: int
    shared = None  # Not annotated: a class attribute, not a field.


@pytest.mark.parametrize("make,expected", [
    (lambda: Point(1), "Point(x=1, y=0)"),
    (lambda: Point(1, 2), "Point(x=1, y=2)"),
    (lambda: Point(y=3, x=4), "Point(x=4, y=3)"),
    (lambda: Bag("b"), "Bag(name='b', items=[], size=0)"),
    (lambda: Bag("b", [1], size=2), "Bag(name='b', items=[1], size=2)"),
    (lambda: Handle(7), "Handle(id=7)"),
])
def test_fields_by_position_by_name_and_defaults(make, expected):
    assert repr(make()) == expected


@pytest.mark.parametrize("make,message", [
    (lambda: Point(), "Point() is missing its field 'x'"),
    (lambda: Point(1, 2, 3), "Point() takes 2 fields, 3 were given"),
    (lambda: Point(1, z=2), "Point() has no field 'z'"),
    (lambda: Point(1, x=2), "Point() got 'x' twice"),
])
def test_wrong_arguments_are_refused(make, message):
    with pytest.raises(TypeError) as error:
        make()
    assert str(error.value) == message


def test_a_factory_makes_a_fresh_default_for_each_record():
    first, second = Bag("a"), Bag("b")
    first.items.append(1)
    assert second.items == []


def test_frozen_records_compare_and_hash_by_fields_and_refuse_changes():
    assert Point(1, 2) == Point(1, 2) and Point(1, 2) != Point(2, 1)
    assert len({Point(1, 2), Point(1, 2)}) == 1
    with pytest.raises(AttributeError):
        Point(1).x = 5
    with pytest.raises(AttributeError):
        del Point(1).x


def test_records_compared_by_fields_are_unhashable_unless_frozen():
    assert Bag("a", [1]) == Bag("a", [1]) and Bag("a") != Bag("b")
    assert Bag("a") != Point(1)
    with pytest.raises(TypeError):
        hash(Bag("a"))
    bag = Bag("a")
    bag.size = 3
    assert bag.size == 3


def test_eq_false_keeps_identity():
    handle = Handle(1)
    assert handle != Handle(1) and handle == handle
    assert len({handle, Handle(1)}) == 2
    assert Handle._fields == ("id",)


def test_fields_of_a_module_without_the_future_import():
    # 3.14 makes such a class's annotations on demand (its __annotate_func__).
    source = "class Plain(Record):\n    a: int\n    b: int = 2\n"
    namespace = {"Record": Record}
    exec(compile(source, "<records>", "exec", dont_inherit=True), namespace)
    assert repr(namespace["Plain"](1)) == "Plain(a=1, b=2)"
