"""What the child-process support loads, and when: nothing a debuggee's start does not
need; each hook, and what plans a command, at its first use; and, once the program
imports a module that a hook patches, nothing its plain import would not have loaded."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from test_children_hooks import ChildListener, configure_child, start_root

from conftest import TIMEOUT


@pytest.fixture
def listener():
    child_listener = ChildListener()
    yield child_listener
    child_listener.close()


def _output_with_one_child(launch, listener, parent, has_child=True) -> list[str]:
    """The lines ``parent`` prints under the debugger, its one child (when it starts one)
    attached and configured."""
    root = start_root(launch, parent, listener)
    if has_child:
        root.wait_event("dapper/childProcess")
        child = listener.accept()
        child.next()
        configure_child(child)
    root.finish(0)
    return root.stdout().splitlines()


# Most debuggees start no command: what plans one (the command and shell parsers with
# it) is imported by the first command, not by every start; before a fork, in the
# parent, since a module that another thread of the parent was importing at the fork
# would stay locked in the child, which may exec at once.
PLANNING_CASES = [
    pytest.param("""
print("at start", planned(), flush=True)
subprocess.call([sys.executable, "-c", "pass"])
print("after a command", planned(), flush=True)
""", ["at start False", "after a command True"], id="a command"),
    pytest.param("""
print("at start", planned(), flush=True)
pid = os.fork()
if pid == 0:
    print("child", planned(), flush=True)
    os._exit(0)
os.waitpid(pid, 0)
print("parent", planned(), flush=True)
""", ["at start False", "child True", "parent True"], id="a fork",
                 marks=pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")),
]


@pytest.mark.parametrize(("program", "expected"), PLANNING_CASES)
def test_what_plans_a_command_is_imported_by_the_first_command_or_fork(
        launch, write, listener, program, expected):
    parent = write("parent.py", """
import os, subprocess, sys

def planned():
    return "dapperdbg.children.planning" in sys.modules
""" + program)
    assert _output_with_one_child(launch, listener, parent) == expected


# The hooks themselves wait for their first use (children/stand_ins.py): a debuggee that
# starts no child never imports them.
HOOKS_LOADED = """
import os, sys

def hooks():
    return [name for name in ("fork", "multiprocessing_hooks", "os_hooks", "popen_hook",
                              "watcher") if "dapperdbg.children." + name in sys.modules]
"""

HOOKS_CASES = [
    pytest.param("""
print("at start", hooks(), flush=True)
import subprocess
print("subprocess", hooks(), flush=True)
import multiprocessing
print("multiprocessing", hooks(), flush=True)
os.system("exit 0")
print("a shell command", hooks(), flush=True)
""", ["at start []", "subprocess ['popen_hook']",
      "multiprocessing ['multiprocessing_hooks', 'popen_hook']",
      "a shell command ['multiprocessing_hooks', 'os_hooks', 'popen_hook']"], False,
                 id="imports and a command that is no Python",
                 marks=pytest.mark.skipif(os.name == "nt", reason="os.system is left alone")),
    pytest.param("""
import subprocess
subprocess.call([sys.executable, "-c", "pass"])
# Where subprocess starts it with os.posix_spawn (3.13+ on Linux), that hook is loaded too.
print("a child", [name for name in hooks() if name != "os_hooks"], flush=True)
""", ["a child ['popen_hook', 'watcher']"], True, id="a Python child"),
    pytest.param("""
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
print("a fork", hooks(), flush=True)
""", ["a fork ['fork', 'watcher']"], True, id="a fork",
                 marks=pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")),
]


@pytest.mark.parametrize(("program", "expected", "has_child"), HOOKS_CASES)
def test_the_hooks_are_imported_at_their_first_use(launch, write, listener, program,
                                                    expected, has_child):
    parent = write("parent.py", HOOKS_LOADED + program)
    assert _output_with_one_child(launch, listener, parent, has_child) == expected


# Modules a debuggee's start does not need: the hooks patch them once the program
# imports them (each costs every debuggee milliseconds before its first line).
NOT_IMPORTED_AT_START = ["platform", "zipfile", "shutil", "subprocess", "multiprocessing",
                         "multiprocessing.util", "tempfile", "bz2", "lzma"]


def test_a_debuggee_starts_without_modules_it_does_not_need(launch, write, listener):
    program = write("modules.py", f"""
        import sys
        print(sorted(name for name in {NOT_IMPORTED_AT_START!r} if name in sys.modules))
    """)
    root = start_root(launch, program, listener)
    root.finish(0)
    assert root.stdout().strip() == "[]"


IMPORTS_HOOKED = """
import sys
before = set(sys.modules)
import {module}
print(" ".join(sorted(set(sys.modules) - before)))
"""


@pytest.mark.parametrize("module", ["subprocess", "multiprocessing", "concurrent.futures"])
def test_hooking_a_module_imports_nothing_its_plain_import_does_not(launch, write, listener,
                                                                    module):
    # Every debugged process that imports subprocess (test runners' workers, servers'
    # reloaders) gets the Popen hook: inspect, with ast, dis and tokenize, would cost each
    # 9-12 ms of CPU.
    program = write("imports_hooked.py", IMPORTS_HOOKED.format(module=module))
    plain = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                           timeout=TIMEOUT, check=True).stdout.split()
    root = start_root(launch, program, listener)
    root.finish(0)
    debugged = root.stdout().split()
    assert [name for name in debugged
            if name not in plain and not name.startswith("dapperdbg")] == []
