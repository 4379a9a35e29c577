"""A debugged process starts with as little imported as it can (every child of a test
suite pays for each module at start and again at exit): before the
program's first line, a session without breakpoints has imported none of the standard
library's heavier modules that the program would not have imported itself. What a stop,
a breakpoint or a child process needs is imported when it is needed."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys

import pytest

from conftest import PACKAGE_DIR
from dapperdbg.instrumentation.restartable import compile_restartable

PROGRAM = """
import sys
print(" ".join(sorted(sys.modules)))
"""

# Each costs from a few hundred microseconds to several milliseconds to import and again
# to tear down at exit, or pulls in modules that do (re and enum, for instance).
HEAVY = ["ast", "bisect", "copy", "ctypes", "dis", "enum", "importlib", "inspect", "linecache",
         "opcode", "re", "selectors", "shlex", "signal", "socket", "struct", "sysconfig",
         "tokenize", "traceback", "typing"]
# The debugger never imports threading (common/program_threading.py): about 5 ms of a
# start before 3.13, where it imports functools and collections, and the live
# instrumentation of its file when the session has a breakpoint there. Nor what imports
# those (contextlib), nor weakref, nor operator.py; nor the shared libraries of _struct
# and select, which loading costs a few hundred microseconds each; nor types.py (about
# 0.25 ms: the types the debugger tests objects against are common/interpreter_types.py's).
LIGHT = ["_struct", "_weakrefset", "collections", "contextlib", "functools", "itertools",
         "operator", "select", "threading", "types", "weakref"]
# Nor, without line breakpoints, __future__ (about 0.2 ms): the package's modules import it
# only as the compiler's flag in the start bundle (common/start_bundle.py); a session that
# instruments imports loads it first (instrumentation/importer.py says why).
REFUSED_BEFORE_PROGRAM = [*HEAVY, *LIGHT, "__future__"]


def _loaded_plain(path) -> set[str]:
    output = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                            check=True).stdout
    return set(output.split())


def _debugged_modules(launch, program, backend, env=None, breakpoints=(),
                      transport="unix") -> set[str]:
    debuggee = launch("--program", program, tracer=backend, env=env, transport=transport)
    debuggee.configure({"program": str(program)})
    for path, line in breakpoints:
        debuggee.set_breakpoints(path, [line], condition="__name__ == 'never'")
    debuggee.request("setExceptionBreakpoints", {"filters": ["uncaught"]})
    debuggee.request("configurationDone")
    debuggee.finish(0)
    return set(debuggee.stdout().split())


def test_a_session_without_breakpoints_imports_no_heavy_module_before_the_program(
        launch, write, backend, tmp_path):
    # The program's restartable compile (instrumentation/restart_loading.py) parses it the
    # first time (with the interpreter's _ast: ast.py imports re, enum and functools);
    # from then on it comes from the cache, as a plain run's .pyc does.
    program = write("main.py", PROGRAM)
    plain = _loaded_plain(program)
    env = {"DAPPER_CACHE_DIR": str(tmp_path / "cache")}
    first = _debugged_modules(launch, program, backend, env)
    assert "_ast" in first and "ast" not in first
    debugged = _debugged_modules(launch, program, backend, env)
    extra = [name for name in REFUSED_BEFORE_PROGRAM if name in debugged and name not in plain]
    assert extra == []


def test_breakpoints_in_loaded_and_unloaded_files_import_no_threading_before_the_program(
        launch, write, backend, tmp_path):
    # What every child of a session does with the session's breakpoints: conditions, in
    # the program, in a standard-library file loaded before it (live code) and in one
    # it never imports.
    import posixpath
    import textwrap

    program = write("main.py", PROGRAM)
    plain = _loaded_plain(program)
    env = {"DAPPER_CACHE_DIR": str(tmp_path / "cache")}
    breakpoints = [(program, 2),
                   (posixpath.__file__, _def_line(posixpath.__file__, "join") + 1),
                   (textwrap.__file__, _def_line(textwrap.__file__, "dedent") + 1)]
    _debugged_modules(launch, program, backend, env, breakpoints)  # Fills the caches.
    debugged = _debugged_modules(launch, program, backend, env, breakpoints)
    assert [name for name in LIGHT if name in debugged and name not in plain] == []


# Made at a session's first stop, or its first request about a stopped thread or a
# source: a session that never stops never loads them (the debugger's own modules, each
# some tens of kilobytes of bytecode for every process to load at its start).
STOP_TIME = ["dapperdbg.inspection.sources", "dapperdbg.session.stops"]


@pytest.mark.parametrize("with_breakpoints", [False, True], ids=["none", "never hit"])
def test_a_session_that_never_stops_makes_no_stop_machinery(launch, write, backend, tmp_path,
                                                             with_breakpoints):
    import textwrap

    program = write("main.py", PROGRAM)
    env = {"DAPPER_CACHE_DIR": str(tmp_path / "cache")}
    breakpoints = [(program, 2), (textwrap.__file__, _def_line(textwrap.__file__, "dedent") + 1)]
    debugged = _debugged_modules(launch, program, backend, env,
                                 breakpoints if with_breakpoints else ())
    assert [name for name in STOP_TIME if name in debugged] == []


def test_a_session_over_tcp_imports_what_one_over_a_unix_socket_does(launch, write, backend,
                                                                    tmp_path):
    # Windows has the engine listen on TCP. Resolving a host given as text runs the idna
    # codec, which imports re, enum, stringprep and unicodedata: 8-11 ms of CPU a start.
    program = write("main.py", PROGRAM)
    env = {"DAPPER_CACHE_DIR": str(tmp_path / "cache")}
    _debugged_modules(launch, program, backend, env)  # Fills the caches.
    over_unix = _debugged_modules(launch, program, backend, env)
    over_tcp = _debugged_modules(launch, program, backend, env, transport="tcp")
    assert sorted(over_tcp - over_unix) == []


def _def_line(path: str, function: str) -> int:
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            if line.startswith(f"def {function}("):
                return number
    raise AssertionError(f"no def {function} in {path}")


# What the launcher imports before its hello (launch.py's own imports, and the
# connection's, which main() imports before it sends the hello) is on every child's
# critical path: the engine asks the client for the child's session only once the hello
# arrives.
BEFORE_HELLO_REFUSED = ["collections", "contextlib", "functools", "threading", *HEAVY]


def test_the_launcher_says_hello_before_importing_threading_and_what_it_imports():
    listing = "import sys; print(' '.join(sys.modules))"
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_DIR)}
    plain = subprocess.run([sys.executable, "-c", listing], capture_output=True, text=True,
                           check=True, env=env).stdout.split()
    launcher = subprocess.run(
        [sys.executable, "-c", f"import dapperdbg.launcher.launch, dapperdbg.ipc.dial; {listing}"],
        capture_output=True, text=True, check=True, env=env).stdout.split()
    assert [name for name in BEFORE_HELLO_REFUSED
            if name in launcher and name not in plain] == []


# Counts the builtin compile() calls of the code below (the audit event every one raises).
COUNTING_SITE = """
import sys
compiled = []

