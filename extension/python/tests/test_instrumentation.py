"""Instrumented compiles: which lines take a probe, and that a copy behaves exactly as
the plain code but for its probes' calls.

One helper, many cases. A case is a small program whose probe lines carry a marker
comment, ``#@ ID`` or ``#@ ID: CONDITION``; the helper compiles it plain and
instrumented, runs both, and checks: the same result; the probe hits expected, in
order, each on its marker's line; the refusals expected; the same line numbers in the
code objects; and the same line events under ``sys.settrace`` (and under
``sys.monitoring`` on 3.12+), so stepping and tracebacks cannot tell a copy apart.
"""

from __future__ import annotations

import re
import sys
import textwrap
from dataclasses import dataclass, field

import pytest

from dapperdbg.common.code_lines import code_tree_lines
from dapperdbg.instrumentation import Probe, instrument_source, set_probe_handler

FILENAME = "/virtual/instrumented_case.py"
_MARKER = re.compile(r"#@ (\d+)(?:: (.*))?$")


@dataclass
class Case:
    name: str
    source: str
    call: str
    # Expected hits in order: a probe id, or (id, name of the condition's exception).
    hits: list = field(default_factory=list)
    # Probe id -> a part of the reason it is refused.
    refused: dict = field(default_factory=dict)
    min_version: tuple = (3, 9)
    # The last version the case applies to (compilers differ on what they keep).
    max_version: tuple = (3, 99)


def parse_markers(source: str) -> tuple[dict[int, Probe], dict[int, int]]:
    probes: dict[int, Probe] = {}
    lines: dict[int, int] = {}
    for number, text in enumerate(source.splitlines(), 1):
        match = _MARKER.search(text)
        if match:
            probe_id = int(match.group(1))
            probes[number] = Probe(probe_id, match.group(2))
            lines[probe_id] = number
    return probes, lines


class Recorder:
    def __init__(self) -> None:
        self.hits: list = []

    def __call__(self, probe_id, frame, error) -> None:
        assert frame.f_code.co_filename == FILENAME
        self.hits.append((probe_id, frame.f_lineno, type(error).__name__ if error else None))


def run(code, call: str):
    namespace = {"__name__": "instrumented_case"}
    exec(code, namespace)
    return eval(call, namespace)


def line_events_settrace(code, call: str, quiet: set, raised: list | None = None) -> list:
    """The line events of running ``code`` (but those at ``quiet`` offsets); where
    exceptions are raised, (code, offset), go to ``raised``."""
    events = []

    def trace(frame, event, arg):
        if frame.f_code.co_filename != FILENAME:
            return None
        if event == "line" and (frame.f_code, frame.f_lasti) not in quiet:
            events.append((frame.f_code.co_name, frame.f_lineno))
        elif event == "exception" and raised is not None:
            raised.append((frame.f_code, frame.f_lasti))
        return trace

    sys.settrace(trace)
    try:
        run(code, call)
    finally:
        sys.settrace(None)
    return events


def line_events_monitoring(code, call: str, quiet: set) -> list:
    monitoring = sys.monitoring
    tool = 4
    events = []

    def on_line(code_object, line):
        if code_object.co_filename != FILENAME:
            return
        if (code_object, sys._getframe(1).f_lasti) not in quiet:
            events.append((code_object.co_name, line))

    monitoring.use_tool_id(tool, "instrumentation-test")
    try:
        monitoring.register_callback(tool, monitoring.events.LINE, on_line)
        monitoring.set_events(tool, monitoring.events.LINE)
        run(code, call)
    finally:
        monitoring.set_events(tool, 0)
        monitoring.register_callback(tool, monitoring.events.LINE, None)
        monitoring.free_tool_id(tool)
    return events


