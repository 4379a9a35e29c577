"""Values shown by type, over the wire, as VS Code asks for them: the variable's line
(value, type, counts), then its named children (filter "named") and the first page of
its indexed children (filter "indexed"). One debuggee per test: importing pandas costs
the debuggee about half a second, so the table is checked in one stop.

numpy, pandas, attrs and pydantic come from requirements-test.txt; a case needing one
that is not installed is skipped, naming it."""

from __future__ import annotations

import importlib.util
import sys

import pytest

PROGRAM = """
import collections, dataclasses, datetime, decimal, enum, fractions, pathlib, typing

Pair = collections.namedtuple("Pair", "left right")

class Point(typing.NamedTuple):
    x: int
    y: int = 0

class Color(enum.Enum):
    RED = 1

class Level(enum.IntEnum):
    HIGH = 3

class Planet(enum.Enum):
    EARTH = (5.97e24, 6.37e6)
    def __init__(self, mass, radius):
        self.mass = mass
        self.radius = radius

class Perm(enum.Flag):
    R = 4
    W = 2

@dataclasses.dataclass
class Order:
    item: str
    count: int = 1
    def __post_init__(self):
        self.note = "late"
        self.__dict__ = {"note": self.note, "count": self.count, "item": self.item}

def main():
    pair = Pair(1, "two")
    point = Point(3)
    color = Color.RED
    level = Level.HIGH
    planet = Planet.EARTH
    perm = Perm.R | Perm.W
    when = datetime.datetime(2024, 5, 6, 7, 8, 9)
    day = datetime.date(2024, 5, 6)
    span = datetime.timedelta(days=2, seconds=5)
    price = decimal.Decimal("1.10")
    third = fractions.Fraction(1, 3)
    where = pathlib.PurePosixPath("/data/report.csv")
    order = Order("tea")
    extra = {}
    try:
        import numpy as np
        extra.update(
            grid=np.arange(12).reshape(3, 4),
            floats=np.array([1.5, -2.0, 4.25]),
            words=np.array(["a", "b"]),
            huge=np.zeros(10_000_001, dtype=np.int8),
            scalar=np.float64(2.5),
        )
    except ImportError:
        pass
    try:
        import pandas as pd
        frame = pd.DataFrame({"a": [1, 2, 3], "b": [0.5, 1.5, 2.5]}, index=["r1", "r2", "r3"])
        extra.update(frame=frame, series=frame["a"], numbered=pd.Series([10, 20]),
                     labels=pd.Index([7, 8, 9]))
    except ImportError:
        pass
    try:
        import attrs

        @attrs.define
        class Box:
            width: int
            height: int = 2
        extra.update(box=Box(1))
    except ImportError:
        pass
    try:
        import pydantic

        class User(pydantic.BaseModel):
            model_config = pydantic.ConfigDict(extra="allow")
            name: str
            age: int = 30
        extra.update(user=User(name="ada", team="core"))
    except ImportError:
        pass
    globals().update(extra)
    print("stop here")  # BP

main()
"""

ANY = object()  # A value text that differs between library versions.

