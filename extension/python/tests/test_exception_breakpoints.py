"""Exception breakpoints (raised, uncaught, userUnhandled) and exceptionInfo, on every
tracer backend; and the filter parsing and type matching they rest on."""

from __future__ import annotations

import json
import sys

import pytest

from dapperdbg.breakpoints.exception_filters import (
    FilterError,
    parse_filters,
    parse_type_names,
    type_matches,
)

PROGRAM = """
import json

def fail(kind):
    if kind == "value":
        raise ValueError("bad value")
    raise KeyError("missing")

def caught(kind):
    try:
        fail(kind)
    except Exception:
        return "caught"

def callback(text):
    raise RuntimeError("from the callback: " + text)

caught("value")
caught("key")
try:
    json.loads("[1]", object_hook=None, parse_int=callback)
except RuntimeError:
    pass
fail("value")
"""
# Lines of PROGRAM (1-based, after the leading newline is stripped).
RAISE_VALUE, RAISE_KEY, CALLBACK_RAISE = 5, 6, 15


def run(launch, write, backend, filters, filter_options=()):
    """Launch PROGRAM with these filters; returns the debuggee."""
    path = write("exceptions.py", PROGRAM)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    arguments = {"filters": list(filters)}
    if filter_options:
        arguments["filterOptions"] = list(filter_options)
    body = debuggee.request("setExceptionBreakpoints", arguments)
    assert len(body["breakpoints"]) == len(filters) + len(filter_options)
    debuggee.request("configurationDone")
    return debuggee


def stops(debuggee, count):
    """Wait for ``count`` exception stops, continuing each; returns (line, frame name,
    exceptionInfo) for each."""
    seen = []
    for _ in range(count):
        stopped = debuggee.stopped("exception")
        assert stopped["allThreadsStopped"] is True
        frame = debuggee.top_frame(stopped["threadId"])
        info = debuggee.request("exceptionInfo", {"threadId": stopped["threadId"]})
        assert stopped["description"] == info["description"]
        seen.append((frame["line"], frame["name"], info))
        debuggee.request("continue", {"threadId": stopped["threadId"]})
    return seen


