"""Type-aware views of values: a small presenter per family of types (numpy arrays,
pandas tables, namedtuples, enums, pydantic models, dates, paths...), chosen by the
value's type.

A presenter is consulted only when the module its family comes from is already in
``sys.modules``: Dapper never imports a library the program did not import. The choice
is made once per type and remembered (weakly: a class made on the fly can still go).
"""

from __future__ import annotations

import sys
import weakref

from .arrays import ArrayPresenter, NumberPresenter
from .base import Presenter
from .records import EnumPresenter, NamedTuplePresenter, PydanticPresenter, field_order
from .standard import DateTimePresenter, DecimalPresenter, FractionPresenter, PathPresenter
from .tables import FramePresenter, IndexPresenter, SeriesPresenter

__all__ = ["Presenter", "field_order", "presenter_for", "public_type_name"]

# In order of precedence: an IntEnum is an Enum before it is an int, a pydantic model is
# a model before anything else.
PRESENTERS: tuple[Presenter, ...] = (
    EnumPresenter(), PydanticPresenter(), ArrayPresenter(), NumberPresenter(),
    FramePresenter(), SeriesPresenter(), IndexPresenter(), NamedTuplePresenter(),
    DateTimePresenter(), DecimalPresenter(), FractionPresenter(), PathPresenter(),
)

_chosen: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# Types met while a module they could belong to was not imported yet (their answer can
# change once it is, but only for those modules' own types, which cannot exist before).
_NONE = object()


def presenter_for(kind: type) -> Presenter | None:
    """The presenter of values of ``kind``, or None for the general view."""
    try:
        found = _chosen.get(kind)
    except TypeError:  # A type that cannot be weakly referenced: decide each time.
        return _choose(kind)
    if found is None:
        found = _choose(kind) or _NONE
        try:
            _chosen[kind] = found
        except TypeError:
            pass
    return None if found is _NONE else found


def _choose(kind: type) -> Presenter | None:
    modules = sys.modules
    for presenter in PRESENTERS:
        module = modules.get(presenter.module)
        if module is None:
            continue
        try:
            if presenter.accepts(kind, module):
                return presenter
        except Exception:  # A metaclass whose __subclasscheck__ fails: not ours.
            continue
    return None


_public_names: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def public_type_name(kind: type, module: str, name: str) -> str:
    """``module.name`` as users write it: ``pandas.DataFrame`` rather than
    ``pandas.core.frame.DataFrame`` when the top-level package exports the type under
    its name (read from the package's dict: no module ``__getattr__`` runs)."""
    if "." not in module:
        return f"{module}.{name}"
    try:
        cached = _public_names.get(kind)
    except TypeError:
        cached = None
    if cached is not None:
        return cached
    top = sys.modules.get(module.partition(".")[0])
    exported = getattr(top, "__dict__", {}).get(name) if "." not in name else None
    result = f"{top.__name__}.{name}" if exported is kind else f"{module}.{name}"
    try:
        _public_names[kind] = result
    except TypeError:
        pass
    return result