# (expression, the library it needs, value, type, named children as "name = value"
# lines, indexed children of the first page as lines)
CASES = [
    ("pair", None, "Pair(left=1, right='two')", "Pair",
     ["left = 1", "right = 'two'"], []),
    ("point", None, "Point(x=3, y=0)", "Point", ["x = 3", "y = 0"], []),
    ("color", None, "<Color.RED: 1>", "Color", ["name = 'RED'", "value = 1"], []),
    ("level", None, "<Level.HIGH: 3>", "Level", ["name = 'HIGH'", "value = 3"], []),
    ("planet", None, "<Planet.EARTH: (5.97e+24, 6370000.0)>", "Planet",
     ["name = 'EARTH'", "value = (5.97e+24, 6370000.0)", "mass = 5.97e+24",
      "radius = 6370000.0"], []),
    ("when", None, "datetime.datetime(2024, 5, 6, 7, 8, 9)", "datetime.datetime",
     ["year = 2024", "month = 5", "day = 6", "hour = 7", "minute = 8", "second = 9",
      "microsecond = 0", "tzinfo = None", "isoformat() = '2024-05-06T07:08:09'"], []),
    ("day", None, "datetime.date(2024, 5, 6)", "datetime.date",
     ["year = 2024", "month = 5", "day = 6", "isoformat() = '2024-05-06'",
      "weekday() = 0"], []),
    ("span", None, "datetime.timedelta(days=2, seconds=5)", "datetime.timedelta",
     ["days = 2", "seconds = 5", "microseconds = 0", "total_seconds() = 172805.0"], []),
    ("price", None, "Decimal('1.10')", "decimal.Decimal", None, None),
    ("third", None, "Fraction(1, 3)", "fractions.Fraction",
     ["numerator = 1", "denominator = 3"], []),
    ("where", None, "PurePosixPath('/data/report.csv')", "pathlib.PurePosixPath",
     ["name = 'report.csv'", "stem = 'report'", "suffix = '.csv'",
      "parent = PurePosixPath('/data')", "parts = ('/', 'data', 'report.csv')"], []),
    # The declared fields first, then what __post_init__ added, then the groups.
    ("order", None, "Order(item='tea', count=1)", "Order",
     ["item = 'tea'", "count = 1", "note = 'late'", "special variables = "], []),
    ("grid", "numpy", "array([[ 0,  1,  2,  3], [ 4,  5,  6,  7], [ 8,  9, 10, 11]])",
     "numpy.ndarray",
     ["dtype = dtype('int64')", "shape = (3, 4)", "size = 12", "min = 0", "max = 11"],
     ["0 = array([0, 1, 2, 3])", "1 = array([4, 5, 6, 7])", "2 = array([ 8,  9, 10, 11])"]),
    ("floats", "numpy", "array([ 1.5 , -2.  ,  4.25])", "numpy.ndarray",
     ["dtype = dtype('float64')", "shape = (3,)", "size = 3", "min = -2.0", "max = 4.25"],
     ["0 = 1.5", "1 = -2.0", "2 = 4.25"]),
    ("words", "numpy", "array(['a', 'b'], dtype='<U1')", "numpy.ndarray",
     ["dtype = dtype('<U1')", "shape = (2,)", "size = 2"], ["0 = np.str_('a')",
                                                            "1 = np.str_('b')"]),
    ("huge", "numpy", ANY, "numpy.ndarray",
     ["dtype = dtype('int8')", "shape = (10000001,)", "size = 10000001",
      "min = not computed for more than 10,000,000 elements",
      "max = not computed for more than 10,000,000 elements"], ANY),
    ("scalar", "numpy", "2.5", "numpy.float64", None, None),
    ("frame", "pandas", "DataFrame: 3 rows × 2 columns", "pandas.DataFrame",
     ["shape = (3, 2)", "dtypes = {'a': dtype('int64'), 'b': dtype('float64')}",
      "columns = " + "\0", "index = " + "\0",
      "'a' = {'r1': 1, 'r2': 2, 'r3': 3}", "'b' = {'r1': 0.5, 'r2': 1.5, 'r3': 2.5}"],
     ["'r1' = {'a': 1.0, 'b': 0.5}", "'r2' = {'a': 2.0, 'b': 1.5}",
      "'r3' = {'a': 3.0, 'b': 2.5}"]),
    ("series", "pandas", "{'r1': 1, 'r2': 2, 'r3': 3}", "pandas.Series",
     ["dtype = dtype('int64')", "name = 'a'", "index = " + "\0"],
     ["'r1' = 1", "'r2' = 2", "'r3' = 3"]),
    ("numbered", "pandas", "{0: 10, 1: 20}", "pandas.Series",
     ["dtype = dtype('int64')", "name = None", "index = RangeIndex(start=0, stop=2, step=1)"],
     ["0 = 10", "1 = 20"]),
    ("labels", "pandas", "Index([7, 8, 9], dtype='int64')", "pandas.Index",
     ["dtype = dtype('int64')", "name = None"], ["0 = 7", "1 = 8", "2 = 9"]),
    ("box", "attrs", "Box(width=1, height=2)", "main.<locals>.Box",
     ["width = 1", "height = 2", "special variables = "], []),
    ("user", "pydantic", "User(name='ada', age=30, team='core')", "main.<locals>.User",
     ["name = 'ada'", "age = 30", "team = 'core'"], []),
]
if sys.version_info >= (3, 11):  # Flag members combine by name from 3.11.
    CASES.append(("perm", None, "<Perm.R|W: 6>", "Perm",
                  ["name = 'R|W'", "value = 6", "members = [<Perm.R: 4>, <Perm.W: 2>]"], []))


def _line(variable) -> str:
    return f"{variable['name']} = {variable['value']}"


