"""A breakpoint in a module that the instrumentation's compiler itself imports (``ast``
imports contextlib and enum). The session compiles such a file's copies before the
program runs unless they are kept in the cache; kept, the import takes them from there.
Gone from the cache by then (another process's writes dropped them), the import's own
compile would need the module that is being imported: the module then loads as compiled
plain, and the tracer takes its breakpoints, as for code compiled by someone else. The
program runs as it does plain, and the breakpoint stops."""

from __future__ import annotations

import contextlib

from conftest import first_body_line

FIRST = 'print("first")\n'
# The copies of contextlib, kept when the session began, are dropped from the cache
# before its import (without a module that imports contextlib).
PROGRAM = """\
import os

copies = [os.path.join(os.environ["DAPPER_CACHE_DIR"], folder)
          for folder in os.listdir(os.environ["DAPPER_CACHE_DIR"])
          if folder.startswith("copies-")]
for folder in copies:
    for entry in os.listdir(folder):
        os.remove(os.path.join(folder, entry))
import contextlib


@contextlib.contextmanager
def managed():
    yield 1


with managed() as value:
    print("value", value)
"""


def _run(launch, program, backend, cache, line, stops_once=False) -> tuple[str, list]:
    debuggee = launch("--program", program, tracer=backend, env={"DAPPER_CACHE_DIR": cache})
    debuggee.configure()
    [answered] = debuggee.set_breakpoints(contextlib.__file__, [line])
    assert answered["verified"]
    debuggee.request("configurationDone")
    stops = []
    if stops_once:
        stops.append(debuggee.stopped())
        debuggee.request("continue", {"threadId": stops[0]["threadId"]})
    debuggee.finish(0)
    return debuggee.stdout(), stops


def test_a_breakpoint_in_a_module_the_compiler_imports(launch, write, backend, tmp_path):
    line = first_body_line(contextlib._GeneratorContextManager.__exit__)
    cache = str(tmp_path / "cache")
    # A first process with the breakpoint keeps contextlib's copies in the cache.
    assert "first" in _run(launch, write("first.py", FIRST), backend, cache, line)[0]
    output, stops = _run(launch, write("main.py", PROGRAM), backend, cache, line,
                         stops_once=True)
    assert "value 1" in output, output
    assert stops[0]["reason"] == "breakpoint"
