"""Which source files are the user's, whose functions are compiled restartable
(instrumentation/user_files.py ``restartable_source``): each case a file and its
verdict, the file's canonical path or None."""

from __future__ import annotations

import json

import pytest

import dapperdbg
from dapperdbg.common.paths import canonical_path
from dapperdbg.instrumentation import user_files


def _files(tmp_path) -> dict:
    """The cases' paths: name -> (path as a loader names it, expected verdict)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("def f():\n    return 1\n")
    linked = tmp_path / "linked"
    linked.symlink_to(project, target_is_directory=True)
    packages = tmp_path / "venv" / "lib" / "site-packages"
    packages.mkdir(parents=True)
    (packages / "lib.py").write_text("x = 1\n")
    user = canonical_path(str(project / "app.py"))
    return {
        "the user's file": (str(project / "app.py"), user),
        "the user's file through a link": (str(linked / "app.py"), user),
        "a standard library module": (json.decoder.__file__, None),
        "a standard library package": (json.__file__, None),
        "the debugger's own file": (user_files.__file__, None),
        "a site-packages file": (str(packages / "lib.py"), None),
    }

CASES = ["the user's file", "the user's file through a link", "a standard library module",
         "a standard library package", "the debugger's own file", "a site-packages file"]


@pytest.mark.parametrize("case", CASES)
def test_restartable_source(case, tmp_path):
    path, expected = _files(tmp_path)[case]
    assert user_files.restartable_source(path) == expected


def test_a_standard_library_module_is_told_without_resolving_its_path(monkeypatch):
    resolved: list[str] = []
    monkeypatch.setattr(user_files, "canonical_path",
                        lambda path: resolved.append(path) or canonical_path(path))
    assert user_files.restartable_source(json.decoder.__file__) is None
    assert resolved == []
    assert user_files.restartable_source(dapperdbg.__file__) is None
    assert resolved == [dapperdbg.__file__]
