"""A debugged process starts with as little imported as it can (issue 18 item 8: every
child of a test suite pays for each module at start and again at exit): before the
program's first line, a session without breakpoints has imported none of the standard
library's heavier modules that the program would not have imported itself. What a stop,
a breakpoint or a child process needs is imported when it is needed."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import sys
print(" ".join(sorted(sys.modules)))
"""

# Each costs from a few hundred microseconds to several milliseconds to import and again
# to tear down at exit, or pulls in modules that do (re and enum, for instance).
HEAVY = ["ast", "bisect", "copy", "ctypes", "dis", "enum", "importlib", "inspect", "linecache",
         "opcode", "re", "selectors", "shlex", "signal", "socket", "struct", "sysconfig",
         "tokenize", "traceback", "typing"]


def _loaded_plain(path) -> set[str]:
    output = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                            check=True).stdout
    return set(output.split())


def test_a_session_without_breakpoints_imports_no_heavy_module_before_the_program(
        launch, write, backend):
    program = write("main.py", PROGRAM)
    plain = _loaded_plain(program)
    debuggee = launch("--program", program, tracer=backend)
    debuggee.configure({"program": str(program)})
    debuggee.request("setExceptionBreakpoints", {"filters": ["uncaught"]})
    debuggee.request("configurationDone")
    debuggee.finish(0)
    debugged = set(debuggee.stdout().split())
    extra = [name for name in HEAVY if name in debugged and name not in plain]
    assert extra == []
