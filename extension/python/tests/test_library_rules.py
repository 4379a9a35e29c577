"""The launch configuration's ``rules``: which code is the user's under justMyCode, by
path glob or module, the first rule that matches deciding before the library folders;
as a table of verdicts, then through stepping and the call stack on every tracer."""

from __future__ import annotations

import json
import os

import pytest

from dapperdbg.common import library_code
from dapperdbg.common.paths import canonical_path

PROJECT = canonical_path(os.path.join(os.sep, "home", "user", "project"))


def project(*parts: str) -> str:
    return os.path.join(PROJECT, *parts)


@pytest.mark.parametrize("rules, path, library", [
    # No rules: the library folders decide.
    ([], project("app.py"), False),
    ([], json.__file__, True),
    # A folder covers what is in it, at any depth; a file matches itself.
    ([{"path": project("vendor"), "include": False}], project("vendor", "lib", "x.py"), True),
    ([{"path": project("vendor"), "include": False}], project("vendorish.py"), False),
    ([{"path": project("app.py"), "include": False}], project("app.py"), True),
    # Globs: * within one name, ** across folders.
    ([{"path": project("*", "generated_*.py"), "include": False}],
     project("pkg", "generated_models.py"), True),
    ([{"path": project("*", "generated_*.py"), "include": False}],
     project("pkg", "sub", "generated_models.py"), False),
    ([{"path": project("**", "migrations"), "include": False}],
     project("a", "b", "migrations", "0001.py"), True),
    ([{"path": project("a?c.py"), "include": False}], project("abc.py"), True),
    # include: true makes library code the user's.
    ([{"path": os.path.dirname(json.__file__), "include": True}], json.__file__, False),
    # Modules: the name and its submodules, found from sys.path.
    ([{"module": "json", "include": True}], json.__file__, False),
    ([{"module": "json", "include": True}], json.decoder.__file__, False),
    ([{"module": "js", "include": True}], json.__file__, True),
    ([{"module": "pytest", "include": True}], pytest.__file__, False),
    # The first rule that matches decides.
    ([{"module": "json.decoder", "include": False}, {"module": "json", "include": True}],
     json.decoder.__file__, True),
    ([{"module": "json", "include": True}, {"module": "json.decoder", "include": False}],
     json.decoder.__file__, False),
    # Malformed rules (the engine refuses them first) are skipped.
    ([{"path": project("app.py")}, "x", {"module": 3, "include": False}], project("app.py"),
     False),
])
def test_rules_decide_before_the_library_folders(rules, path, library):
    library_code.set_rules(rules)
    try:
        assert library_code.is_library_canonical(canonical_path(path)) is library
    finally:
        library_code.set_rules(None)


VENDORED = """
def work(callback):
    value = 1
    return callback(value)
"""

PROGRAM = """
import sys
sys.path.insert(0, "vendor")
import vendored

def hook(value):
    return value + 1

print(vendored.work(hook))
"""


@pytest.mark.parametrize("rules, first_step, hint", [
    # Without rules the vendored package is the user's: stepIn enters it.
    ([], "work", None),
    # Ruled out by path: stepIn goes through it to the user's callback, and its frame is
    # shown as library code.
    ([{"path": "{dir}/vendor", "include": False}], "hook", "subtle"),
    # Ruled out by module.
    ([{"module": "vendored", "include": False}], "hook", "subtle"),
])
def test_stepping_follows_the_rules(launch, write, backend, tmp_path, rules, first_step, hint):
    write("vendor/vendored.py", VENDORED)
    path = write("program.py", PROGRAM)
    debuggee = launch("--program", path, tracer=backend)
    rules = [{key: value.replace("{dir}", str(tmp_path)) if isinstance(value, str) else value
              for key, value in rule.items()} for rule in rules]
    debuggee.configure({"justMyCode": True, "rules": rules})
    debuggee.set_breakpoints(path, [8])
    debuggee.request("configurationDone")
    debuggee.stopped()
    debuggee.request("stepIn", {"threadId": 1})
    debuggee.stopped("step")
    assert debuggee.top_frame(1)["name"] == first_step
    if first_step == "hook":
        frames = debuggee.request("stackTrace", {"threadId": 1})["stackFrames"]
        work = next(frame for frame in frames if frame["name"] == "work")
        assert work.get("presentationHint") == hint
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)


def test_a_module_rule_makes_library_code_the_users(launch, write, backend):
    path = write("program.py", """
        import json
        data = json.loads('{"a": 1}')
        print(data)
    """)
    debuggee = launch("--program", path, tracer=backend)
    debuggee.configure({"justMyCode": True, "rules": [{"module": "json", "include": True}]})
    debuggee.set_breakpoints(path, [2])
    debuggee.request("configurationDone")
    debuggee.stopped()
    debuggee.request("stepIn", {"threadId": 1})
    debuggee.stopped("step")
    assert debuggee.top_frame(1)["name"] == "loads"
    debuggee.request("continue", {"threadId": 1})
    debuggee.finish(0)
