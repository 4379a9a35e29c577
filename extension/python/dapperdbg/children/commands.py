"""Which command lines start Python, and how one is rewritten to start under the
launcher (pure functions: no process is started here).

A Python command line is read the way the interpreter reads its own: options first
(combinable short flags such as ``-uB``, ``-W``/``-X`` with a value, attached or not),
then the target: ``-c CODE``, ``-m MODULE``, a script path, ``-`` (standard input) or
nothing at all (the interactive prompt). Only the first three can run under the
launcher; the others are reported as candidates with the reason.
"""

from __future__ import annotations

import os

from ..common.patterns import LazyPattern
from ..common.records import Factory, Record

PROGRAM, MODULE, CODE = "program", "module", "code"

# Short options that take a value (attached, as in -Wignore, or the next word).
_VALUE_FLAGS = "WX"
# Short options that print something and exit instead of running a program.
_INFO_FLAGS = "hV?"
# Short options that make the interpreter ignore PYTHONPATH.
_ISOLATING_FLAGS = "EI"
_INFO_LONG = {"--help", "--version", "--help-env", "--help-xoptions", "--help-all"}
_VALUE_LONG = {"--check-hash-based-pycs"}

# python, python3, python3.12, python3.13t, pythonw, python3.12d (with .exe on Windows).
_PYTHON_NAME = LazyPattern(r"^python(?P<version>[23](?:\.(?P<minor>\d+))?)?[dtmw]*$")
OLDEST_MINOR = 9

# The launcher's script, relative to the package directory. A program (a script) is run
# under it by its path, as the engine runs it (core/src/config/launcher.rs): ``-m
# dapperdbg.launcher`` would import runpy, which costs a start 1-2 ms of CPU (3.12, 3.13)
# to 6 ms (3.10, 3.11) and 17 ms (3.9) that ``python script.py`` does not pay; the script
# finds its package by its own path, PYTHONPATH ignored (-E, -I) or not.
# Code (``python -c``, every multiprocessing child started by spawn or forkserver among
# them) is run under ``-c LAUNCHER_CODE``, which imports no runpy either, and a module
# under ``-m``, as plain. Neither runs under the script: after a script Python flushes
# stdout and stderr, which it does not after ``-m`` or ``-c``, and a program that
# replaced them sees it (CPython's test_threading runs code in such a flush). Ignoring
# PYTHONPATH, both run under ``-c`` code that puts the package on sys.path by hand (the
# launcher's clean-up takes it off again).
LAUNCHER_SCRIPT = ("dapperdbg", "launcher", "__main__.py")
LAUNCHER_CODE = "from dapperdbg.launcher import run_as_main; run_as_main()"
_BOOTSTRAP = "import sys; sys.path.insert(0, {dir!r}); " + LAUNCHER_CODE


class NotAttachable(Exception):
    """A Python command line that cannot run under the launcher; the message says why."""


class PythonCommand(Record):
    """A Python command line split into its parts."""

    interpreter: list[str]  # the words that start the interpreter (usually one)
    options: list[str]  # interpreter options, kept as written
    kind: str  # PROGRAM, MODULE or CODE
    target: str
    args: list[str] = Factory(list)
    ignores_environment: bool = False


def program_name(word: str, os_name: str = os.name) -> str:
    """The lower-case file name of a program word, without a Windows .exe suffix. On
    Windows a backslash separates folders too and a drive ends at its colon (C:python);
    elsewhere both are characters of a name."""
    if os_name == "nt":
        word = word.replace("\\", "/").rpartition(":")[2]
    name = word.rpartition("/")[2].lower()
    return name[:-4] if name.endswith(".exe") else name


def python_name_verdict(word: str) -> str | None:
    """None when ``word`` names a usable Python interpreter by its file name; otherwise a
    reason ("" when it is simply not Python)."""
    match = _PYTHON_NAME.match(program_name(word))
    if match is None:
        return ""
    version = match.group("version")
    if version and version.startswith("2"):
        return f"{program_name(word)} is Python 2, which Dapper cannot debug"
    minor = match.group("minor")
    if minor is not None and int(minor) < OLDEST_MINOR:
        return f"{program_name(word)} is older than Python 3.{OLDEST_MINOR}, which Dapper needs"
    return None