# name: (filters, filter options, expected stops as (line, exceptionId, breakMode))
SCENARIOS = {
    "raised stops once per exception, where it is raised": (
        ["raised"], [],
        [(RAISE_VALUE, "ValueError", "always"), (RAISE_KEY, "KeyError", "always"),
         (CALLBACK_RAISE, "RuntimeError", "always"), (RAISE_VALUE, "ValueError", "always")],
    ),
    "raised limited to a type": (
        [], [{"filterId": "raised", "condition": "KeyError"}],
        [(RAISE_KEY, "KeyError", "always")],
    ),
    "a type condition matches subclasses": (
        [], [{"filterId": "raised", "condition": "LookupError, ArithmeticError"}],
        [(RAISE_KEY, "KeyError", "always")],
    ),
    "uncaught stops only at the exception that ends the program": (
        ["uncaught"], [],
        [(RAISE_VALUE, "ValueError", "unhandled")],
    ),
    "userUnhandled: the user's callback raising into the library": (
        ["userUnhandled"], [],
        [(CALLBACK_RAISE, "RuntimeError", "userUnhandled")],
    ),
    "no filters: no stop": ([], [], []),
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_exception_filters(launch, write, backend, scenario):
    filters, options, expected = SCENARIOS[scenario]
    debuggee = run(launch, write, backend, filters, options)
    seen = stops(debuggee, len(expected))
    assert [(line, info["exceptionId"], info["breakMode"]) for line, _, info in seen] == expected
    debuggee.finish(1)
    # Once continued, the uncaught exception ends the program as Python would.
    assert debuggee.stderr().rstrip().endswith("ValueError: bad value")


def test_exception_info_has_the_full_traceback(launch, write, backend):
    debuggee = run(launch, write, backend, ["uncaught"])
    [(line, name, info)] = stops(debuggee, 1)
    assert (line, name) == (RAISE_VALUE, "fail")
    assert info["description"] == "ValueError: bad value"
    details = info["details"]
    assert details["typeName"] == "ValueError" and details["fullTypeName"] == "ValueError"
    assert details["message"] == "bad value"
    trace = details["stackTrace"]
    assert trace.startswith("Traceback (most recent call last):")
    assert 'line 23, in <module>' in trace and 'line 5, in fail' in trace
    assert trace.rstrip().endswith("ValueError: bad value")
    debuggee.finish(1)


CHAINED = """
class ConfigError(Exception):
    pass

def parse(text):
    return int(text)

def load(text):
    try:
        parse(text)
    except ValueError as error:
        raise ConfigError("bad config") from error

def main():
    try:
        load("x")
    except ConfigError:
        {}["missing"]

main()
"""
# What the call stack shows when the uncaught KeyError stops the program: its own frames,
# then a label and the frames of each exception behind it, innermost first, as
# (name, line, presentationHint). A chained exception's frames are those its traceback
# passed through, from the raise to the frame that caught it, as Python prints them.
CHAINED_STACK = [
    ("main", 17, None), ("<module>", 19, None),
    ("While handling __main__.ConfigError: bad config", 0, "label"),
    ("load", 11, None), ("main", 15, None),
    ("Caused by ValueError: invalid literal for int() with base 10: 'x'", 0, "label"),
    ("parse", 5, None), ("load", 9, None),
]


def test_chained_exceptions_are_frames_of_the_call_stack(launch, write, backend):
    path = write("chained.py", CHAINED)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.request("setExceptionBreakpoints", {"filters": ["uncaught"]})
    debuggee.request("configurationDone")
    stopped = debuggee.stopped("exception")
    body = debuggee.request("stackTrace", {"threadId": stopped["threadId"]})
    frames = body["stackFrames"]
    assert [(f["name"], f["line"], f.get("presentationHint")) for f in frames] == CHAINED_STACK
    assert body["totalFrames"] == len(CHAINED_STACK)
    # A page of it, as VS Code asks for the rest after the first frame.
    page = debuggee.request("stackTrace", {"threadId": stopped["threadId"], "startFrame": 6,
                                           "levels": 2})
    assert [f["name"] for f in page["stackFrames"]] == ["parse", "load"]
    # A chained frame can be selected: its locals are as the exception left them.
    parse_frame = next(f for f in frames if f["name"] == "parse")
    assert debuggee.locals_of(parse_frame["id"])["text"]["value"] == "'x'"
    info = debuggee.request("exceptionInfo", {"threadId": stopped["threadId"]})
    trace = info["details"]["stackTrace"]
    # The debugger's own frames, which ran the program, are not in the text.
    assert "dapperdbg" not in trace and "exec(" not in trace, trace
    assert "The above exception was the direct cause" in trace
    assert [inner["typeName"] for inner in info["details"]["innerException"]] == \
        ["ConfigError", "ValueError"]
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(1)


def test_uncaught_in_a_thread_stops_on_that_thread(launch, write, backend):
    path = write("threaded.py", """
        import threading
        def work():
            items = [1, 2]
            return items[5]
        thread = threading.Thread(target=work, name="worker")
        thread.start()
        thread.join()
        print("main goes on")
    """)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.request("setExceptionBreakpoints", {"filters": ["uncaught"]})
    debuggee.request("configurationDone")
    stopped = debuggee.stopped("exception")
    assert stopped["threadId"] != 1
    assert stopped["text"] == "IndexError"
    frame = debuggee.top_frame(stopped["threadId"])
    assert (frame["name"], frame["line"]) == ("work", 4)
    assert debuggee.locals_of(frame["id"])["items"]["value"] == "[1, 2]"
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)
    assert debuggee.stdout() == "main goes on\n"
    assert "IndexError: list index out of range" in debuggee.stderr()


def test_exception_info_of_a_thread_not_stopped_by_an_exception(launch, write, backend):
    path = write("plain.py", "x = 1\ny = 2\n")
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.set_breakpoints(path, [2])
    debuggee.request("configurationDone")
    debuggee.stopped()
    response = debuggee.request_raw("exceptionInfo", {"threadId": 1})
    assert not response["success"]
    assert "did not stop because of an exception" in response["message"]
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


@pytest.mark.parametrize("arguments, message", [
    ({"filters": ["everything"]}, "Unknown exception filter 'everything'"),
    ({"filters": "raised"}, "'filters' must be an array"),
    ({"filterOptions": [{"filterId": "raised", "condition": "Value Error"}]},
     "Invalid exception filter condition"),
    ({"filterOptions": [{"filterId": "raised", "condition": 3}]}, "must be a string"),
    ({"filterOptions": ["raised"]}, "must be an object"),
])
def test_bad_filters_are_refused(arguments, message):
    with pytest.raises(FilterError, match=message):
        parse_filters(arguments)


