"""breakpointLocations, gotoTargets/goto, thread events, justMyCode and the failing
condition reported once, on every tracer backend."""

from __future__ import annotations

import pytest

PROGRAM = """
def count(limit):
    total = 0

    for index in range(limit):
        total += index
    return total

# A comment.
value = count(3)
value = value + 100
print(value)
"""


def start(launch, write, backend, lines=(), launch_config=None, program=PROGRAM):
    path = write("program.py", program)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure(launch_config)
    if lines:
        debuggee.set_breakpoints(path, list(lines))
    debuggee.request("configurationDone")
    return debuggee, path


@pytest.mark.parametrize("line, end_line, expected", [
    (1, None, [1]),
    (3, None, []),
    (1, 12, [1, 2, 4, 5, 6, 9, 10, 11]),
    (7, 9, [9]),
    (30, 40, []),
])
def test_breakpoint_locations(launch, write, line, end_line, expected):
    path = write("program.py", PROGRAM)
    debuggee = launch("--program", path)
    debuggee.configure()
    arguments = {"source": {"path": str(path)}, "line": line}
    if end_line is not None:
        arguments["endLine"] = end_line
    body = debuggee.request("breakpointLocations", arguments)
    assert [location["line"] for location in body["breakpoints"]] == expected
    debuggee.request("configurationDone")
    debuggee.finish(0)


def test_breakpoint_locations_of_a_broken_file(launch, write):
    broken = write("broken.py", "def f(:\n")
    path = write("program.py", PROGRAM)
    debuggee = launch("--program", path)
    debuggee.configure()
    response = debuggee.request_raw("breakpointLocations",
                                    {"source": {"path": str(broken)}, "line": 1})
    assert not response["success"] and "does not compile" in response["message"]
    debuggee.request("configurationDone")
    debuggee.finish(0)


# (stopped at line, goto line, expected: the printed value, or an error fragment)
GOTO_CASES = {
    "back to run a line again": (10, 9, "103\n"),
    "forward to skip a line": (10, 11, "3\n"),
    "into a loop body is refused": (6, 5, "into"),
    "to a line of another function is refused": (10, 2, "not a line of <module>"),
}


@pytest.mark.parametrize("case", list(GOTO_CASES))
def test_goto(launch, write, backend, case):
    stop_line, target_line, expected = GOTO_CASES[case]
    debuggee, path = start(launch, write, backend, [stop_line])
    debuggee.stopped()
    targets = debuggee.request("gotoTargets", {"source": {"path": str(path)},
                                               "line": target_line})["targets"]
    assert [target["line"] for target in targets] == [target_line]
    debuggee.set_breakpoints(path, [])
    response = debuggee.request_raw("goto", {"threadId": 1, "targetId": targets[0]["id"]})
    if expected.endswith("\n"):
        assert response["success"], response
        stopped = debuggee.stopped("goto")
        assert debuggee.top_frame(stopped["threadId"])["line"] == target_line
        debuggee.request("continue", {"threadId": 1})
        debuggee.finish(0)
        assert debuggee.stdout() == expected
    else:
        assert not response["success"] and expected in response["message"], response
        # The thread is still stopped where it was and can go on.
        assert debuggee.top_frame(1)["line"] == stop_line
        debuggee.request("continue", {"threadId": 1})
        debuggee.finish(0)


def test_goto_targets_of_a_line_past_the_end(launch, write, backend):
    debuggee, path = start(launch, write, backend, [10])
    debuggee.stopped()
    body = debuggee.request("gotoTargets", {"source": {"path": str(path)}, "line": 99})
    assert body["targets"] == []
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_thread_events(launch, write, backend):
    program = """
        import threading
        def work():
            return 1
        for name in ("a", "b"):
            thread = threading.Thread(target=work, name=name)
            thread.start()
            thread.join()
    """
    debuggee, _ = start(launch, write, backend, program=program)
    debuggee.wait_event("dapper/exiting")
    debuggee.finish(0)
    events = [(e["body"]["reason"], e["body"]["threadId"]) for e in debuggee.events
              if e.get("event") == "thread"]
    assert events == [("started", 2), ("exited", 2), ("started", 3), ("exited", 3)]


LIBRARY_CALL = """
import json

def hook(pairs):
    return dict(pairs)

data = json.loads('{"a": 1}', object_pairs_hook=hook)
print(data)
"""


@pytest.mark.parametrize("just_my_code, expected_names", [
    # stepIn from the json.loads line: library code is skipped, the user's hook called
    # from inside it is where the step ends.
    (True, ["hook"]),
    # Without justMyCode the step ends in the library's own first line.
    (False, ["loads"]),
])
def test_just_my_code_stepping(launch, write, backend, just_my_code, expected_names):
    debuggee, _ = start(launch, write, backend, [6], {"justMyCode": just_my_code},
                        program=LIBRARY_CALL)
    debuggee.stopped()
    debuggee.request("stepIn", {"threadId": 1})
    debuggee.stopped("step")
    assert [debuggee.top_frame(1)["name"]] == expected_names
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_a_breakpoint_in_library_code_still_stops_with_just_my_code(launch, write, backend):
    import json.decoder

    decoder = json.decoder.__file__
    path = write("program.py", LIBRARY_CALL)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure({"justMyCode": True})
    with open(decoder, encoding="utf-8") as file:
        lines = [n for n, text in enumerate(file.read().splitlines(), 1)
                 if "def decode(self, s, _w=WHITESPACE.match):" in text]
    [breakpoint] = debuggee.set_breakpoints(decoder, [lines[0] + 1])
    assert breakpoint["verified"]
    debuggee.request("configurationDone")
    debuggee.stopped()
    assert debuggee.top_frame(1)["name"].endswith("decode")
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_a_failing_condition_is_reported_once(launch, write, backend):
    path = write("program.py", PROGRAM)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.request("setBreakpoints", {"source": {"path": str(path)},
                                        "breakpoints": [{"line": 5, "condition": "nope > 1"}]})
    debuggee.request("configurationDone")
    for _ in range(3):
        debuggee.stopped()
        debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    outputs = [e["body"]["output"] for e in debuggee.events
               if e.get("event") == "output" and e["body"].get("category") == "important"]
    assert len(outputs) == 1 and "NameError" in outputs[0]




def test_malformed_control_arguments_are_refused_and_change_nothing(launch, write, backend):
    path = write("program.py", PROGRAM)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    body = debuggee.request("setBreakpoints", {"source": {"path": str(path)},
                                               "breakpoints": [{"line": 0}, {"line": -5},
                                                               {"line": 10}]})
    zero, negative, good = body["breakpoints"]
    for refused, line in ((zero, 0), (negative, -5)):
        assert not refused["verified"] and refused["line"] == line, refused
        assert "not a line of the file" in refused["message"]
    assert good["verified"] and good["line"] == 10
    # A device is not read (it would never end): the breakpoint says why at once.
    body = debuggee.request("setBreakpoints", {"source": {"path": "/dev/zero"},
                                               "breakpoints": [{"line": 1}]})
    assert not body["breakpoints"][0]["verified"]
    assert "not a regular file" in body["breakpoints"][0]["message"], body
    debuggee.request("configurationDone")
    debuggee.stopped()
    for arguments in ({"threadId": "x"}, {}, {"threadId": True}):
        response = debuggee.request_raw("continue", arguments)
        assert not response["success"] and "'threadId' must be" in response["message"], response
    # Still stopped where it was.
    assert debuggee.top_frame(1)["line"] == 10
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
    assert debuggee.stdout() == "103\n"
