"""Child processes, the pure parts: which commands are Python, how each form is read
and rewritten, shell=True lines, #! scripts, the child's environment."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from dapperdbg.children.commands import (
    _BOOTSTRAP,
    CODE,
    LAUNCHER_CODE,
    LAUNCHER_SCRIPT,
    MODULE,
    PROGRAM,
    NotAttachable,
    launcher_command,
    parse_python_arguments,
    python_name_verdict,
)
from dapperdbg.children.planning import NOT_PYTHON, plan_argv, plan_shell
from dapperdbg.children.shell import ComplexShellCommand, split_simple_command
from dapperdbg.children.state import PACKAGE_DIR, ChildHooks
from dapperdbg.session.link import SessionLink, format_address

# The launcher's script, in a package directory of /pkg.
SCRIPT = os.path.join("/pkg", "dapperdbg", "launcher", "__main__.py")

PY = sys.executable


@pytest.mark.parametrize("word, verdict", [
    ("python", None),
    ("python3", None),
    ("python3.12", None),
    ("python3.13t", None),
    ("/usr/local/bin/python3.11", None),
    ("pythonw.exe", None),
    ("Python3.EXE", None),
    ("python2", "python2 is Python 2, which Dapper cannot debug"),
    ("python2.7", "python2.7 is Python 2, which Dapper cannot debug"),
    ("python3.8", "python3.8 is older than Python 3.9, which Dapper needs"),
    ("bash", ""),
    ("pythonista", ""),
    ("mypython", ""),
    ("ipython", ""),
])
def test_python_names(word, verdict):
    assert python_name_verdict(word) == verdict


@pytest.mark.parametrize("words, kind, target, args, options, isolated", [
    (["script.py"], PROGRAM, "script.py", [], [], False),
    (["s.py", "-m", "x", "--", "-c"], PROGRAM, "s.py", ["-m", "x", "--", "-c"], [], False),
    (["-u", "script.py", "a"], PROGRAM, "script.py", ["a"], ["-u"], False),
    (["-uB", "-W", "ignore", "s.py"], PROGRAM, "s.py", [], ["-uB", "-W", "ignore"], False),
    (["-Wignore", "-Xdev", "s.py"], PROGRAM, "s.py", [], ["-Wignore", "-Xdev"], False),
    (["-X", "utf8", "s.py"], PROGRAM, "s.py", [], ["-X", "utf8"], False),
    (["--", "-weird.py", "x"], PROGRAM, "-weird.py", ["x"], [], False),
    (["-m", "pkg.mod", "a", "-b"], MODULE, "pkg.mod", ["a", "-b"], [], False),
    (["-mpkg", "a"], MODULE, "pkg", ["a"], [], False),
    (["-um", "pkg"], MODULE, "pkg", [], ["-u"], False),
    (["-c", "print(1)", "x"], CODE, "print(1)", ["x"], [], False),
    (["-cprint(1)"], CODE, "print(1)", [], [], False),
    (["-Ic", "pass"], CODE, "pass", [], ["-I"], True),
    (["-E", "-s", "s.py"], PROGRAM, "s.py", [], ["-E", "-s"], True),
    (["--check-hash-based-pycs", "always", "s.py"], PROGRAM, "s.py", [],
     ["--check-hash-based-pycs", "always"], False),
    (["-c", "spawn_main()", "--multiprocessing-fork"], CODE, "spawn_main()",
     ["--multiprocessing-fork"], [], False),
])
def test_python_command_lines_are_read_as_the_interpreter_reads_them(
        words, kind, target, args, options, isolated):
    command = parse_python_arguments([PY], words)
    assert (command.kind, command.target, command.args, command.options,
            command.ignores_environment) == (kind, target, args, options, isolated)


@pytest.mark.parametrize("words, reason", [
    ([], "it starts the interactive prompt (no program given)"),
    (["-u"], "it starts the interactive prompt (no program given)"),
    (["-"], "it reads its program from standard input"),
    (["-V"], "it only prints information (-V)"),
    (["-uh"], "it only prints information (-h)"),
    (["--version"], "it only prints information (--version)"),
    (["-c"], "the option -c has no value"),
    (["-W"], "the option -W has no value"),
    (["--frobnicate", "s.py"], "unknown interpreter option --frobnicate"),
])
def test_python_command_lines_that_cannot_run_under_the_launcher(words, reason):
    with pytest.raises(NotAttachable) as caught:
        parse_python_arguments([PY], words)
    assert str(caught.value) == reason


@pytest.mark.parametrize("words, expected", [
    (["-u", "s.py", "a", "--x"],
     [PY, "-u", SCRIPT, "--ipc", "unix:/l", "--session-id", "s1.2",
      "--program", "s.py", "--", "a", "--x"]),
    (["-m", "pkg"],
     [PY, "-m", "dapperdbg.launcher", "--ipc", "unix:/l", "--session-id", "s1.2",
      "--module", "pkg"]),
    (["-c", "print(1)", "--multiprocessing-fork"],
     [PY, "-c", LAUNCHER_CODE, "--ipc", "unix:/l", "--session-id", "s1.2",
      "--code", "print(1)", "--", "--multiprocessing-fork"]),
])
def test_rewriting_puts_the_launcher_between_options_and_target(words, expected):
    command = parse_python_arguments([PY], words)
    assert launcher_command(command, "unix:/l", "s1.2", "/pkg") == expected


def test_an_interpreter_that_ignores_pythonpath_gets_the_launchers_script_for_a_program():
    # The script finds its package by its own path where PYTHONPATH is ignored.
    command = parse_python_arguments([PY], ["-I", "s.py"])
    rewritten = launcher_command(command, "tcp:127.0.0.1:9", "s1.1", "/pkg dir")
    assert rewritten == [PY, "-I", SCRIPT.replace("/pkg", "/pkg dir"), "--ipc",
                         "tcp:127.0.0.1:9", "--session-id", "s1.1", "--program", "s.py"]


@pytest.mark.parametrize("words", [["-I", "-m", "pkg"], ["-E", "-c", "pass"]])
def test_an_interpreter_that_ignores_pythonpath_gets_the_package_by_hand_for_the_rest(words):
    # Not the script: Python flushes stdout and stderr after a script, not after -m or -c.
    command = parse_python_arguments([PY], words)
    rewritten = launcher_command(command, "tcp:127.0.0.1:9", "s1.1", "/pkg dir")
    assert rewritten[:3] == [PY, words[0], "-c"]
    assert "sys.path.insert(0, '/pkg dir')" in rewritten[3]
    assert rewritten[4:] == ["--ipc", "tcp:127.0.0.1:9", "--session-id", "s1.1",
                             f"--{command.kind}", words[2]]


@pytest.mark.parametrize("line, assignments, words", [
    ("python3 s.py a", [], ["python3", "s.py", "a"]),
    ("  python3   's p.py'  \"x y\" ", [], ["python3", "s p.py", "x y"]),
    ("A=1 B='2 3' python3 s.py", ["A=1", "B=2 3"], ["python3", "s.py"]),
    ("exec python3 s.py", ["exec"], ["python3", "s.py"]),
    (r"python3 a\ b.py \"q\"", [], ["python3", "a b.py", '"q"']),
    ('python3 -c "print(\\"hi\\")"', [], ["python3", "-c", 'print("hi")']),
    ("python3 -c 'print([1])#x'", [], ["python3", "-c", "print([1])#x"]),
    ("python3 a#b.py", [], ["python3", "a#b.py"]),
    ("", [], []),
])
def test_simple_shell_commands_are_split_into_literal_words(line, assignments, words):
    simple = split_simple_command(line)
    assert (simple.assignments, simple.words) == (assignments, words)


@pytest.mark.parametrize("line, what", [
    ("python3 s.py | cat", "the operator '|'"),
    ("python3 s.py > out.txt", "the operator '>'"),
    ("python3 s.py; echo", "the operator ';'"),
    ("python3 s.py && echo", "the operator '&'"),
    ("python3 $SCRIPT", "expansions"),
    ('python3 "$HOME/s.py"', "expansions"),
    ("python3 `which s`", "expansions"),
    ("python3 *.py", "wildcards"),
    ("python3 ~/s.py", "~ expansion"),
    ("python3 s.py # note", "a comment"),
    ("python3 'open", "unclosed quote"),
    ("python3 s.py\npython3 t.py", "several lines"),
])
def test_shell_lines_that_are_not_simple_commands(line, what):
    with pytest.raises(ComplexShellCommand) as caught:
        split_simple_command(line)
    assert what in str(caught.value)


def _rewritten(plan):
    return plan.rewritten("unix:/l", "s1.1", "/pkg")


# A program runs under the launcher's script; a module under -m and code under -c (no
# flush after either, and -c imports no runpy).
RUN_PROGRAM = [SCRIPT, "--ipc", "unix:/l", "--session-id", "s1.1"]
LAUNCH = ["-m", "dapperdbg.launcher", "--ipc", "unix:/l", "--session-id", "s1.1"]
RUN_CODE = ["-c", LAUNCHER_CODE, "--ipc", "unix:/l", "--session-id", "s1.1"]


@pytest.mark.parametrize("argv, executable, name, rewritten", [
    ([PY, "w.py", "1"], None, "w.py", [PY, *RUN_PROGRAM, "--program", "w.py", "--", "1"]),
    (["python3", "-m", "http.server"], None, "http.server",
     ["python3", *LAUNCH, "--module", "http.server"]),
    (["anything", "-c", "pass"], PY, "-c", ["anything", *RUN_CODE, "--code", "pass"]),
])
def test_plans_for_python_commands(argv, executable, name, rewritten):
    plan = plan_argv(argv, executable)
    assert plan.attachable and plan.is_python and plan.name == name
    assert _rewritten(plan) == rewritten


@pytest.mark.parametrize("argv, name, is_python, reason", [
    (["echo", "hi"], "echo", False, NOT_PYTHON),
    (["/no/such/program"], "program", False, NOT_PYTHON),
    (["python2", "x.py"], "python2", True, "python2 is Python 2, which Dapper cannot debug"),
    ([PY, "-"], os.path.basename(PY).lower(), True, "it reads its program from standard input"),
    ([PY], os.path.basename(PY).lower(), True,
     "it starts the interactive prompt (no program given)"),
    ([], "", False, "the command is empty"),
])
def test_plans_for_commands_that_cannot_be_attached(argv, name, is_python, reason):
    plan = plan_argv(argv)
    assert not plan.attachable
    assert (plan.name, plan.is_python, plan.reason) == (name, is_python, reason)


def test_the_running_interpreter_is_python_whatever_its_name(tmp_path):
    alias = tmp_path / "interp"
    alias.symlink_to(PY)
    plan = plan_argv([str(alias), "s.py"])
    assert plan.attachable and plan.name == "s.py"


@pytest.mark.parametrize("shebang, attachable, reason, prefix", [
    ("#!/usr/bin/env python3 -u", True, None, ["/usr/bin/env", "python3", "-u"]),
    (f"#!{PY}", True, None, [PY]),
    ("#!/bin/sh", False,
     "a shell script (run by sh): the Python programs it starts are not attached", None),
    ("#!/usr/bin/env bash", False,
     "a shell script (run by bash): the Python programs it starts are not attached", None),
    ("#!/usr/bin/perl", False, f"{NOT_PYTHON} (a script run by perl)", None),
    ("no shebang", False, NOT_PYTHON, None),
])
def test_scripts_are_judged_by_their_shebang(tmp_path, shebang, attachable, reason, prefix):
    script = tmp_path / "tool"
    script.write_text(shebang + "\nprint(1)\n")
    script.chmod(0o755)
    plan = plan_argv([str(script), "a"])
    assert plan.attachable == attachable
    assert plan.reason == reason
    if attachable:
        assert plan.replaces_program
        assert _rewritten(plan) == [*prefix, *RUN_PROGRAM, "--program", str(script), "--", "a"]


@pytest.mark.parametrize("line, attachable, rewritten, reason", [
    ("python3 w.py 1", True,
     "exec python3 " + " ".join(RUN_PROGRAM) + " --program w.py -- 1", None),
    ("A='x y' python3 -m m", True,
     "A='x y' python3 " + " ".join(LAUNCH) + " --module m", None),
    ("python3 w.py | cat", False, None,
     "the shell command line uses the operator '|' (pipes, lists or redirections), "
     "so its Python program is not attached"),
    ("ls -l | wc", False, None, NOT_PYTHON),
    ("A=1", False, None, "the shell command line runs no program"),
])
def test_plans_for_shell_lines(line, attachable, rewritten, reason):
    plan = plan_shell(line)
    assert plan.command == ["/bin/sh", "-c", line]
    assert plan.attachable == attachable
    assert plan.reason == reason
    if attachable:
        assert _rewritten(plan) == rewritten


@pytest.mark.parametrize("listener, expected", [
    ({"transport": "unix", "path": "/tmp/d/s1.sock"}, ("unix:/tmp/d/s1.sock", None)),
    ({"transport": "tcp", "host": "127.0.0.1", "port": 4711}, ("tcp:127.0.0.1:4711", 4711)),
])
def test_child_listener_addresses(listener, expected):
    assert format_address(listener) == expected


@pytest.mark.parametrize("listener", [
    {}, {"transport": "unix"}, {"transport": "tcp", "host": "h"}, {"transport": "pipe"},
])
def test_unusable_child_listeners_are_refused(listener):
    with pytest.raises(ValueError, match="unusable childListener"):
        format_address(listener)


class _FakeDebugger:
    detached = False


@pytest.mark.parametrize("base, pythonpath", [
    ({"PATH": "/bin"}, PACKAGE_DIR),
    ({"PYTHONPATH": "/mine"}, PACKAGE_DIR + os.pathsep + "/mine"),
    ({"PYTHONPATH": ""}, PACKAGE_DIR),
])
def test_the_child_environment(base, pythonpath):
    link = SessionLink("s1.4", "s1", "tok", {"DAPPER_TRACER": "settrace", "DAPPER_INSTRUMENT": "0"})
    hooks = ChildHooks(link, _FakeDebugger(), "unix:/l", None)
    environment = hooks.child_environment(base)
    assert environment["PYTHONPATH"] == pythonpath
    assert environment["DAPPER_PYTHONPATH_ENTRY"] == PACKAGE_DIR
    assert environment["DAPPER_SESSION_TOKEN"] == "tok"
    assert environment["DAPPER_PARENT_SESSION_ID"] == "s1.4"
    # The debugger's own switches follow the child, whatever the program did to os.environ.
    assert environment["DAPPER_TRACER"] == "settrace"
    assert environment["DAPPER_INSTRUMENT"] == "0"
    assert all(base[key] == environment[key] for key in base if key != "PYTHONPATH")
    assert [hooks.next_session_id(), hooks.next_session_id()] == ["s1.4.1", "s1.4.2"]


def test_the_engine_starts_the_launcher_with_the_same_words():
    # The engine builds a launched program's command line (core/src/config/launcher.rs),
    # the hooks a child's: the launcher's script and the -c code are written in both, and
    # a copy left behind here would start children differently from their parent.
    engine = (Path(__file__).resolve().parents[3] / "core" / "src" / "config"
              / "launcher.rs").read_text(encoding="utf-8")
    code = re.search(r'^const LAUNCHER_CODE: &str = "([^"]*)";$', engine, re.MULTILINE)
    script = re.search(r"^const LAUNCHER_SCRIPT: \[&str; \d+\] = \[([^\]]*)\];$", engine,
                       re.MULTILINE)
    assert code is not None and script is not None, "launcher.rs no longer names them so"
    assert code.group(1) == LAUNCHER_CODE
    assert tuple(re.findall(r'"([^"]*)"', script.group(1))) == LAUNCHER_SCRIPT
    assert 'import sys; sys.path.insert(0, {directory}); {LAUNCHER_CODE}' in engine
    assert _BOOTSTRAP == "import sys; sys.path.insert(0, {dir!r}); " + LAUNCHER_CODE
