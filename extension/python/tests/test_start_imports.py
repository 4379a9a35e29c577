"""What a child that runs dormant loads for what its configuration asks, and leaves
unloaded otherwise: each case runs a fresh interpreter that imports the modules a
dormant child's start imports (the launcher's ``_run`` and ``DormantChild.start``), does
what the case says, and reports which of the modules below are loaded. The start bundle
is not involved: its phases' orders grow to what every start of an installation has
loaded (common/start_bundle.py), so what a start needs is seen here without it."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys

import pytest

from dapperdbg.instrumentation.restartable import compile_restartable

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

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
                            cwd=PACKAGE_ROOT, timeout=60,
                            env={**os.environ, "PYTHONPATH": PACKAGE_ROOT})
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
                            cwd=PACKAGE_ROOT, timeout=60,
                            env={**os.environ, "PYTHONPATH": PACKAGE_ROOT})
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().strip() == "the program's | False"