def _count(event, arguments):
    source = arguments[0]
    if event == "compile" and isinstance(source, (str, bytes)) and "COMPILED" in str(source):
        compiled.append(arguments[1])

sys.addaudithook(_count)
"""


# Code for `python -c`, and whether the debugger compiles it in each of two runs in a
# row. A process's first compile() call makes the interpreter's syntax tree types (1-1.5
# ms), which a plain `python -c` never does (every multiprocessing child started by spawn
# runs such code): from the second start on, the code comes from the debugger's cache.
# Unless compiling it warns: plain python warns on every run, and so must its debugged run.
CODE_CASES = [
    pytest.param("import sitecustomize; COMPILED = 1; print(bool(sitecustomize.compiled))",
                 ["True", "False"], id="quiet"),
    pytest.param("import sitecustomize; COMPILED = 1 is 1; print(bool(sitecustomize.compiled))",
                 ["True", "True"], id="warning"),
]


@pytest.mark.parametrize(("code", "compiles"), CODE_CASES)
def test_code_run_by_python_c_comes_from_the_cache_once_compiled(launch, tmp_path, code,
                                                                compiles):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(COUNTING_SITE)
    env = {"PYTHONPATH": os.pathsep.join([str(PACKAGE_DIR), str(site)]),
           "DAPPER_CACHE_DIR": str(tmp_path / "cache")}
    plain = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(site)}, check=True)
    for expected in compiles:
        debuggee = launch("--code", code, env=env)
        debuggee.configure()
        debuggee.request("configurationDone")
        debuggee.finish(0)
        assert debuggee.stdout() == f"{expected}\n", debuggee.stderr()
        assert ("SyntaxWarning" in debuggee.stderr()) == ("SyntaxWarning" in plain.stderr)


# What a child that runs dormant loads for what its configuration asks, and leaves
# unloaded otherwise: each case runs a fresh interpreter that imports the modules a
# dormant child's start imports (the launcher's ``_run`` and ``DormantChild.start``), does
# what the case says, and reports which of the modules below are loaded. The start bundle
# is not involved: its phases' orders grow to what every start of an installation has
# loaded (common/start_bundle.py), so what a start needs is seen here without it.
WATCHED = ("instrumentation.restarts", "inspection.output_capture", "common.library_rules",
           "session.inheritance", "common.errors")

START = """
from dapperdbg import children
from dapperdbg.children import fork_safety, stand_ins
from dapperdbg.common import library_code, program_threading
from dapperdbg.common.module_files import program_waits
from dapperdbg.instrumentation import restart_contract, restart_loading, switches, user_files
from dapperdbg.ipc.connection import Connection
from dapperdbg.session import program
from dapperdbg.session.dormant import DormantChild
"""

# name: (what the case does after the start's imports, the modules of WATCHED loaded)
CASES = {
    "the start's imports": ("", []),
    "a console the host reads: no output tees": (
        "DormantChild._capture_output(child, {'console': 'internalConsole'})", []),
    "a terminal console: the output tees": (
        "DormantChild._capture_output(child, {'console': 'integratedTerminal'})",
        ["inspection.output_capture"]),
    "no rules": ("library_code.set_rules(None); library_code.set_rules([])", []),
    "justMyCode rules": (
        "library_code.set_rules([{'path': '/nowhere/**', 'include': False}])",
        ["common.library_rules"]),
    "the package made callable for restartable code": (
        "restart_contract.install_restart_exception()", []),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_dormant_start_loads_what_it_uses(case):
    action, loaded = CASES[case]
    code = START + f"""
