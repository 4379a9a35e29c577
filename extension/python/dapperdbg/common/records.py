"""Plain data records, as ``dataclasses`` makes them, without importing it.

Every debugged process (every child of a test suite among them) imports the package
before its program runs; the ``dataclasses`` module imports ``inspect`` (and with it
``ast``, ``dis``, ``tokenize``) and compiles the methods of each class it makes, which cost
a child more than any other part of its start. A record is a class whose fields are
its annotated names, in order (a base record's first), with their values in the class
body as defaults (``Factory(list)``: a fresh value for each record):

    class Probe(Record, frozen=True):
        probe_id: int
        condition: str | None = None

It gets ``__init__`` (fields by position or by name), ``__repr__`` and equality by its
fields. ``frozen=True`` also makes it immutable and hashable by its fields;
``eq=False`` keeps the identity's equality and hash. As a dataclass, a record that is
compared by its fields but not frozen is unhashable.

Every module of the package has ``from __future__ import annotations``: a record's
annotations are its fields' names and text, never evaluated. Modules imported only once
a session stops or reloads (hot reload's) keep ``dataclasses``: they cost no start.
"""

from __future__ import annotations


class Factory:
    """A field's default that is made afresh for each record: ``Factory(list)``."""

    __slots__ = ("make",)

    def __init__(self, make) -> None:
        self.make = make


class Record:
    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _defaults: dict[str, object] = {}

    def __init_subclass__(cls, frozen: bool = False, eq: bool = True, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        own = _own_annotations(cls)
        cls._fields = cls._fields + tuple(name for name in own if name not in cls._fields)
        cls._defaults = {**cls._defaults,
                         **{name: cls.__dict__[name] for name in own if name in cls.__dict__}}
        if frozen:
            cls.__setattr__ = _refuse_change
            cls.__delattr__ = _refuse_change
        if eq:
            cls.__eq__ = _equal
            cls.__hash__ = _hash_of_fields if frozen else None

    def __init__(self, *values, **named) -> None:
        fields = self._fields
        kind = type(self).__name__
        if len(values) > len(fields):
            raise TypeError(f"{kind}() takes {len(fields)} fields, {len(values)} were given")
        given = dict(zip(fields, values))
        for name, value in named.items():
            if name not in fields:
                raise TypeError(f"{kind}() has no field {name!r}")
            if name in given:
                raise TypeError(f"{kind}() got {name!r} twice")
            given[name] = value
        assign = object.__setattr__
        for name in fields:
            if name in given:
                value = given[name]
            elif name in self._defaults:
                value = self._defaults[name]
                if isinstance(value, Factory):
                    value = value.make()
            else:
                raise TypeError(f"{kind}() is missing its field {name!r}")
            assign(self, name, value)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({shown})"


def _own_annotations(cls) -> dict:
    """The names annotated in ``cls``'s own body. Without the future import, 3.14 makes
    a class's annotations on demand (its ``__annotate_func__``)."""
    own = cls.__dict__.get("__annotations__")
    if own is None:
        lazy = "__annotate_func__" in cls.__dict__ or "__annotate__" in cls.__dict__
        own = cls.__annotations__ if lazy else {}
    return own


def _values(record: Record) -> tuple:
    return tuple(getattr(record, name) for name in record._fields)


def _equal(self: Record, other: object):
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _values(self) == _values(other)


def _hash_of_fields(self: Record) -> int:
    return hash(_values(self))


def _refuse_change(self: Record, name: str, *value) -> None:
    raise AttributeError(f"{type(self).__name__} is frozen: cannot change {name!r}")
