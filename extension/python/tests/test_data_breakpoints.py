"""Data breakpoints on every tracer backend: a local, a global, an attribute, a list
item and a dict item; conditions and hit conditions; old and new value in the stop, at
the line after the change, in the frame that made it; the end of a local's frame;
what cannot be watched."""

from __future__ import annotations

import pytest

PROGRAM = """\
class Counter:
    def __init__(self):
        self.count = 0

    def bump(self):
        self.count += 1


def work(counter, items, table):
    total = 0
    for i in range(4):
        total += i
        counter.bump()
        items[1] = i * 10
        table["k"] = i
        table["other"] = -i
    return total


LIMIT = 1


def raise_limit():
    global LIMIT
    LIMIT += 1


counter = Counter()
items = [0, 0, 0]
table = {"k": 0}
print(work(counter, items, table))
raise_limit()
items.insert(0, 5)
raise_limit()
print(LIMIT, counter.count, items, table)
"""
START_LINE = 11  # `for i in range(4):`, in work's frame (total is bound)
OUTPUT = "6\n3 4 [5, 0, 30, 0] {'k': 3, 'other': -3}\n"

# expression (watched from work's frame), breakpoint options, then each stop:
# (function, line, text).
SCENARIOS = {
    "a local stops after each line that changes it": (
        "total", {},
        [("work", 13, "total (in work): 0 \u2192 1"), ("work", 13, "total (in work): 1 \u2192 3"),
         ("work", 13, "total (in work): 3 \u2192 6")],
    ),
    "a local with a hit condition": (
        "total", {"hitCondition": "2"}, [("work", 13, "total (in work): 1 \u2192 3")],
    ),
    "a local with a condition": (
        "total", {"condition": "i == 3"}, [("work", 13, "total (in work): 3 \u2192 6")],
    ),
    "an attribute changed in another function stops there": (
        "counter.count", {"condition": "self.count % 2 == 0"},
        [("bump", 6, "counter.count: 1 \u2192 2"), ("bump", 6, "counter.count: 3 \u2192 4")],
    ),
    "a list item (an insert shifts it)": (
        "items[1]", {"hitCondition": ">=3"},
        [("work", 15, "items[1]: 20 \u2192 30"), ("<module>", 34, "items[1]: 30 \u2192 0")],
    ),
    "a dict item": (
        "table['k']", {"hitCondition": "%2"},
        [("work", 16, "table['k']: 1 \u2192 2")],
    ),
    "a global changed by a function's last line": (
        "LIMIT", {},
        [("raise_limit", 25, "LIMIT: 1 \u2192 2"), ("raise_limit", 25, "LIMIT: 2 \u2192 3")],
    ),
}


def start(launch, write, backend):
    program = write("main.py", PROGRAM)
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure()
    debuggee.set_breakpoints(program, [START_LINE])
    debuggee.request("configurationDone")
    stopped = debuggee.stopped()
    frame = debuggee.top_frame(stopped["threadId"])
    debuggee.set_breakpoints(program, [])
    return debuggee, frame


def stops_until_exit(debuggee, limit=10):
    seen, events = [], []
    while len(seen) < limit:
        message = debuggee._pump_until(
            lambda m: m["type"] == "event" and m["event"] in ("stopped", "breakpoint",
                                                               "dapper/exiting"),
            "a stop or the end")
        if message["event"] == "dapper/exiting":
            break
        if message["event"] == "breakpoint":
            events.append(message["body"])
            continue
        stopped = message["body"]
        assert stopped["reason"] == "data breakpoint", stopped
        assert stopped["description"] == f"Paused on data breakpoint: {stopped['text']}"
        frame = debuggee.top_frame(stopped["threadId"])
        seen.append((frame["name"].rsplit(".", 1)[-1], frame["line"], stopped["text"],
                     stopped["hitBreakpointIds"]))
        debuggee.request("continue", {"threadId": stopped["threadId"]})
    return seen, events


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_data_breakpoints(launch, write, backend, scenario):
    expression, options, expected = SCENARIOS[scenario]
    debuggee, frame = start(launch, write, backend)
    info = debuggee.request("dataBreakpointInfo", {"name": expression, "frameId": frame["id"]})
    assert info["dataId"] and info["accessTypes"] == ["write"], info
    [breakpoint] = debuggee.request("setDataBreakpoints", {"breakpoints": [
        {"dataId": info["dataId"], "accessType": "write", **options}]})["breakpoints"]
    assert breakpoint["verified"] is True
    debuggee.request("continue", {"threadId": 1})
    seen, events = stops_until_exit(debuggee)
    assert [(name, line, text) for name, line, text, _ in seen] == expected
    assert all(ids == [breakpoint["id"]] for _, _, _, ids in seen)
    if expression == "total":
        # The local's frame returned: its breakpoint ends, and the client is told.
        assert [(e["breakpoint"]["id"], e["breakpoint"]["verified"]) for e in events] == [
            (breakpoint["id"], False)]
        assert "returned" in events[0]["breakpoint"]["message"]
    debuggee.finish(0)
    assert debuggee.stdout() == OUTPUT


