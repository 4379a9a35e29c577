"""The index of loaded modules by file name (common/module_files.py) and the resolution
of paths by directory (common/paths.py): each must answer what a scan of sys.modules and
``os.path.realpath`` answer, whatever changed in between."""

from __future__ import annotations

import gc
import os
import sys
import types
import weakref

import pytest

from dapperdbg.common import module_files
from dapperdbg.common.paths import canonical_path

NAME = "dapper_test_module_files"


@pytest.fixture
def cleanup():
    yield
    for name in [NAME, NAME + "_2"]:
        sys.modules.pop(name, None)


def _module(path) -> types.ModuleType:
    module = types.ModuleType(NAME)
    module.__file__ = str(path)
    return module


def _found(path) -> bool:
    canonical = canonical_path(str(path))
    return any(canonical_path(f) == canonical
               for f in module_files.files_that_may_be(canonical))


def test_a_module_added_replaced_or_removed_is_seen_at_once(tmp_path, cleanup):
    first, second = tmp_path / "first.py", tmp_path / "second.py"
    assert not _found(first)
    sys.modules[NAME] = _module(first)
    assert _found(first)
    # The same name, the same place in sys.modules, another file.
    sys.modules[NAME] = _module(second)
    assert _found(second) and not _found(first)
    # A module whose file changes in place.
    sys.modules[NAME].__file__ = str(first)
    assert _found(first) and not _found(second)
    del sys.modules[NAME]
    assert not _found(first)


def test_a_module_imported_through_a_link_of_another_name_is_a_candidate(tmp_path, cleanup):
    real = tmp_path / "real.py"
    real.write_text("")
    link = tmp_path / "other_name.py"
    link.symlink_to(real)
    sys.modules[NAME] = _module(link)
    assert str(link) in module_files.files_that_may_be(canonical_path(str(real)))
    assert _found(real)


def test_a_module_with_the_same_name_in_another_folder_is_only_a_candidate(tmp_path, cleanup):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    sys.modules[NAME] = _module(tmp_path / "a" / "mod.py")
    assert not _found(tmp_path / "b" / "mod.py")
    assert _found(tmp_path / "a" / "mod.py")


def test_modules_that_raise_or_are_no_modules_are_passed_over(tmp_path, cleanup):
    class Raising(types.ModuleType):
        def __getattr__(self, name):
            raise RuntimeError("no attributes here")

    class Hostile:
        def __eq__(self, other):
            raise RuntimeError("compared")

        __hash__ = object.__hash__

    sys.modules[NAME] = Raising(NAME)
    sys.modules[NAME + "_2"] = None  # How an import is blocked.
    assert not _found(tmp_path / "x.py")
    odd = types.ModuleType(NAME + "_2")
    odd.__file__ = Hostile()  # Compared with the index's list every time it is asked.
    sys.modules[NAME + "_2"] = odd
    assert not _found(tmp_path / "x.py")
    sys.modules[NAME + "_2"] = types.ModuleType(NAME + "_2")
    sys.modules[NAME + "_2"].__file__ = Hostile()
    assert not _found(tmp_path / "x.py")
    sys.modules[NAME + "_2"] = _module(tmp_path / "x.py")
    assert _found(tmp_path / "x.py")


def test_the_index_keeps_no_module_alive(tmp_path, cleanup):
    module = _module(tmp_path / "gone.py")
    sys.modules[NAME] = module
    assert _found(tmp_path / "gone.py")
    ref = weakref.ref(module)
    del sys.modules[NAME], module
    gc.collect()
    assert ref() is None



def test_modules_imported_after_the_index_extend_it_and_a_change_before_them_remakes_it(
        tmp_path, cleanup):
    first, second, third = (tmp_path / name for name in ("first.py", "second.py", "third.py"))
    sys.modules[NAME] = _module(first)
    assert _found(first)
    sys.modules[NAME + "_2"] = _module(second)
    assert _found(first) and _found(second)
    sys.modules[NAME] = _module(third)
    assert _found(third) and _found(second) and not _found(first)