def check(case: Case) -> None:
    if not case.min_version <= sys.version_info[:2] <= case.max_version:
        pytest.skip(f"for Python {case.min_version} to {case.max_version}")
    source = textwrap.dedent(case.source)
    probes, line_of = parse_markers(source)
    module = instrument_source(source, FILENAME, probes)

    refused = {probes[line].probe_id: reason for line, reason in module.refused.items()}
    assert set(refused) == set(case.refused), refused
    for probe_id, part in case.refused.items():
        assert part in refused[probe_id]
    assert {p.probe_id for p in module.accepted.values()} == {
        p.probe_id for p in probes.values()} - set(case.refused)
    # The copies know their own probe lines, which the tracer will skip.
    assert set().union(*(sites.lines for _, sites in module.sites)) == set(module.accepted)
    assert code_tree_lines(module.code) == code_tree_lines(module.plain)

    recorder = Recorder()
    set_probe_handler(recorder)
    try:
        expected_result = run(module.plain, case.call)
        assert recorder.hits == []
        assert run(module.code, case.call) == expected_result
        expected_hits = [
            (hit, line_of[hit], None) if isinstance(hit, int) else (hit[0], line_of[hit[0]], hit[1])
            for hit in case.hits
        ]
        assert recorder.hits == expected_hits
        # Line events at quiet offsets only repeat the probe line's: the tracer ignores
        # them, and then sees exactly the events of the original.
        quiet = {(code, offset) for code, sites in module.sites
                 for offset in sites.quiet_offsets}
        raised: list = []
        plain_raised: list = []
        assert line_events_settrace(module.code, case.call, quiet, raised) == (
            line_events_settrace(module.plain, case.call, set(), plain_raised))
        # Exceptions raised at probe offsets are the conditions' (each raises once in
        # the copy's frame); all others are the program's own.
        probe_offsets = {(code, offset) for code, sites in module.sites
                         for offset in sites.probe_offsets}
        from_probes = [event for event in raised if event in probe_offsets]
        assert len(from_probes) == sum(1 for hit in expected_hits if hit[2])
        assert len(raised) - len(from_probes) == len(plain_raised)
        if sys.version_info >= (3, 12):
            assert line_events_monitoring(module.code, case.call, quiet) == (
                line_events_monitoring(module.plain, case.call, set()))
    finally:
        set_probe_handler(None)


# Statements after jumps, which 3.9 compiles and 3.10+ drop.
AFTER_JUMPS = """
    def f(items):
        for item in items:
            if item:
                continue
                skipped = 1  #@ 1
            break
            after_break = 2  #@ 2
        if not items:
            raise ValueError
            after_raise = 3  #@ 3
        return len(items)
    """


