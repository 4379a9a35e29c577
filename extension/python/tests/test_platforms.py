"""The debuggee's pure logic behind a platform check, run here for Windows ("nt", with
ntpath's rules), macOS and Linux ("posix"): the names of child programs, the ``._pth``
file beside an interpreter, the exit status of ``sys.exit``, how ``dapper/terminate``
ends a program, and which paths terminal auto-attach counts as the workspace's. The
platform is each function's parameter; nothing is mocked."""

from __future__ import annotations

import ntpath
import posixpath
import shlex
import signal
import sys
import threading

import pytest

from conftest import PACKAGE_DIR
from dapperdbg.children.commands import program_name, reads_path_file
from dapperdbg.children.planning import plan_shell
from dapperdbg.launcher.api import _status_of
from dapperdbg.requests.termination import ending, raise_sigterm

sys.path.insert(0, str(PACKAGE_DIR / "autoattach"))
import _dapper_autoattach as autoattach  # noqa: E402

sys.path.remove(str(PACKAGE_DIR / "autoattach"))


@pytest.mark.parametrize(("word", "os_name", "expected"), [
    ("/usr/bin/python3.12", "posix", "python3.12"),
    ("C:\\Python312\\python.exe", "nt", "python"),
    ("C:/Python312/Python.EXE", "nt", "python"),
    ("C:python3.exe", "nt", "python3"),
    ("py.exe", "nt", "py"),
    # On POSIX a backslash and a colon are characters of the name.
    ("odd\\python3", "posix", "odd\\python3"),
    ("C:python3", "posix", "c:python3"),
])
def test_a_program_word_is_named_by_its_file_name(word, os_name, expected):
    assert program_name(word, os_name) == expected


@pytest.mark.parametrize(("os_name", "program", "path_file", "expected"), [
    ("nt", "python.exe", "python._pth", True),
    ("nt", "PYTHON.EXE", "PYTHON._pth", True),
    ("posix", "python.exe", "python._pth", False),
    ("posix", "python3.13", "python3.13._pth", True),
    ("nt", "python.exe", None, False),
])
def test_a_path_file_beside_the_interpreter_is_found_by_the_platform_s_name(
        tmp_path, os_name, program, path_file, expected):
    interpreter = tmp_path / program
    interpreter.write_text("")
    if path_file is not None:
        (tmp_path / path_file).write_text("python313.zip\n.\n")
    assert reads_path_file(str(interpreter), os_name) is expected


def test_a_path_file_put_beside_the_interpreter_later_is_seen(tmp_path):
    interpreter = tmp_path / "python3"
    interpreter.write_text("")
    assert reads_path_file(str(interpreter), "posix") is False
    assert reads_path_file(str(interpreter), "posix") is False  # Known now.
    (tmp_path / "python3._pth").write_text(".\n")
    assert reads_path_file(str(interpreter), "posix") is True
    (tmp_path / "python3._pth").unlink()
    assert reads_path_file(str(interpreter), "posix") is False


def test_a_shell_line_is_rewritten_on_posix_and_runs_as_written_on_windows():
    line = f"{shlex.quote(sys.executable)} -c pass"
    posix = plan_shell(line, os_name="posix")
    assert (posix.attachable, posix.python is not None) == (True, True)
    windows = plan_shell(line, os_name="nt")
    assert (windows.attachable, windows.python, windows.reason) == (
        False, None, "shell command lines are only rewritten on POSIX systems")


@pytest.mark.parametrize(("status", "os_name", "expected"), [
    (None, "posix", 0),
    (3, "posix", 3),
    (256 + 7, "posix", 7),
    (-1, "posix", 255),
    (256 + 7, "nt", 263),
    (-1, "nt", -1),
    ("failed", "nt", 1),
])
def test_the_exit_status_of_sys_exit_is_the_platform_s(status, os_name, expected):
    assert _status_of(status, os_name) == expected


@pytest.mark.parametrize(("force", "has_handler", "os_name", "expected"), [
    (True, True, "posix", "exit"),
    (True, False, "nt", "exit"),
    (False, True, "posix", "handler"),
    # Windows runs the program's handler too, through raise_signal.
    (False, True, "nt", "handler"),
    (False, False, "posix", "signal"),
    # Windows has no gentle signal: the status a shell shows for SIGTERM, by os._exit.
    (False, False, "nt", "exit"),
])
def test_terminate_ends_a_program_as_its_platform_can(force, has_handler, os_name,
                                                     expected):
    assert ending(force, has_handler, os_name) == expected


@pytest.mark.parametrize("os_name", ["posix", "nt"])
def test_sigterm_for_the_program_s_handler_reaches_it_both_ways(os_name):
    received = []
    previous = signal.signal(signal.SIGTERM, lambda number, frame: received.append(number))
    try:
        # dapper/terminate is handled on the debugger's reader thread, not the main one.
        thread = threading.Thread(target=raise_sigterm, args=(os_name,))
        thread.start()
        thread.join()
        for _ in range(100):
            if received:
                break
            threading.Event().wait(0.01)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert received == [signal.SIGTERM]


@pytest.mark.parametrize(("path", "folder", "paths", "fold_case", "expected"), [
    ("/home/me/proj/app.py", "/home/me/proj", posixpath, False, True),
    ("/home/me/proj", "/home/me/proj/", posixpath, False, True),
    ("/home/me/project2/app.py", "/home/me/proj", posixpath, False, False),
    ("/home/me/Proj/app.py", "/home/me/proj", posixpath, False, False),
    # macOS: case-insensitive by default, which normcase does not say.
    ("/Users/me/projects/app.py", "/Users/me/Projects", posixpath, True, True),
    # Windows: drive letters and separators in any case and form.
    ("c:\\Users\\Me\\proj\\app.py", "C:\\users\\me\\Proj", ntpath, False, True),
    ("C:/Users/me/proj/app.py", "C:\\Users\\me\\proj", ntpath, False, True),
    ("D:\\Users\\me\\proj\\app.py", "C:\\Users\\me\\proj", ntpath, False, False),
    ("C:\\Users\\me\\project2\\app.py", "C:\\Users\\me\\proj", ntpath, False, False),
])
def test_a_path_is_in_a_workspace_folder_by_the_platform_s_rules(path, folder, paths,
                                                                fold_case, expected):
    assert autoattach._under(path, folder, paths, fold_case) is expected


@pytest.mark.parametrize(("path", "patterns", "paths", "fold_case", "expected"), [
    ("/w/src/app.py", ["/w/**/*.py"], posixpath, False, True),
    ("/w/src/App.py", ["/w/**/app.py"], posixpath, False, False),
    ("/W/Src/App.py", ["/w/**/app.py"], posixpath, True, True),
    ("C:\\W\\src\\app.py", ["c:/w/**/*.py", "!c:/w/src/app.py"], ntpath, False, False),
    ("C:\\W\\tools\\run.py", ["C:\\w\\**\\*.py"], ntpath, False, True),
])
def test_smart_patterns_match_by_the_platform_s_rules(path, patterns, paths, fold_case,
                                                      expected):
    assert autoattach._by_patterns(path, patterns, paths, fold_case) is expected


def test_the_terminal_s_lists_split_on_the_platform_s_separator():
    assert autoattach._split("C:\\a;D:\\b;", ";") == ["C:\\a", "D:\\b"]
    assert autoattach._split("/a:/b", ":") == ["/a", "/b"]
    assert autoattach._split(None, ":") == []