def is_same_file(a: str | None, b: str | None) -> bool:
    if not a or not b:
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def parse_python_arguments(interpreter: list[str], words: list[str]) -> PythonCommand:
    """Split the words after the interpreter into options and target. Raises
    NotAttachable for forms the launcher cannot run (stdin, the prompt, --version…)."""
    options: list[str] = []
    ignores_environment = False
    index = 0
    while index < len(words):
        word = words[index]
        if word == "--":
            index += 1
            break
        if word == "-":
            raise NotAttachable("it reads its program from standard input")
        if not word.startswith("-"):
            break
        if word.startswith("--"):
            name, has_value, _ = word.partition("=")
            if name in _INFO_LONG:
                raise NotAttachable(f"it only prints information ({name})")
            if name in _VALUE_LONG:
                if has_value:
                    options.append(word)
                    index += 1
                elif index + 1 < len(words):
                    options.extend(words[index:index + 2])
                    index += 2
                else:
                    raise NotAttachable(f"the option {name} has no value")
                continue
            raise NotAttachable(f"unknown interpreter option {name}")
        # A group of short options: flags, then maybe one option that takes a value.
        flags = ""
        position = 1
        while position < len(word):
            letter = word[position]
            rest = word[position + 1:]
            if letter in "cm":
                if rest:
                    value, consumed = rest, 1
                elif index + 1 < len(words):
                    value, consumed = words[index + 1], 2
                else:
                    raise NotAttachable(f"the option -{letter} has no value")
                if flags:
                    options.append("-" + flags)
                return PythonCommand(
                    interpreter=list(interpreter),
                    options=options,
                    kind=CODE if letter == "c" else MODULE,
                    target=value,
                    args=list(words[index + consumed:]),
                    ignores_environment=ignores_environment,
                )
            if letter in _VALUE_FLAGS:
                if flags:
                    options.append("-" + flags)
                    flags = ""
                if rest:
                    options.append(f"-{letter}{rest}")
                    index += 1
                elif index + 1 < len(words):
                    options.extend([f"-{letter}", words[index + 1]])
                    index += 2
                else:
                    raise NotAttachable(f"the option -{letter} has no value")
                break
            if letter in _INFO_FLAGS:
                raise NotAttachable(f"it only prints information (-{letter})")
            if letter in _ISOLATING_FLAGS:
                ignores_environment = True
            flags += letter
            position += 1
        else:
            options.append("-" + flags)
            index += 1
    if index >= len(words):
        raise NotAttachable("it starts the interactive prompt (no program given)")
    return PythonCommand(
        interpreter=list(interpreter),
        options=options,
        kind=PROGRAM,
        target=words[index],
        args=list(words[index + 1:]),
        ignores_environment=ignores_environment,
    )


def launcher_command(command: PythonCommand, ipc: str, session_id: str,
                     package_dir: str) -> list[str]:
    """The command line that runs ``command`` under the launcher, connected to ``ipc``.
    The token and the parent's session id travel by environment, never here."""
    launcher_options = ["--ipc", ipc, "--session-id", session_id,
                        f"--{command.kind}", command.target]
    if command.args:
        launcher_options += ["--", *command.args]
    start = launcher_start(command.kind, command.ignores_environment, package_dir)
    return [*command.interpreter, *command.options, *start, *launcher_options]


def reads_path_file(interpreter: str | None, os_name: str = os.name) -> bool:
    """Whether the interpreter file takes sys.path from a ``._pth`` file beside it (3.11+'s
    getpath; beside the executable as started or as its links resolve), which makes it
    ignore PYTHONPATH as -I does. On Windows the file is named without the program's
    .exe (python._pth beside python.exe)."""
    if interpreter is None:
        return False
    key = (interpreter, os_name)
    known = _path_file_answers.get(key)
    if known is not None and _directory_times(known[0]) == known[1]:
        return known[2]
    candidates = tuple(sorted({interpreter, os.path.realpath(interpreter)}))
    times = _directory_times(candidates)
    found = False
    for candidate in candidates:
        if os_name == "nt" and candidate.lower().endswith(".exe"):
            candidate = candidate[:-4]
        if os.path.isfile(candidate + "._pth"):
            found = True
            break
    if len(_path_file_answers) >= _PATH_FILE_ANSWERS_LIMIT:
        _path_file_answers.clear()
    _path_file_answers[key] = (candidates, times, found)
    return found


# reads_path_file's answers, by interpreter (and system): the files it looked beside, the
# modification times of their directories then, and the answer. A test suite starts the
# same interpreter for each of its children, and the look (the interpreter's real path,
# two checks for a file) cost its parent about 30 µs a child (3.12); a ._pth file put
# beside the interpreter or taken away changes its directory's time, and is seen.
# Emptied when full.
_path_file_answers: dict = {}
_PATH_FILE_ANSWERS_LIMIT = 64


def _directory_times(paths) -> tuple:
    times = []
    for path in paths:
        try:
            times.append(os.stat(os.path.dirname(path) or os.curdir).st_mtime_ns)
        except OSError:
            times.append(None)
    return tuple(times)


def launcher_start(kind: str, ignores_environment: bool, package_dir: str) -> list[str]:
    """What runs the launcher for a target of ``kind`` (LAUNCHER_SCRIPT says why)."""
    if kind == PROGRAM:
        return [os.path.join(package_dir, *LAUNCHER_SCRIPT)]
    if ignores_environment:
        return ["-c", _BOOTSTRAP.format(dir=package_dir)]
    if kind == CODE:
        return ["-c", LAUNCHER_CODE]
    return ["-m", "dapperdbg.launcher"]


def display_name(command: PythonCommand) -> str:
    """How the child is named to the user: the script's file name, the module, or -c."""
    if command.kind == PROGRAM:
        return os.path.basename(command.target) or command.target
    if command.kind == MODULE:
        return command.target
    return "-c"


def shebang_interpreter(first_line: bytes) -> list[str] | None:
    """The interpreter words of a ``#!`` line (``/usr/bin/env`` included), or None."""
    if not first_line.startswith(b"#!"):
        return None
    text = first_line[2:].strip().decode("utf-8", "replace")
    return text.split() or None


def python_words_of_shebang(words: list[str]) -> tuple[list[str], list[str]] | None:
    """Split a ``#!`` line's words into (interpreter words, interpreter options) when it
    runs a usable Python; None otherwise. ``#!/usr/bin/env python3 -u`` gives
    (["/usr/bin/env", "python3"], ["-u"])."""
    if program_name(words[0]) == "env":
        rest = words[1:]
        if not rest or rest[0].startswith("-"):
            return None
        if python_name_verdict(rest[0]) is not None:
            return None
        return [words[0], rest[0]], rest[1:]
    if python_name_verdict(words[0]) is not None:
        return None
    return [words[0]], words[1:]
