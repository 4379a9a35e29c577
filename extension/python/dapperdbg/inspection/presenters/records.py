"""Records: values whose type declares their fields.

- namedtuples and ``typing.NamedTuple`` (and the interpreter's struct sequences such as
  ``os.stat_result``) show their fields by name, not by position;
- Enum and Flag members show ``name`` and ``value`` (not ``_value_``, ``_name_``,
  ``__objclass__``...), and a Flag the members it combines;
- pydantic models show their fields, then the extra ones, without reading the model's
  deprecated attributes (which warn on the program's stderr);
- dataclasses and attrs classes keep the general view, with the declared fields first
  (``field_order``).
"""

from __future__ import annotations

import sys

from ..values import Child, guarded, member_expression
from .base import Presenter


class NamedTuplePresenter(Presenter):
    module = "builtins"

    def accepts(self, kind, builtins) -> bool:
        if not issubclass(kind, tuple):
            return False
        return bool(_tuple_field_names(kind))

    def named_count(self, value) -> int:
        return min(len(_tuple_field_names(type(value))), len(value))

    def named(self, value, evaluate_name) -> list[Child]:
        # By position through tuple itself: no property of the program's runs.
        names = _tuple_field_names(type(value))
        return [Child(name, tuple.__getitem__(value, position),
                      member_expression(evaluate_name, name))
                for position, name in enumerate(names[:len(value)])]


def _tuple_field_names(kind) -> tuple:
    fields = getattr(kind, "_fields", None)
    if fields is None and hasattr(kind, "n_sequence_fields"):
        # A struct sequence (os.stat_result, time.struct_time): its visible fields.
        fields = getattr(kind, "__match_args__", None)
    if isinstance(fields, tuple) and all(isinstance(name, str) for name in fields):
        return fields
    return ()


class EnumPresenter(Presenter):
    module = "enum"

    def accepts(self, kind, enum) -> bool:
        return issubclass(kind, enum.Enum)

    def named_count(self, member) -> int:
        return len(self.named(member, None))

    def named(self, member, evaluate_name) -> list[Child]:
        # _name_ and _value_ are what the name and value properties return, read from the
        # member's own dict: no descriptor of the program's runs.
        attributes = getattr(member, "__dict__", {})
        children = [Child(name, attributes.get(f"_{name}_"),
                          member_expression(evaluate_name, name)) for name in ("name", "value")]
        enum = sys.modules.get("enum")
        if enum is not None and isinstance(member, enum.Flag) and sys.version_info >= (3, 11):
            members, error = guarded(lambda: list(member), "iteration")
            children.append(Child("members", None, None, note=error) if error else
                            Child("members", members,
                                  f"list({evaluate_name})" if evaluate_name else None))
        # Attributes the enum's own __init__ set (planets' mass and radius...).
        for name, value in attributes.items():
            if isinstance(name, str) and not name.startswith("_"):
                children.append(Child(name, value, member_expression(evaluate_name, name)))
        return children


class PydanticPresenter(Presenter):
    module = "pydantic"

    def accepts(self, kind, pydantic) -> bool:
        base = getattr(pydantic, "BaseModel", None)
        return isinstance(base, type) and issubclass(kind, base)

    def named_count(self, model) -> int:
        return len(self.named(model, None))

    def named(self, model, evaluate_name) -> list[Child]:
        kind = type(model)
        # Read on the class, where none of them warns: version 2 keeps the fields as
        # __pydantic_fields__ (model_fields before 2.10), version 1 as __fields__.
        fields = None
        for attribute in ("__pydantic_fields__", "model_fields", "__fields__"):
            fields = getattr(kind, attribute, None)
            if isinstance(fields, dict):
                break
        values = getattr(model, "__dict__", {})
        children = []
        for name in fields if isinstance(fields, dict) else ():
            if name in values:
                children.append(Child(name, values[name], member_expression(evaluate_name, name)))
        extra = getattr(model, "__pydantic_extra__", None)
        if isinstance(extra, dict):
            for name, value in extra.items():
                if isinstance(name, str):
                    children.append(Child(name, value, member_expression(evaluate_name, name)))
        return children


def field_order(kind) -> tuple:
    """The fields a dataclass or an attrs class declares, in order (shown first), or ()."""
    declared = getattr(kind, "__dataclass_fields__", None)
    if isinstance(declared, dict):
        # Only real fields: a ClassVar or an InitVar is not an attribute of the instance.
        return tuple(name for name, field in declared.items()
                     if getattr(getattr(field, "_field_type", None), "name", "_FIELD") == "_FIELD")
    declared = getattr(kind, "__attrs_attrs__", None)
    if isinstance(declared, tuple):
        return tuple(getattr(attribute, "name", None) for attribute in declared
                     if isinstance(getattr(attribute, "name", None), str))
    return ()
