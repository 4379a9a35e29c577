"""pandas: a DataFrame shows its shape, dtypes, columns and index, each column as a
Series, and its rows (labelled by the index, each a Series) paged; a Series its dtype,
name and index, then its items labelled by the index; an Index its dtype and values.

Everything goes through pandas' public API by position (``iloc``), so duplicate or
odd labels never pick the wrong row, and each call is bounded in time.
"""

from __future__ import annotations

from ..values import MAX_CHILDREN, Child, guarded
from .base import Presenter, is_literal_label, label_name, one_line

# Items a Series' one-line text shows before "…".
_TEXT_ITEMS = 10


def _child_expression(evaluate_name, suffix: str) -> str | None:
    return f"{evaluate_name}{suffix}" if evaluate_name else None


def _labels(index, start: int, stop: int):
    labels, error = guarded(lambda: list(index[start:stop]), "index")
    return (labels, None) if error is None else (None, error)


class FramePresenter(Presenter):
    module = "pandas"

    def accepts(self, kind, pandas) -> bool:
        return issubclass(kind, pandas.DataFrame)

    def text(self, frame, render) -> str | None:
        shape, error = guarded(lambda: frame.shape, "shape")
        if error is not None:
            return error
        rows, columns = shape
        return f"DataFrame: {rows:,} rows × {columns:,} columns"

    def named_count(self, frame) -> int:
        columns, error = guarded(lambda: len(frame.columns), "len")
        return 4 + (0 if error is not None else min(columns, MAX_CHILDREN))

    def named(self, frame, evaluate_name) -> list[Child]:
        members = []
        for name in ("shape", "dtypes", "columns", "index"):
            value, error = guarded(lambda name=name: getattr(frame, name), "getattr")
            members.append(Child(name, None, None, note=error) if error else
                           Child(name, value, _child_expression(evaluate_name, f".{name}")))
        labels, error = _labels(frame.columns, 0, MAX_CHILDREN)
        if error is not None:
            return [*members, Child("columns", None, None, note=error)]
        for position, label in enumerate(labels):
            column, error = guarded(lambda p=position: frame.iloc[:, p], "iloc")
            name = label_name(label)
            if error is not None:
                members.append(Child(name, None, None, note=error))
                continue
            suffix = f"[{label!r}]" if is_literal_label(label) else f".iloc[:, {position}]"
            members.append(Child(name, column, _child_expression(evaluate_name, suffix)))
        return members

    def indexed_count(self, frame) -> int:
        rows, error = guarded(lambda: len(frame), "len")
        return 0 if error is not None else rows

    def indexed(self, frame, evaluate_name, start, stop) -> list[Child]:
        labels, error = _labels(frame.index, start, stop)
        if error is not None:
            return [Child(str(start), None, None, note=error)]
        rows = []
        for position, label in enumerate(labels, start):
            row, error = guarded(lambda p=position: frame.iloc[p], "iloc")
            name = label_name(label)
            rows.append(Child(name, None, None, note=error) if error else
                        Child(name, row, _child_expression(evaluate_name, f".iloc[{position}]")))
        return rows


class SeriesPresenter(Presenter):
    module = "pandas"

    def accepts(self, kind, pandas) -> bool:
        return issubclass(kind, pandas.Series)

    def text(self, series, render) -> str | None:
        # The first items as label: value, on one line (pandas' own repr is a column).
        def first_items():
            head = series.iloc[:_TEXT_ITEMS]
            return len(series), list(zip(head.index, head.tolist()))

        found, error = guarded(first_items, "items")
        if error is not None:
            return error
        total, items = found
        pieces = [f"{label_name(label)}: {render(item, 100)}" for label, item in items]
        if total > len(items):
            return "{" + ", ".join(pieces) + f", …}} ({total:,} items)"
        return "{" + ", ".join(pieces) + "}"

    def named_count(self, series) -> int:
        return 3

    def named(self, series, evaluate_name) -> list[Child]:
        members = []
        for name in ("dtype", "name", "index"):
            value, error = guarded(lambda name=name: getattr(series, name), "getattr")
            members.append(Child(name, None, None, note=error) if error else
                           Child(name, value, _child_expression(evaluate_name, f".{name}")))
        return members

    def indexed_count(self, series) -> int:
        items, error = guarded(lambda: len(series), "len")
        return 0 if error is not None else items

    def indexed(self, series, evaluate_name, start, stop) -> list[Child]:
        def page():
            part = series.iloc[start:stop]
            return list(zip(part.index, part.tolist()))

        items, error = guarded(page, "iloc")
        if error is not None:
            return [Child(str(start), None, None, note=error)]
        return [Child(label_name(label), item,
                      _child_expression(evaluate_name, f".iloc[{position}]"))
                for position, (label, item) in enumerate(items, start)]


class IndexPresenter(Presenter):
    module = "pandas"

    def accepts(self, kind, pandas) -> bool:
        return issubclass(kind, pandas.Index)

    def text(self, index, render) -> str | None:
        text, error = guarded(lambda: repr(index), "repr")
        return error if error is not None else one_line(text)

    def named_count(self, index) -> int:
        return 2

    def named(self, index, evaluate_name) -> list[Child]:
        members = []
        for name in ("dtype", "name"):
            value, error = guarded(lambda name=name: getattr(index, name), "getattr")
            members.append(Child(name, None, None, note=error) if error else
                           Child(name, value, _child_expression(evaluate_name, f".{name}")))
        return members

    def indexed_count(self, index) -> int:
        items, error = guarded(lambda: len(index), "len")
        return 0 if error is not None else items

    def indexed(self, index, evaluate_name, start, stop) -> list[Child]:
        labels, error = guarded(lambda: index[start:stop].tolist(), "indexing")
        if error is not None:
            return [Child(str(start), None, None, note=error)]
        return [Child(str(position), label, _child_expression(evaluate_name, f"[{position}]"))
                for position, label in enumerate(labels, start)]
