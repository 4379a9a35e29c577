"""Taking the DAPPER_* variables and the PYTHONPATH entry out of the environment."""

from __future__ import annotations

import os

import pytest

from dapperdbg.launcher.environment import remove_pythonpath_entry, take_dapper_environment


def test_dapper_variables_are_taken_out():
    environ = {"DAPPER_SESSION_TOKEN": "t", "DAPPER_PYTHONPATH_ENTRY": "/e",
               "DAPPER_TRACER": "settrace", "HOME": "/h", "XDAPPER_X": "keep",
               "DAPPER_CACHE_DIR": "/c"}
    taken = take_dapper_environment(environ)
    # The user's own setting stays, for the debugger's cache and for the children.
    assert environ == {"HOME": "/h", "XDAPPER_X": "keep", "DAPPER_CACHE_DIR": "/c"}
    assert taken.session_token == "t"
    assert taken.pythonpath_entry == "/e"
    assert taken.variables["DAPPER_TRACER"] == "settrace"


SEP = os.pathsep


@pytest.mark.parametrize("pythonpath,path_list,expected_env,expected_list", [
    ("/e", ["/cwd", "/e", "/lib"], None, ["/cwd", "/lib"]),
    (f"/e{SEP}/mine", ["/cwd", "/e", "/mine"], "/mine", ["/cwd", "/mine"]),
    (f"/e{SEP}/mine{SEP}/e", ["/e", "/mine", "/e"], f"/mine{SEP}/e", ["/mine", "/e"]),
    (f"/e/{SEP}/mine", ["/e/"], "/mine", []),
    (f"/mine{SEP}/other", ["/mine"], f"/mine{SEP}/other", ["/mine"]),
    (None, ["/e"], None, []),
])
def test_pythonpath_entry_removal(pythonpath, path_list, expected_env, expected_list):
    environ = {} if pythonpath is None else {"PYTHONPATH": pythonpath}
    remove_pythonpath_entry("/e", path_list, environ)
    assert environ.get("PYTHONPATH") == expected_env
    assert path_list == expected_list


def test_no_entry_changes_nothing():
    environ = {"PYTHONPATH": "/x"}
    path_list = ["/x"]
    remove_pythonpath_entry(None, path_list, environ)
    assert environ == {"PYTHONPATH": "/x"} and path_list == ["/x"]