def test_from_the_variables_view(launch, write, backend):
    """The Variables view's form: a variables reference and a child's name, for a scope's
    variable and an item of a shown list; replacing the set removes a breakpoint."""
    debuggee, frame = start(launch, write, backend)
    scopes = debuggee.request("scopes", {"frameId": frame["id"]})["scopes"]
    local_vars = debuggee.variables(scopes[0]["variablesReference"])
    total = debuggee.request("dataBreakpointInfo", {
        "name": "total", "variablesReference": scopes[0]["variablesReference"]})
    item = debuggee.request("dataBreakpointInfo", {
        "name": "1", "variablesReference": local_vars["items"]["variablesReference"]})
    assert item["description"] == "items[1]"
    again = debuggee.request("dataBreakpointInfo", {"name": "items[1]", "frameId": frame["id"]})
    assert again["dataId"] == item["dataId"]
    first = debuggee.request("setDataBreakpoints", {"breakpoints": [
        {"dataId": total["dataId"]}, {"dataId": item["dataId"]}]})["breakpoints"]
    assert [b["verified"] for b in first] == [True, True]
    debuggee.request("continue", {"threadId": 1})
    assert debuggee.stopped("data breakpoint")["text"] == "total (in work): 0 \u2192 1"
    [kept] = debuggee.request("setDataBreakpoints", {"breakpoints": [
        {"dataId": item["dataId"]}]})["breakpoints"]
    assert kept["id"] == first[1]["id"]
    debuggee.request("continue", {"threadId": 1})
    seen, _ = stops_until_exit(debuggee)
    assert [text for _, _, text, _ in seen] == [
        "items[1]: 0 \u2192 10", "items[1]: 10 \u2192 20", "items[1]: 20 \u2192 30",
        "items[1]: 30 \u2192 0"]
    debuggee.finish(0)


@pytest.mark.parametrize("arguments, why", [
    ({"name": "counter.bump"}, "not stored on the object"),
    ({"name": "(1, 2)[0]"}, "only items of a list or a dict"),
    ({"name": "items[7]"}, "does not exist"),
    ({"name": "nothing"}, "is not a global"),
    ({"name": "total + 1"}, "is not a variable"),
    ({"name": "total", "asAddress": True}, "no addresses"),
])
def test_what_cannot_be_watched(launch, write, backend, arguments, why):
    debuggee, frame = start(launch, write, backend)
    info = debuggee.request("dataBreakpointInfo", {**arguments, "frameId": frame["id"]})
    assert info["dataId"] is None and why in info["description"], info
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_breakpoints_that_cannot_be_set(launch, write, backend):
    debuggee, frame = start(launch, write, backend)
    info = debuggee.request("dataBreakpointInfo", {"name": "total", "frameId": frame["id"]})
    answers = debuggee.request("setDataBreakpoints", {"breakpoints": [
        {"dataId": "local:99"},
        {"dataId": info["dataId"], "accessType": "read"},
        {"dataId": info["dataId"], "condition": "total >"},
    ]})["breakpoints"]
    assert [a["verified"] for a in answers] == [False, False, False]
    assert "expired" in answers[0]["message"]
    assert "Only writes" in answers[1]["message"]
    assert "Invalid condition" in answers[2]["message"]
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == OUTPUT


# Which lines of a code object may change what, and where that is compared (no debuggee).

def _sample(box, xs, d):
    total = 0
    for i in range(3):
        total += i
        box.value = i
    xs.append(total)
    d |= {"k": total}
    return total


def _line(offset):
    return _sample.__code__.co_firstlineno + offset


def test_code_writes_lines():
    from dapperdbg.breakpoints.data import code_writes

    writes = code_writes(_sample.__code__)
    assert writes.locals["total"] == {_line(1), _line(3)}
    assert writes.attributes == {"value": frozenset({_line(4)})}
    # An in-place operator may change a list or dict in place (`total += i` may be
    # one), as may a call of a mutating method.
    assert writes.items == {_line(3), _line(5), _line(6)}
    assert writes.globals == {}
    # A store in the loop's body is seen on the loop's line (the next iteration, or its
    # end); the line after the loop is what follows the loop's last line.
    assert _line(2) in writes.lines_after({_line(4)})
    assert writes.lines_after({_line(5)}) == {_line(6)}


class _RaisingEquality:
    def __eq__(self, other):
        raise AssertionError("a data breakpoint must not call __eq__")

    __hash__ = object.__hash__


@pytest.mark.parametrize("old, new, expected", [
    (1, 1, False),
    (10 ** 30, int("1" + "0" * 30), False),  # equal ints, two objects
    ("a" * 50, "".join(["a"] * 50), False),
    (1, 1.0, True),  # equal, but another type
    ([], [], True),  # another list
    (_RaisingEquality(), _RaisingEquality(), True),
])
def test_changed(old, new, expected):
    from dapperdbg.breakpoints.data import changed

    assert changed(old, new) is expected