@pytest.mark.parametrize("text, names", [
    ("", ()),
    ("ValueError", ("ValueError",)),
    (" ValueError ,KeyError ", ("ValueError", "KeyError")),
    ("json.JSONDecodeError", ("json.JSONDecodeError",)),
])
def test_type_names(text, names):
    assert parse_type_names(text) == names


@pytest.mark.parametrize("exception_type, names, matches", [
    (ValueError, ("ValueError",), True),
    (KeyError, ("LookupError",), True),
    (KeyError, ("ValueError",), False),
    (json.JSONDecodeError, ("json.decoder.JSONDecodeError",), True),
    (json.JSONDecodeError, ("JSONDecodeError",), True),
    (json.JSONDecodeError, ("ValueError",), True),
    (OSError, ("IOError",), False),  # an alias has OSError's name
])
def test_type_matching(exception_type, names, matches):
    assert type_matches(exception_type, names) is matches


def test_generator_signals_stop_only_when_named():
    filters = parse_filters({"filters": ["raised"]})
    assert not filters.applies("raised", StopIteration())
    assert not filters.applies("raised", GeneratorExit())
    named = parse_filters({"filterOptions": [{"filterId": "raised",
                                              "condition": "StopIteration"}]})
    assert named.applies("raised", StopIteration())


EVENTS_PROGRAM = """
import sys
events = sys.monitoring.events
print(bool(sys.monitoring.get_events(sys.monitoring.DEBUGGER_ID)
           & (events.RAISE | events.PY_UNWIND)))
"""


@pytest.mark.skipif(sys.version_info < (3, 12), reason="sys.monitoring is 3.12+")
@pytest.mark.parametrize("filters, watched", [
    ([], False),
    (["uncaught"], False),  # needs no events: it is caught where the program ends
    (["raised"], True),
    (["userUnhandled"], True),
])
def test_exception_events_only_while_a_filter_needs_them(launch, write, filters, watched):
    path = write("events.py", EVENTS_PROGRAM)
    debuggee = launch("--program", path, tracer="monitoring")
    debuggee.configure()
    debuggee.request("setExceptionBreakpoints", {"filters": filters})
    debuggee.request("configurationDone")
    debuggee.finish(0)
    assert debuggee.stdout() == f"{watched}\n"


@pytest.mark.parametrize("just_my_code, frame_name", [(True, "<module>"), (False, "decode")])
def test_raised_in_the_library_stops_where_it_reaches_user_code(launch, write, backend,
                                                                just_my_code, frame_name):
    path = write("library.py", """
        import json
        try:
            json.loads("{")
        except ValueError:
            pass
    """)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure({"justMyCode": just_my_code})
    # The filter from line 2 on: importing json raises (and catches) exceptions of its own.
    debuggee.set_breakpoints(path, [2])
    debuggee.request("configurationDone")
    stopped = debuggee.stopped("breakpoint")
    debuggee.request("setExceptionBreakpoints", {"filters": ["raised"]})
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    stopped = debuggee.stopped("exception")
    assert stopped["text"] == "json.decoder.JSONDecodeError"
    frame = debuggee.top_frame(stopped["threadId"])
    assert frame["name"].endswith(frame_name)
    if just_my_code:
        assert frame["line"] == 3
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)


@pytest.mark.parametrize("python_options", [(), ("-E",)])
@pytest.mark.parametrize("kind", ["--code", "--module"])
def test_the_launchers_own_end_is_no_exception_of_the_program(
        launch, write, backend, kind, python_options):
    # A module or code target ignoring PYTHONPATH (-E) starts through ``-c`` code, whose
    # frame is ``<string>``: the SystemExit that ends the launcher crosses it, and is not
    # the program's. The program's own exceptions still stop.
    write("target.py", 'try:\n    raise KeyError("own")\nexcept KeyError:\n    pass\n')
    target = "target" if kind == "--module" else 'exec(open("target.py").read())'
    debuggee = launch(kind, target, tracer=backend, python_options=python_options)
    debuggee.configure()
    debuggee.request("setExceptionBreakpoints", {"filters": ["raised", "uncaught"]})
    debuggee.request("configurationDone")
    stopped = debuggee.stopped("exception")
    assert stopped["text"] == "KeyError"
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)
