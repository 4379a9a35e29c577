"""numpy: arrays show their dtype, shape, size and, for numbers, min and max before their
elements (rows, for more than one dimension), paged; numpy's numbers read as numbers.

numpy's reductions run in C and cannot be interrupted once started, so min and max are
only computed for arrays small enough to take a few milliseconds at most.
"""

from __future__ import annotations

from ..values import Child, guarded
from .base import Presenter, one_line

# At most this many elements for min and max: about 10 ms for float64 on a slow machine.
MIN_MAX_ELEMENTS = 10_000_000
# dtype kinds whose min and max mean something: bool, signed, unsigned, float.
_ORDERED_KINDS = frozenset("biuf")


class ArrayPresenter(Presenter):
    module = "numpy"

    def accepts(self, kind, numpy) -> bool:
        return issubclass(kind, numpy.ndarray)

    def text(self, array, render) -> str | None:
        text, error = guarded(lambda: repr(array), "repr")
        return error if error is not None else one_line(text)

    def _facts(self, array):
        """(dtype, shape, size, ndim) without calling the program's code."""
        return array.dtype, array.shape, array.size, array.ndim

    def named_count(self, array) -> int:
        return len(self._members(array, None))

    def named(self, array, evaluate_name) -> list[Child]:
        return self._members(array, evaluate_name)

    def _members(self, array, evaluate_name) -> list[Child]:
        facts, error = guarded(lambda: self._facts(array), "getattr")
        if error is not None:
            return [Child("dtype", None, None, note=error)]
        dtype, shape, size, _ = facts

        def name(suffix):
            return f"{evaluate_name}.{suffix}" if evaluate_name else None

        members = [Child("dtype", dtype, name("dtype")), Child("shape", shape, name("shape")),
                   Child("size", size, name("size"))]
        if getattr(dtype, "kind", None) in _ORDERED_KINDS and size:
            if size > MIN_MAX_ELEMENTS:
                note = f"not computed for more than {MIN_MAX_ELEMENTS:,} elements"
                members.append(Child("min", None, None, note=note))
                members.append(Child("max", None, None, note=note))
            else:
                for reduction in ("min", "max"):
                    result, error = guarded(lambda r=reduction: getattr(array, r)(), reduction)
                    members.append(Child(reduction, None, None, note=error) if error else
                                   Child(reduction, result, name(f"{reduction}()")))
        return members

    def indexed_count(self, array) -> int:
        facts, error = guarded(lambda: self._facts(array), "getattr")
        if error is not None or facts[3] == 0:
            return 0
        return facts[1][0]

    def indexed(self, array, evaluate_name, start, stop) -> list[Child]:
        # One slice (a view, no copy), then its rows: a page costs its own size.
        rows, error = guarded(lambda: list(array[start:stop]), "indexing")
        if error is not None:
            return [Child(str(start), None, None, note=error)]
        return [Child(str(index), row, f"{evaluate_name}[{index}]" if evaluate_name else None)
                for index, row in enumerate(rows, start)]


class NumberPresenter(Presenter):
    """numpy's scalars (``np.float64(1.5)`` since numpy 2) shown as the number they hold,
    with their type in the type column, as any number."""

    module = "numpy"
    expandable = False

    def accepts(self, kind, numpy) -> bool:
        return issubclass(kind, (numpy.number, numpy.bool_))

    def text(self, number, render) -> str | None:
        item, error = guarded(lambda: number.item(), "item")
        if error is not None or type(item) not in (int, float, complex, bool):
            return None
        return repr(item)