def _matches(expected, actual) -> bool:
    """``"\\0"`` at the end of an expected line: any value text after it."""
    if expected is ANY:
        return True
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(
            a.startswith(e[:-1]) if e.endswith("\0") else a == e
            for e, a in zip(expected, actual))
    return expected == actual


def _presented(debuggee, variable):
    """The named and the first page of indexed children, as VS Code fetches them."""
    reference = variable["variablesReference"]
    if not reference:
        return None, None
    named = indexed = []
    if variable.get("namedVariables"):
        body = debuggee.request("variables", {"variablesReference": reference,
                                              "filter": "named"})
        named = [_line(v) for v in body["variables"]]
    if variable.get("indexedVariables"):
        body = debuggee.request("variables", {"variablesReference": reference,
                                              "filter": "indexed", "start": 0, "count": 100})
        indexed = [_line(v) for v in body["variables"]]
    if not variable.get("indexedVariables") and not variable.get("namedVariables"):
        # No counts: the client asks for everything at once.
        body = debuggee.request("variables", {"variablesReference": reference})
        named = [_line(v) for v in body["variables"]]
    return named, indexed


def test_values_are_presented_by_type(launch, write):
    path = write("presented.py", PROGRAM)
    line = next(i for i, text in enumerate(PROGRAM.strip("\n").split("\n"), 1)
                if "# BP" in text)
    debuggee = launch("--program", path)
    debuggee.configure()
    debuggee.set_breakpoints(path, [line])
    debuggee.request("configurationDone")
    debuggee.stopped()
    frame_id = debuggee.top_frame(1)["id"]
    failures, skipped = [], set()
    for expression, library, value, kind, named, indexed in CASES:
        if library and importlib.util.find_spec(library) is None:
            skipped.add(library)
            continue
        variable = debuggee.request("evaluate", {"expression": expression, "frameId": frame_id,
                                                 "context": "watch"})
        actual = (variable["result"], variable.get("type"),
                  *_presented(debuggee, {**variable, "name": expression}))
        expected = (value, kind, named, indexed)
        if not all(_matches(e, a) for e, a in zip(expected, actual)):
            failures.append(f"{expression}:\n  expected {expected}\n  got      {actual}")
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert not failures, "\n".join(failures)
    if skipped:
        pytest.skip(f"not installed for this Python, cases not checked: {sorted(skipped)}")


BIG_DICT = """
big = {f"key{i}": i for i in range(100_000)}
print("stop here")  # BP
"""


def test_every_key_of_a_big_dict_is_reachable_a_page_at_a_time(launch, write):
    # VS Code pages indexed children only (named ones come all at once, and Dapper sends
    # at most 1,000): a dict's items are indexed children named by their keys.
    path = write("big.py", BIG_DICT)
    debuggee = launch("--program", path)
    debuggee.configure()
    debuggee.set_breakpoints(path, [2])
    debuggee.request("configurationDone")
    debuggee.stopped()
    big = debuggee.locals_of(debuggee.top_frame(1)["id"])["big"]
    assert big["indexedVariables"] == 100_000 and "namedVariables" not in big
    page = debuggee.variables(big["variablesReference"], filter="indexed", start=99_900,
                              count=100)
    assert len(page) == 100
    assert page["'key99999'"]["value"] == "99999"
    assert page["'key99999'"]["evaluateName"] == "big['key99999']"
    assert debuggee.variables(big["variablesReference"], filter="named") == {}
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


PLAIN = """
import collections, sys
Pair = collections.namedtuple("Pair", "a b")
values = [Pair(1, 2), {"k": object()}, [1.5], object()]
print("stop here")  # BP
"""
# Libraries a presenter knows and that nothing in Dapper or the program above imports.
LIBRARIES = ["numpy", "pandas", "pydantic", "attrs", "decimal", "fractions", "datetime"]


def test_presenters_never_import_a_library_the_program_did_not(launch, write):
    path = write("plain.py", PLAIN)
    debuggee = launch("--program", path)
    debuggee.configure()
    debuggee.set_breakpoints(path, [4])
    debuggee.request("configurationDone")
    debuggee.stopped()
    frame_id = debuggee.top_frame(1)["id"]
    values = debuggee.locals_of(frame_id)["values"]
    for item in debuggee.variables(values["variablesReference"]).values():
        if item["variablesReference"]:
            debuggee.variables(item["variablesReference"])
    loaded = debuggee.request("evaluate", {
        "expression": f"[name for name in {LIBRARIES!r} if name in sys.modules]",
        "frameId": frame_id, "context": "watch"})
    assert loaded["result"] == "[]"
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