def test_while_the_program_waits_what_the_debugger_imports_is_seen(tmp_path, cleanup):
    module_files.program_waits()
    try:
        sys.modules[NAME] = _module(tmp_path / "first.py")
        assert _found(tmp_path / "first.py")
        sys.modules[NAME + "_2"] = _module(tmp_path / "second.py")
        assert _found(tmp_path / "second.py")
    finally:
        module_files.program_runs()
    # The program runs: a module it puts in place of another is seen at once again.
    sys.modules[NAME] = _module(tmp_path / "third.py")
    assert _found(tmp_path / "third.py") and not _found(tmp_path / "first.py")


# A program that puts a module of another file in place of one it imported: as many
# modules as before, another file among them.
REPLACING = """\
import sys
import types
import helper
print("imported", flush=True)
module = types.ModuleType("helper")
module.__file__ = sys.argv[1]
sys.modules["helper"] = module
print("replaced", flush=True)
"""
# Whether the index names a module's file among those that may be the file, asked in the
# stopped program (modules imported through a link are named for every file: Debian's
# sitecustomize.py is one).
MAY_BE = ("{!r} in __import__('dapperdbg.common.module_files').common.module_files"
          ".files_that_may_be({!r})")


def test_a_module_the_program_puts_in_place_of_another_is_seen_once_it_runs(
        launch, write, backend):
    write("helper.py", "VALUE = 1\n")
    other = write("other.py", "VALUE = 2\n")
    program = write("main.py", REPLACING)
    debuggee = launch("--program", program, other, tracer=backend)
    debuggee.configure()
    debuggee.set_breakpoints(program, [4, 8])
    debuggee.request("configurationDone")

    def named() -> str:
        stop = debuggee.stopped()
        frame = debuggee.top_frame(stop["threadId"])
        answer = debuggee.request("evaluate", {
            "expression": MAY_BE.format(str(other), canonical_path(str(other))),
            "frameId": frame["id"], "context": "repl"})["result"]
        debuggee.request("continue", {"threadId": stop["threadId"]})
        return answer

    assert named() == "False"
    assert named() == "True"
    assert debuggee.finish() == 0


def _tree(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "f.py").write_text("")
    (tmp_path / "dirlink").symlink_to(tmp_path / "real")
    (tmp_path / "filelink.py").symlink_to("real/f.py")
    (tmp_path / "real" / "up.py").symlink_to("../real/f.py")
    return ["dirlink/f.py", "filelink.py", "real/up.py", "dirlink/up.py",
            "dirlink/../real/f.py", "dirlink/missing.py", "real/", "real", "."]


def test_paths_resolve_as_realpath_does(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for relative in _tree(tmp_path):
        for path in (relative, str(tmp_path / relative)):
            expected = os.path.normcase(os.path.realpath(path))
            assert canonical_path(path) == expected, path
            assert canonical_path(path) == expected, path  # From the resolved folder.
    for module in list(sys.modules.values()):
        filename = getattr(module, "__file__", None)
        if isinstance(filename, str):
            assert canonical_path(filename) == os.path.normcase(os.path.realpath(filename))


def test_what_it_remembers_of_paths_is_bounded(tmp_path, monkeypatch, cleanup):
    monkeypatch.setattr(module_files, "_LINKS_REMEMBERED", 4)
    monkeypatch.setattr(module_files, "_link_by_filename", {})
    for number in range(10):
        module_files.is_link(str(tmp_path / f"m{number}.py"))
        assert len(module_files._link_by_filename) <= 4
    real = tmp_path / "real.py"
    real.write_text("")
    (tmp_path / "other.py").symlink_to(real)
    sys.modules[NAME] = _module(tmp_path / "other.py")
    assert _found(real)  # Forgotten answers are asked again.
