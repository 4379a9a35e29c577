"""What the launcher's start made is frozen out of the collector's way before the program
runs (common/start_freeze.py): the program's own objects are collected as without the
debugger, at exit too, and the debugger still finds the functions of modules imported
before the program when a breakpoint arrives for them later."""

from __future__ import annotations

import encodings
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import TIMEOUT, first_body_line

# A module of the standard library that every process imports from its source file before
# the launcher runs (the interpreter itself does, as it starts), and a function of it that
# the program calls.
BEFORE = encodings
CALLED = encodings.normalize_encoding


@pytest.mark.parametrize("freezes", [False, True], ids=["plain", "program-freezes"])
def test_a_breakpoint_set_later_in_a_module_imported_before_the_program_is_hit(
        launch, write, backend, tmp_path, freezes):
    """The walk for the live functions undoes the start's freeze, unless the program
    froze objects of its own since: those stay frozen, as they would without the
    debugger."""
    program = write("main.py", f"""
        import encodings, gc, os, sys, time
        if {freezes}:
            gc.freeze()
        flag = sys.argv[1]
        print("waiting", flush=True)
        while not os.path.exists(flag):
            time.sleep(0.01)
        print("normalized", encodings.normalize_encoding("utf 8"))
        print("frozen", gc.get_freeze_count() > 0)
    """)
    flag = tmp_path / "go"
    debuggee = launch("--program", program, str(flag), tracer=backend)
    debuggee.configure({"program": str(program)})
    debuggee.request("configurationDone")
    deadline = time.monotonic() + TIMEOUT
    while "waiting" not in debuggee.stdout():
        assert time.monotonic() < deadline, "the program never started"
        time.sleep(0.01)
    line = first_body_line(CALLED)
    [breakpoint] = debuggee.set_breakpoints(BEFORE.__file__, [line])
    assert breakpoint["verified"]
    flag.write_text("")
    stopped = debuggee.stopped()
    assert stopped["hitBreakpointIds"] == [breakpoint["id"]]
    frame = debuggee.top_frame(stopped["threadId"])
    assert (frame["name"].split(".")[-1], frame["line"]) == ("normalize_encoding", line)
    debuggee.set_breakpoints(BEFORE.__file__, [])
    debuggee.request("continue", {"threadId": stopped["threadId"]})
    debuggee.finish(0)
    assert debuggee.stdout() == f"waiting\nnormalized utf_8\nfrozen {freezes}\n"


def test_breakpoints_set_before_the_program_leave_the_start_frozen(launch, write, backend):
    # Their copies go into the live functions of modules imported before the program
    # (encodings here) before the freeze, which then holds for the whole run.
    program = write("main.py", """
        import gc
        print(gc.get_freeze_count() > 0)
    """)
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program)})
    [breakpoint] = debuggee.set_breakpoints(
        BEFORE.__file__, [first_body_line(CALLED)])
    assert breakpoint["verified"]
    debuggee.request("configurationDone")
    debuggee.finish(0)
    assert debuggee.stdout() == "True\n"


# Cyclic garbage the program makes, while it runs and as the interpreter finalizes it at
# exit, is collected (and its finalizers run) as it is without the debugger.
GARBAGE = """
import gc

class Node:
    def __init__(self, name):
        self.name = name
        self.peer = self

    def __del__(self):
        print("finalized", self.name, flush=True)

Node("while running")
print("collected", gc.collect() > 0, flush=True)
kept = Node("at exit")
"""


def test_the_programs_cyclic_garbage_is_collected_while_it_runs_and_at_exit(
        launch, write, backend):
    program = write("main.py", GARBAGE)
    plain = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                           check=True, timeout=TIMEOUT).stdout
    assert plain == "finalized while running\ncollected True\nfinalized at exit\n"
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program)})
    debuggee.request("configurationDone")
    debuggee.finish(0)
    assert debuggee.stdout() == plain


WALK = """
import gc, sys
from dapperdbg.common import start_freeze
start_freeze.remember_interpreter_freeze()
target = {}
holder = [target]
found, complete = start_freeze.referrers_of(target)
print(complete, any(r is holder for r in found))
if sys.argv[1] == "program-freezes":
    gc.freeze()
    print(start_freeze.referrers_of(target)[1])
"""


@pytest.mark.parametrize("freezes", [False, True], ids=["plain", "program-freezes"])
def test_what_the_interpreter_froze_itself_leaves_the_walk_complete(tmp_path, freezes):
    # 3.12 starts with objects frozen of its own: the walk for live functions must not
    # take them for a freeze of the program's, which makes it look further (its
    # namespaces' functions one by one) for every file with breakpoints.
    script = tmp_path / "walk.py"
    script.write_text(WALK)
    package = str(Path(__file__).resolve().parent.parent)
    result = subprocess.run(
        [sys.executable, str(script), "program-freezes" if freezes else "plain"],
        capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, "PYTHONPATH": package})
    assert result.returncode == 0, result.stderr
    assert result.stdout == ("True True\nFalse\n" if freezes else "True True\n")