CASES = [
    Case("plain statement", """
        def f(n):
            x = n + 1  #@ 1
            return x
        """, "f(2)", hits=[1]),
    Case("several probes in order", """
        def f(n):
            x = n + 1  #@ 1
            y = x * 2  #@ 2
            return x + y
        """, "f(2)", hits=[1, 2]),
    Case("condition false", """
        def f(n):
            x = n + 1  #@ 1: n > 100
            return x
        """, "f(2)"),
    Case("condition true on some iterations", """
        def f():
            total = 0
            for i in range(6):
                total += i  #@ 1: i % 2 == 0
            return total
        """, "f()", hits=[1, 1, 1]),
    Case("condition reads globals and builtins", """
        LIMIT = 2
        def f(items):
            size = len(items)  #@ 1: len(items) > LIMIT
            return size
        """, "[f([1]), f([1, 2, 3])]", hits=[1]),
    Case("condition raises", """
        def f(n):
            x = n  #@ 1: 1 / 0
            return x
        """, "f(3)", hits=[(1, "ZeroDivisionError")]),
    Case("condition names an unknown variable", """
        def f(n):
            x = n  #@ 1: no_such_name > 1
            return x
        """, "f(3)", hits=[(1, "NameError")]),
    Case("a raising condition keeps the exception being handled", """
        import sys
        def f():
            try:
                raise KeyError("k")
            except KeyError:
                x = 1  #@ 1: {}["missing"]
                return repr(sys.exc_info()[1]), x
        """, "f()", hits=[(1, "KeyError")]),
    Case("a raising condition leaves no exception behind", """
        import sys
        def f():
            x = 1  #@ 1: undefined
            return sys.exc_info()
        """, "f()", hits=[(1, "NameError")]),
    Case("two statements on one line", """
        def f():
            a = 1; b = 2  #@ 1
            return a + b
        """, "f()", hits=[1]),
    Case("one-line if", """
        def f(x):
            if x: x += 1  #@ 1
            return x
        """, "[f(0), f(1)]", hits=[1, 1]),
    Case("if and elif headers", """
        def f(x):
            if x == 1:  #@ 1
                return "one"
            elif x == 2:  #@ 2
                return "two"
            return "many"
        """, "[f(1), f(2), f(3)]", hits=[1, 1, 2, 1, 2]),
    Case("loop body, break and continue", """
        def f():
            seen = []
            for i in range(5):
                if i == 1:
                    continue
                seen.append(i)  #@ 1: i > 2
                if i == 3:
                    break
            else:
                seen.append("else")
            return seen
        """, "f()", hits=[1]),
    Case("while body", """
        def f():
            n = 3
            while n:
                n -= 1  #@ 1
            return n
        """, "f()", hits=[1, 1, 1]),
    Case("loop headers are refused", """
        def f():
            total = 0
            for i in range(3):  #@ 1
                total += i
            while total > 0:  #@ 2: total > 1
                total -= 1
            return total
        """, "f()", refused={1: "loop header", 2: "loop header"}),
    Case("statement holding a comprehension", """
        def f(xs):
            squares = [x * x for x in xs]  #@ 1: len(xs) == 3
            pairs = {x: -x for x in squares if x}  #@ 2
            return squares, pairs, sum(x for x in xs)
        """, "f([1, 2, 3])", hits=[1, 2]),
    Case("statement holding a lambda", """
        def f(xs):
            key = lambda x: -x  #@ 1
            return sorted(xs, key=key)
        """, "f([1, 3, 2])", hits=[1]),
    Case("nested function and closure", """
        def outer(a):
            def inner(b):
                c = a + b  #@ 1: a == 1
                return c
            return inner
        """, "[outer(1)(2), outer(5)(2)]", hits=[1]),
    Case("a condition on a variable the function does not close over", """
        def outer(a):
            def inner(b):
                c = b * 2  #@ 1: a == 1
                return c
            return inner(3) + a
        """, "outer(1)", refused={1: "enclosing function"}),
    Case("a zero-argument super() in a condition of a method without one", """
        class A:
            def m(self):
                return 1  #@ 1: super() is None
        """, "A().m()", refused={1: "enclosing function"}),
    Case("methods, class and static methods", """
        class Point:
            def __init__(self, x):
                self.x = x  #@ 1: x < 0
            def double(self):
                return self.x * 2  #@ 2: self.x == 4
            @classmethod
            def origin(cls):
                return cls(0)  #@ 3
            @staticmethod
            def name():
                return "point"  #@ 4
        """, "[Point(-1).x, Point(4).double(), Point.origin().x, Point.name()]",
        hits=[1, 2, 3, 4]),
    Case("decorator line and decorated body", """
        def deco(function):
            return function
        @deco  #@ 1
        def g(n):
            return n + 1  #@ 2
        """, "g(1)", hits=[1, 2]),
    Case("the def line of a decorated function is inside its statement", """
        def deco(function):
            return function
        @deco
        def g(n):  #@ 1
            return n + 1
        """, "g(1)", refused={1: "inside the statement that starts on line 4"}),
    Case("generator", """
        def gen():
            for i in range(3):
                yield i  #@ 1: i > 0
        """, "list(gen())", hits=[1, 1]),
    Case("async function", """
        import asyncio
        async def main():
            await asyncio.sleep(0)
            x = 1  #@ 1
            return x
        """, "asyncio.run(main())", hits=[1]),
    Case("async generator and async for", """
        import asyncio
        async def ticks():
            for i in range(3):
                yield i  #@ 1: i != 1
        async def main():
            got = []
            async for tick in ticks():
                got.append(tick)  #@ 2
            return got
        """, "asyncio.run(main())", hits=[1, 2, 2, 1, 2]),
    Case("class body", """
        class C:
            x = 1  #@ 1
            y = x + 1  #@ 2: x == 1
        """, "(C.x, C.y)", hits=[1, 2]),
    Case("try, except, else and finally", """
        def f(n):
            try:  #@ 1
                r = 10 / n  #@ 2
            except ZeroDivisionError:
                r = None  #@ 3
            else:
                r += 1  #@ 4
            finally:
                done = True  #@ 5
            return r, done
        """, "[f(0), f(5)]", hits=[1, 2, 3, 5, 1, 2, 4, 5]),
    Case("except line is refused", """
        def f():
            try:
                return 1
            except ValueError:  #@ 1
                return 2
        """, "f()", refused={1: "inside the statement"}),
    Case("with statement", """
        import contextlib
        def f():
            with contextlib.nullcontext(3) as value:  #@ 1
                doubled = value * 2  #@ 2
            return doubled
        """, "f()", hits=[1, 2]),
    Case("match statement", """
        def f(command):
            match command:  #@ 1
                case ["go", direction]:
                    return direction  #@ 2
                case _:
                    return None  #@ 3: command == "stop"
        """, "[f(['go', 'north']), f('stop'), f('x')]", hits=[1, 2, 1, 3, 1],
        min_version=(3, 10)),
    Case("case line is refused", """
        def f(command):
            match command:
                case "go":  #@ 1
                    return 1
            return 0
        """, "f('go')", refused={1: "inside the statement"}, min_version=(3, 10)),
    Case("multi-line statement: first line taken, others refused", """
        def f(a, b):
            total = max(  #@ 1
                a,  #@ 2
                b,
            )
            return total
        """, "f(1, 2)", hits=[1], refused={2: "inside the statement that starts on line 3"}),
    Case("multi-line statement that starts running on a later line", """
        def f(a, b):
            total = (  #@ 1
                a
                + b
            )
            return (  #@ 2
                total
            )
        """, "f(1, 2)", refused={1: "starts running on line 4", 2: "starts running on line 8"}),
    Case("lines that run no statement are refused", """
        \"\"\"Module docstring.\"\"\"  #@ 1
        from __future__ import annotations  #@ 2

        def f():
            \"\"\"Docstring.\"\"\"  #@ 3
            global G  #@ 4

            G = 1
            return G
        #@ 5
        """, "f()", refused={1: "docstring", 2: "__future__", 3: "docstring",
                             4: "global declaration", 5: "no statement starts"}),
    Case("functions a JIT compiler takes from their bytecode keep it", """
        def njit(function=None, **options):  # numba's decorator, as the program sees it
            return function if function is not None else (lambda inner: inner)

        @njit(cache=True)
        def jitted(x):
            y = x * 2  #@ 1
            return y

        def handed(x):
            return x + 1  #@ 2

        fast = njit(handed)

        def plain(x):
            return jitted(x) + fast(x)  #@ 3
        """, "plain(1)", hits=[3], refused={1: "JIT compiler", 2: "JIT compiler"}),
    Case("statements compiled away are refused (3.9)", """
        def f():
            x = 1
            "not a docstring"  #@ 1
            return x
        """, "f()", refused={1: "runs no code"}, max_version=(3, 9)),
    Case("statements kept as a NOP take a probe (3.10+)", """
        def f():
            x = 1
            "not a docstring"  #@ 1
            return x
        """, "f()", hits=[1], min_version=(3, 10)),
    Case("conditions that cannot be compiled inline", """
        def f(xs):
            a = 1  #@ 1: any(x > 1 for x in xs)
            b = 2  #@ 2: (n := len(xs)) > 1
            c = 3  #@ 3: [x for x in xs]
            d = 4  #@ 4: (lambda: True)()
            e = 5  #@ 5: (yield)
            g = 6  #@ 6: x +
            return a + b + c + d + e + g
        """, "f([1, 2])", refused={1: "generator expression", 2: "assignment expression",
                                   3: "list comprehension", 4: "lambda", 5: "yield",
                                   6: "does not compile"}),
    Case("await in a condition is refused", """
        async def f():
            x = 1  #@ 1: await g()
            return x
        """, "f().close()", refused={1: "await"}),
    Case("statements after a return never run", """
        def f(items):
            return len(items)
            unreachable = 1  #@ 1
        """, "f([1, 0])", refused={1: "runs no code"}),
    Case("statements after a raise, break or continue never run (3.10+)", AFTER_JUMPS,
         "f([1, 0])", refused={1: "runs no code", 2: "runs no code", 3: "runs no code"},
         min_version=(3, 10)),
    Case("3.9 keeps statements after a raise, break or continue (they never run)",
         AFTER_JUMPS, "f([1, 0])", max_version=(3, 9)),
    Case("pass ending a block", """
        def f(x):
            if x:
                pass  #@ 1
            else:
                x = 2  #@ 2
            return x
        """, "[f(0), f(1)]", hits=[2, 1]),
    Case("a condition in a function of a module with __future__ imports", """
        from __future__ import annotations
        def outer(a: int) -> int:
            def inner(b: list[int]) -> int:
                c = a + len(b)  #@ 1: len(b) == 1
                return c
            def other(d: int) -> int:
                return d  #@ 2: a == 1
            return inner([1]) + other(2)
        """, "[outer(1), outer(2)]", hits=[1, 1], refused={2: "enclosing function"}),
    Case("a condition in a later function, after lambdas and decorated classes", """
        import functools
        def first(key=lambda x: -x, other=lambda y: y):
            return key(1) + other(2)
        @functools.total_ordering
        class Ranked:
            def __init__(self, rank):
                self.rank = rank  #@ 1: rank > 1
            def __eq__(self, other):
                return self.rank == other.rank
            def __lt__(self, other):
                return self.rank < other.rank  #@ 2: other.rank == 3
        def second(n):
            squares = [i * i for i in range(n)]
            def last():
                return sum(squares)  #@ 3: len(squares) == 3
            return last()
        """, "[first(), Ranked(2) < Ranked(3), second(3), second(4)]", hits=[1, 1, 2, 3],
        ),
    Case("module-level statements", """
        import math
        value = math.sqrt(16)  #@ 1
        if value > 3:  #@ 2: value == 4.0
            result = "big"  #@ 3
        """, "result", hits=[1, 2, 3]),
]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_instrumented_compile(case: Case) -> None:
    check(case)
