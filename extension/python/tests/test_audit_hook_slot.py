"""The exec watch's audit hook is taken out of the interpreter once nobody observes
(inspection/audit_hook_slot.py), where Python 3.9-3.11 keep it in a field that can be
emptied, and only when it is the only hook; it comes back when someone observes again,
and goes when a detach drops the breakpoints it watched for.
Each case runs in a process of its own (a hook added stays for the process), and tells
whether the interpreter still calls the hook by what a spy put in its place records."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import PACKAGE_DIR

PROGRAM = """
import json
import sys

from dapperdbg.inspection import exec_audit

if sys.argv[1] == "own hook first":
    sys.addaudithook(lambda event, arguments: None)
calls = []
exec_audit.observe_exec(calls.append)
exec("pass")
observed = len(calls)
exec_audit.observe_exec(None)
# A spy where the observer was: the hook, if the interpreter still calls it, hands it
# every code object exec runs.
exec_audit._exec_observer = calls.append
exec("pass")
after_release = len(calls) - observed
exec_audit.observe_exec(calls.append)
before = len(calls)
exec("pass")
print(json.dumps({"observed": observed, "after_release": after_release,
                  "observed_again": len(calls) - before}))
"""

# Where the field's place is known (64-bit Linux builds, audit_hook_slot._OFFSETS).
TAKEN_OUT_HERE = sys.version_info[:2] in ((3, 9), (3, 10), (3, 11)) and sys.platform == "linux"


def run(case: str) -> dict:
    result = subprocess.run([sys.executable, "-c", PROGRAM, case], cwd=PACKAGE_DIR,
                            capture_output=True, text=True, timeout=60, check=True)
    return json.loads(result.stdout)


def test_the_only_hook_goes_once_nobody_observes_and_comes_back():
    counts = run("alone")
    assert counts["observed"] == 1
    assert counts["after_release"] == (0 if TAKEN_OUT_HERE else 1)
    assert counts["observed_again"] == 1


def test_a_hook_of_the_program_keeps_the_debuggers_in():
    assert run("own hook first") == {"observed": 1, "after_release": 1, "observed_again": 1}


# Stops on line 3; once continued after the detach, reports whether the interpreter
# still calls the debugger's hook (a spy where its observer was).
DETACHED_PROGRAM = """
import sys
stop_here = 1
from dapperdbg.inspection import exec_audit
calls = []
exec_audit._exec_observer = calls.append
exec("pass")
print("the hook is called" if calls else "the hook is out")
"""


def test_a_detach_takes_the_exec_watchs_hook_out(launch, write):
    """On the settrace backend, a breakpoint in a file not loaded yet has the exec watch
    on; a detach drops the breakpoints, and the watch's hook with them."""
    program = write("main.py", DETACHED_PROGRAM)
    never_loaded = write("elsewhere.py", "def f():\n    return 1\n")
    debuggee = launch("--program", program, tracer="settrace")
    debuggee.configure({"program": str(program)})
    debuggee.set_breakpoints(program, [3])
    debuggee.set_breakpoints(never_loaded, [2])
    debuggee.request("configurationDone")
    debuggee.stopped()
    debuggee.send_request("dapper/detach")  # not answered
    debuggee.disconnect()
    assert debuggee.wait_exit() == 0
    expected = "the hook is out" if TAKEN_OUT_HERE else "the hook is called"
    assert debuggee.stdout() == expected + "\n"
