"""Deciding what to do with a command a debuggee is about to start: rewrite it to run
under the launcher (a Python child), or leave it alone and report it as a candidate
with the reason. Reads at most the first line of the program file (for ``#!``); starts
nothing.
"""

from __future__ import annotations

import os
import sys

from ..common.records import Record
from .commands import (
    NotAttachable,
    PythonCommand,
    display_name,
    is_same_file,
    launcher_command,
    parse_python_arguments,
    program_name,
    python_name_verdict,
    python_words_of_shebang,
    reads_path_file,
    shebang_interpreter,
)
from .shell import ComplexShellCommand, join_command, split_simple_command

NOT_PYTHON = "not a Python program"
_SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh"}
_SHEBANG_BYTES = 256


class Plan(Record):
    """What the hooks do with one command."""

    command: list[str]  # the command as the program gave it (for the announcements)
    name: str
    is_python: bool
    python: PythonCommand | None = None  # set when the child can be attached
    reason: str | None = None  # why it cannot, when it cannot
    shell_assignments: list[str] | None = None  # set for shell=True lines
    # True when the interpreter comes from a #! line: the program word is replaced.
    replaces_program: bool = False

    @property
    def attachable(self) -> bool:
        return self.python is not None

    def rewritten(self, ipc: str, session_id: str, package_dir: str):
        """The new command: a list of words, or the shell text for shell=True lines."""
        assert self.python is not None
        words = launcher_command(self.python, ipc, session_id, package_dir)
        if self.shell_assignments is None:
            return words
        assignments = list(self.shell_assignments)
        if not assignments:
            # The shell replaces itself with the interpreter, so the pid the parent knows
            # (the shell's) is the child's.
            assignments = ["exec"]
        return join_command(assignments, words)


def which(word: str, path: str | None = None) -> str | None:
    """``shutil.which``, imported on first use: shutil and the compression modules it
    imports cost every debuggee ~3 ms at start, and most never start a child."""
    import shutil

    return shutil.which(word, path=path)


def resolve_program(word: str, cwd: str | None, path: str | None) -> str | None:
    """The file a program word runs, as exec would find it; None when not found."""
    if os.sep in word or (os.altsep and os.altsep in word):
        candidate = word if os.path.isabs(word) else os.path.join(cwd or os.getcwd(), word)
        return candidate if os.path.isfile(candidate) else None
    return which(word, path)


def _first_line(path: str) -> bytes:
    try:
        with open(path, "rb") as file:
            return file.readline(_SHEBANG_BYTES)
    except OSError:
        return b""


def plan_argv(argv: list[str], executable: str | None = None, cwd: str | None = None,
              path: str | None = None) -> Plan:
    """Plan for a command given as a list of words (``argv[0]`` is the program unless
    ``executable`` says otherwise, as in subprocess.Popen)."""
    command = list(argv)
    if not command:
        return Plan(command, "", False, reason="the command is empty")
    program = executable or command[0]
    verdict = python_name_verdict(program)
    resolved = None
    if verdict is not None:
        resolved = resolve_program(program, cwd, path)
        if is_same_file(resolved, sys.executable):
            verdict = None
    if verdict is None:
        try:
            python = parse_python_arguments([command[0]], command[1:])
        except NotAttachable as error:
            return Plan(command, program_name(program), True, reason=str(error))
        _note_path_file(python, resolved or resolve_program(program, cwd, path))
        return Plan(command, display_name(python), True, python=python)
    if verdict:
        return Plan(command, program_name(program), True, reason=verdict)
    return _plan_script(command, program, resolved, cwd, path)


def _plan_script(command: list[str], program: str, resolved: str | None,
                 cwd: str | None, path: str | None) -> Plan:
    """A program that is not an interpreter: maybe a script whose ``#!`` runs Python."""
    name = program_name(program)
    if resolved is None:
        return Plan(command, name, False, reason=NOT_PYTHON)
    interpreter = shebang_interpreter(_first_line(resolved))
    if interpreter is None:
        return Plan(command, name, False, reason=NOT_PYTHON)
    python_words = python_words_of_shebang(interpreter)
    if python_words is None:
        runner = program_name(interpreter[0])
        if runner == "env" and len(interpreter) > 1:
            runner = program_name(interpreter[1])
        if runner in _SHELLS:
            reason = (f"a shell script (run by {runner}): the Python programs it starts "
                      f"are not attached")
        else:
            reason = f"{NOT_PYTHON} (a script run by {runner})"
        return Plan(command, name, False, reason=reason)
    words, options = python_words
    try:
        python = parse_python_arguments(words, [*options, resolved, *command[1:]])
    except NotAttachable as error:
        return Plan(command, name, True, reason=str(error))
    _note_path_file(python, resolve_program(words[-1], cwd, path))
    return Plan(command, os.path.basename(resolved), True, python=python,
                replaces_program=True)


def _note_path_file(python: PythonCommand, interpreter: str | None) -> None:
    """An interpreter with a ``._pth`` file ignores PYTHONPATH, as under -E or -I: the
    launcher is then started with its package put on sys.path by hand."""
    if not python.ignores_environment and reads_path_file(interpreter):
        python.ignores_environment = True


def plan_shell(line: str, cwd: str | None = None, path: str | None = None,
               shell_program: str = "/bin/sh", os_name: str = os.name) -> Plan:
    """Plan for a ``shell=True`` command line. Windows's lines are cmd.exe's, whose
    quoting this module does not read: they run as written."""
    command = [shell_program, "-c", line]
    if os_name == "nt":
        return Plan(command, "cmd", False,
                    reason="shell command lines are only rewritten on POSIX systems")
    try:
        simple = split_simple_command(line)
    except ComplexShellCommand as error:
        mentions_python = any(
            python_name_verdict(word.strip("'\"")) is None for word in line.split())
        if mentions_python:
            return Plan(command, "sh", True,
                        reason=f"{error}, so its Python program is not attached")
        return Plan(command, "sh", False, reason=NOT_PYTHON)
    if not simple.words:
        return Plan(command, "sh", False, reason="the shell command line runs no program")
    inner = plan_argv(simple.words, cwd=cwd, path=path)
    inner.command = command
    if inner.attachable:
        inner.shell_assignments = simple.assignments
    return inner
