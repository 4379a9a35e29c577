"""Function breakpoints on every tracer backend: names, verification when found,
conditions and hit conditions, and replacement of the set."""

from __future__ import annotations

import sys

import pytest

MAIN = """
import shapes

def area(width, height):
    result = width * height
    return result

def numbers():
    yield 1
    yield 2

total = area(2, 3) + area(4, 5)
box = shapes.Box(3)
total += box.volume() + sum(numbers())
print(total)
"""
SHAPES = """
class Box:
    def __init__(self, side):
        self.side = side

    def volume(self):
        side = self.side
        return side ** 3
"""
HAS_QUALNAME = sys.version_info >= (3, 11)


def start(launch, write, backend, breakpoints):
    main = write("main.py", MAIN)
    write("shapes.py", SHAPES)
    debuggee = launch("--program", main, tracer=backend)
    debuggee.configure()
    body = debuggee.request("setFunctionBreakpoints", {"breakpoints": breakpoints})
    debuggee.request("configurationDone")
    return debuggee, body["breakpoints"]


def run_to_end(debuggee, limit=10):
    """Continue through every stop; returns (function name, line, locals) of each."""
    seen = []
    while len(seen) < limit:
        message = debuggee._pump_until(
            lambda m: m["type"] == "event" and m["event"] in ("stopped", "dapper/exiting"),
            "a stop or the end")
        if message["event"] == "dapper/exiting":
            break
        stopped = message["body"]
        assert stopped["reason"] == "function breakpoint", stopped
        frame = debuggee.top_frame(stopped["threadId"])
        values = {name: v["value"] for name, v in debuggee.locals_of(frame["id"]).items()
                  if name in ("width", "height", "side", "self")}
        seen.append((frame["name"], frame["line"], values))
        debuggee.request("continue", {"threadId": stopped["threadId"]})
    return seen


SCENARIOS = {
    "a plain name stops on each call, at the first line of the body": (
        [{"name": "area"}],
        [("area", 4, {"width": "2", "height": "3"}), ("area", 4, {"width": "4", "height": "5"})],
    ),
    "module.func names a function of the main script": (
        [{"name": "main.area", "hitCondition": "2"}],
        [("area", 4, {"width": "4", "height": "5"})],
    ),
    "Class.method in an imported module": (
        [{"name": "Box.volume"}],
        [("Box.volume" if HAS_QUALNAME else "volume", 6, {})],
    ),
    "module.Class.method with a condition": (
        [{"name": "shapes.Box.__init__", "condition": "side > 2"}],
        [("Box.__init__" if HAS_QUALNAME else "__init__", 3, {"side": "3"})],
    ),
    "a generator stops when it starts, not when it resumes": (
        [{"name": "numbers"}],
        [("numbers", 8, {})],
    ),
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_function_breakpoints(launch, write, backend, scenario):
    breakpoints, expected = SCENARIOS[scenario]
    debuggee, _ = start(launch, write, backend, breakpoints)
    seen = run_to_end(debuggee)
    assert [(name, line) for name, line, _ in seen] == [(n, line) for n, line, _ in expected]
    for (_, _, values), (_, _, wanted) in zip(seen, expected):
        assert {k: values[k] for k in wanted} == wanted
    debuggee.finish(0)
    assert debuggee.stdout() == "56\n"


def test_verified_when_the_function_is_first_called(launch, write, backend):
    debuggee, [breakpoint] = start(launch, write, backend, [{"name": "Box.volume"}])
    assert breakpoint["verified"] is False
    assert "not loaded yet" in breakpoint["message"]
    changed = debuggee.wait_event("breakpoint")
    assert changed["reason"] == "changed"
    assert changed["breakpoint"]["id"] == breakpoint["id"]
    assert changed["breakpoint"]["verified"] is True
    assert changed["breakpoint"]["line"] == 6
    assert changed["breakpoint"]["source"]["path"].endswith("shapes.py")
    stopped = debuggee.stopped("function breakpoint")
    assert stopped["hitBreakpointIds"] == [breakpoint["id"]]
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_replacing_the_set_while_stopped(launch, write, backend):
    debuggee, _ = start(launch, write, backend, [{"name": "area"}])
    debuggee.stopped("function breakpoint")
    [already] = debuggee.request("setFunctionBreakpoints", {"breakpoints": [{"name": "area"}]})[
        "breakpoints"]
    # The function is loaded now: verified at once.
    assert already["verified"] is True and already["line"] == 4
    debuggee.request("setFunctionBreakpoints", {"breakpoints": []})
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


@pytest.mark.parametrize("spec, message", [
    ({"name": ""}, "needs a function name"),
    ({"name": "not a name"}, "Invalid function name"),
    ({"name": "area", "condition": "width >"}, "Invalid condition"),
    ({"name": "area", "hitCondition": "often"}, "Invalid hit condition"),
])
def test_invalid_function_breakpoints(launch, write, backend, spec, message):
    debuggee, [breakpoint] = start(launch, write, backend, [spec])
    assert breakpoint["verified"] is False and message in breakpoint["message"]
    debuggee.finish(0)