import json, sys
child = DormantChild.__new__(DormantChild)
child.connection = None
{action}
print(json.dumps(sorted(name for name in {WATCHED!r} if "dapperdbg." + name in sys.modules)))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=str(PACKAGE_DIR), timeout=60,
                            env={**os.environ, "PYTHONPATH": str(PACKAGE_DIR)})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == loaded


def test_a_handler_meets_a_generator_exit_before_the_restart_machinery_is_loaded():
    """Restartable code whose handler meets a GeneratorExit of the program's, in a process
    where nothing has loaded the restart machinery (a dormant child, whose modules come
    compiled from the code cache): the exception goes on as it does plain, and the
    machinery stays unloaded."""
    source = b"""
def leaves():
    raise GeneratorExit("the program's")

def catches():
    try:
        leaves()
    except GeneratorExit as error:
        return str(error)
"""
    compiled = marshal.dumps(compile_restartable(source, "<restartable>"))
    code = """
import marshal, sys
from dapperdbg.instrumentation.restart_contract import install_restart_exception
install_restart_exception()
namespace = {}
exec(marshal.loads(sys.stdin.buffer.read()), namespace)
print(namespace["catches"](), "|", "dapperdbg.instrumentation.restarts" in sys.modules)
"""
    result = subprocess.run([sys.executable, "-c", code], input=compiled, capture_output=True,
                            cwd=str(PACKAGE_DIR), timeout=60,
                            env={**os.environ, "PYTHONPATH": str(PACKAGE_DIR)})
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().strip() == "the program's | False"
