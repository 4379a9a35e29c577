"""What every presenter is: how one family of types is shown in the Variables view,
and the helpers they share.

A presenter is asked about a type once (``accepts``), then about each value of it: the
line shown for it (``text``), how many named and indexed children it has, and pages of
them. Every call of the program's code (a property, a library method) goes through
``guarded``, so it is bounded in time and its failure is shown in place.
"""

from __future__ import annotations

import sys

from ..values import Child, guarded, member_expression


class Presenter:
    """The default answers: nothing to add. Subclasses override what they show."""

    # The top-level module the family belongs to: the presenter is only consulted once
    # the program has imported it (a presenter never imports a library itself).
    module = ""
    expandable = True

    def accepts(self, kind: type, module) -> bool:  # pragma: no cover - overridden
        """Whether values of ``kind`` are this presenter's; ``module`` is the imported
        module named by ``module``."""
        return False

    def text(self, value, render) -> str | None:
        """The Variables view's line for ``value``, or None for its own repr.
        ``render(item, limit)`` is the usual bounded rendering, for what it holds."""
        return None

    def named_count(self, value) -> int:
        return 0

    def named(self, value, evaluate_name: str | None) -> list[Child]:
        return []

    def indexed_count(self, value) -> int:
        return 0

    def indexed(self, value, evaluate_name: str | None, start: int, stop: int) -> list[Child]:
        return []


def loaded(name: str):
    """The module ``name`` if the program has imported it, else None (never imports)."""
    return sys.modules.get(name)


def attribute_child(value, evaluate_name: str | None, name: str) -> Child:
    """The child ``name`` = ``value.name``, read under the usual deadline."""
    member, error = guarded(lambda: getattr(value, name), "getattr")
    if error is not None:
        return Child(name, None, None, note=error)
    return Child(name, member, member_expression(evaluate_name, name))


def call_child(value, evaluate_name: str | None, method: str) -> Child:
    """The child ``method()`` = ``value.method()``, called under the usual deadline."""
    result, error = guarded(lambda: getattr(value, method)(), method)
    name = f"{method}()"
    if error is not None:
        return Child(name, None, None, note=error)
    return Child(name, result, f"{evaluate_name}.{method}()" if evaluate_name else None)


def one_line(text: str) -> str:
    """A library's multi-line repr on the single line the Variables view shows: each
    line break and the indentation after it become one space."""
    if "\n" not in text:
        return text
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


# Labels whose repr, written after ``[``, selects the same label again.
_LITERAL_LABELS = (str, bytes, int, float, bool)


def label_name(label) -> str:
    """How a row's or a column's label is shown: strings quoted (as dict keys are), so
    that the label '1' and the label 1 differ; anything else as its str()."""
    if type(label) in (str, bytes):
        return repr(label[:200])
    text, error = guarded(lambda: str(label), "str")
    return error if error is not None else text[:200]


def is_literal_label(label) -> bool:
    return type(label) in _LITERAL_LABELS and label == label  # nan has no literal
