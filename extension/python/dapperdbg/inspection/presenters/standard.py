"""The standard library's value types users meet: dates and times show their fields (not
a dozen methods and class constants), a Decimal is a number with nothing to open, a
Fraction its numerator and denominator, a path its parts (without touching the disk).
"""

from __future__ import annotations

import sys

from ..values import Child
from .base import Presenter, attribute_child, call_child

_DATE_FIELDS = ("year", "month", "day")
_TIME_FIELDS = ("hour", "minute", "second", "microsecond", "tzinfo")


class DateTimePresenter(Presenter):
    module = "datetime"

    def accepts(self, kind, datetime) -> bool:
        return issubclass(kind, (datetime.date, datetime.time, datetime.timedelta))

    def _plan(self, value):
        """(attributes, methods) shown for the value's kind."""
        datetime = sys.modules["datetime"]  # Imported: the value is one of its types.
        if isinstance(value, datetime.timedelta):
            return ("days", "seconds", "microseconds"), ("total_seconds",)
        if isinstance(value, datetime.datetime):
            return _DATE_FIELDS + _TIME_FIELDS, ("isoformat",)
        if isinstance(value, datetime.date):
            return _DATE_FIELDS, ("isoformat", "weekday")
        return _TIME_FIELDS, ("isoformat",)

    def named_count(self, value) -> int:
        attributes, methods = self._plan(value)
        return len(attributes) + len(methods)

    def named(self, value, evaluate_name) -> list[Child]:
        attributes, methods = self._plan(value)
        return ([attribute_child(value, evaluate_name, name) for name in attributes]
                + [call_child(value, evaluate_name, name) for name in methods])


class DecimalPresenter(Presenter):
    module = "decimal"
    expandable = False

    def accepts(self, kind, decimal) -> bool:
        return issubclass(kind, decimal.Decimal)


class FractionPresenter(Presenter):
    module = "fractions"

    def accepts(self, kind, fractions) -> bool:
        return issubclass(kind, fractions.Fraction)

    def named_count(self, value) -> int:
        return 2

    def named(self, value, evaluate_name) -> list[Child]:
        return [attribute_child(value, evaluate_name, name)
                for name in ("numerator", "denominator")]


class PathPresenter(Presenter):
    module = "pathlib"

    _PARTS = ("name", "stem", "suffix", "parent", "parts")

    def accepts(self, kind, pathlib) -> bool:
        return issubclass(kind, pathlib.PurePath)

    def named_count(self, value) -> int:
        return len(self._PARTS)

    def named(self, value, evaluate_name) -> list[Child]:
        return [attribute_child(value, evaluate_name, name) for name in self._PARTS]
