"""Scopes and nested variables over the wire."""

from __future__ import annotations

PROGRAM = """
class Node:
    def __init__(self):
        self.name = "leaf"
        self.children = [1, (2, 3)]

class Broken:
    def __repr__(self):
        raise ValueError("boom")

def inspect_me():
    data = {"numbers": list(range(250)), "node": Node(), 7: {"deep": {"er": True}}}
    broken = Broken()
    tags = {"only"}
    return data

inspect_me()
"""


def stop_in_inspect_me(launch, write, backend):
    path = write("vars.py", PROGRAM)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure()
    debuggee.set_breakpoints(path, [14])
    debuggee.request("configurationDone")
    debuggee.stopped()
    frame = debuggee.top_frame(1)
    return debuggee, debuggee.locals_of(frame["id"])


def test_nested_variables(launch, write, backend):
    debuggee, local_vars = stop_in_inspect_me(launch, write, backend)
    assert set(local_vars) == {"data", "broken", "tags"}
    assert local_vars["broken"]["value"] == "<repr raised ValueError: boom>"
    assert local_vars["broken"]["type"] == "Broken"
    # Any object expands (at least to its special members).
    assert local_vars["broken"]["variablesReference"] > 0
    assert local_vars["tags"]["indexedVariables"] == 1

    data = local_vars["data"]
    # A dict's items are indexed children named by their keys: paged like a list's.
    assert data["indexedVariables"] == 3 and data["variablesReference"] > 0
    assert "namedVariables" not in data
    entries = debuggee.variables(data["variablesReference"])
    assert list(entries) == ["'numbers'", "'node'", "7"]
    assert entries["'numbers'"]["indexedVariables"] == 250
    assert entries["'numbers'"]["evaluateName"] == "data['numbers']"

    node = debuggee.variables(entries["'node'"]["variablesReference"])
    assert node["name"]["value"] == "'leaf'"
    assert node["name"]["evaluateName"] == "data['node'].name"
    children = debuggee.variables(node["children"]["variablesReference"])
    assert children["1"]["value"] == "(2, 3)"
    pair = debuggee.variables(children["1"]["variablesReference"])
    assert {k: v["value"] for k, v in pair.items()} == {"0": "2", "1": "3"}
    assert pair["1"]["evaluateName"] == "data['node'].children[1][1]"

    deep = debuggee.variables(entries["7"]["variablesReference"])
    deeper = debuggee.variables(deep["'deep'"]["variablesReference"])
    assert deeper["'er'"]["value"] == "True"
    assert deeper["'er'"]["evaluateName"] == "data[7]['deep']['er']"

    page = debuggee.variables(entries["'numbers'"]["variablesReference"],
                              filter="indexed", start=100, count=3)
    assert {k: v["value"] for k, v in page.items()} == {"100": "100", "101": "101",
                                                        "102": "102"}
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_bad_variables_requests_fail_clearly(launch, write, backend):
    debuggee, _ = stop_in_inspect_me(launch, write, backend)
    for arguments, message in [
        ({"variablesReference": 9999}, "Unknown or expired variables reference"),
        ({"variablesReference": "x"}, "must be an integer"),
        ({"variablesReference": 1, "filter": "odd"}, "unknown variables filter"),
    ]:
        response = debuggee.request_raw("variables", arguments)
        assert not response["success"]
        assert message in response["message"]
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


LIBRARY_CALLER = """
import contextlib

@contextlib.contextmanager
def managed():
    value = 1
    yield value

with managed() as v:
    pass
"""


# justMyCode → whether the library frame (contextlib's __enter__) is marked subtle.
SUBTLE_CASES = {"justMyCode on": (True, "subtle"), "justMyCode off": (False, None)}


def test_library_frames_are_de_emphasised_with_just_my_code(launch, write, backend):
    for just_my_code, expected_hint in SUBTLE_CASES.values():
        path = write("managed.py", LIBRARY_CALLER)
        debuggee = launch("--program", path, tracer=backend)
        debuggee.configure({"justMyCode": just_my_code})
        debuggee.set_breakpoints(path, [5])
        debuggee.request("configurationDone")
        stopped = debuggee.stopped()
        frames = debuggee.request("stackTrace", {"threadId": stopped["threadId"]})["stackFrames"]
        names = [(frame["name"], frame.get("presentationHint")) for frame in frames]
        assert names[0] == ("managed", None), names
        assert ("contextlib" in frames[1]["source"]["path"]), frames[1]
        assert names[1][1] == expected_hint, names
        debuggee.request("continue", {"threadId": stopped["threadId"]})
        debuggee.finish(0)
