"""common.import_hooks: a patch runs once its module is imported, and the module
looks as if it had been imported without the hook."""

from __future__ import annotations

import importlib
import importlib.util
import sys

import pytest

from dapperdbg.common import import_hooks


@pytest.fixture
def module_dir(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    names = []

    def make(name: str, source: str = "VALUE = 1\n") -> str:
        (tmp_path / f"{name}.py").write_text(source)
        names.append(name)
        return name

    yield make
    for name in names:
        sys.modules.pop(name, None)
    import_hooks._pending.clear()
    import_hooks._remove_finder()


def test_a_patch_waits_for_the_import_and_then_runs_once(module_dir):
    name = module_dir("dapper_hook_target")
    seen = []
    import_hooks.when_imported(name, lambda module: seen.append(module.VALUE))
    assert seen == [] and import_hooks.pending_names() == [name]
    module = importlib.import_module(name)
    assert seen == [1]
    # The module keeps its real loader and spec; the finder is gone once nothing waits.
    assert type(module.__loader__).__name__ == "SourceFileLoader"
    assert module.__spec__.loader is module.__loader__
    assert import_hooks.pending_names() == []
    assert import_hooks._FINDER not in sys.meta_path
    importlib.reload(module)
    assert seen == [1]


def test_a_patch_taken_back_is_never_run_and_leaves_no_finder(module_dir):
    name = module_dir("dapper_hook_forgotten")
    other = module_dir("dapper_hook_kept")
    seen = []
    patch = seen.append
    import_hooks.when_imported(name, patch)
    import_hooks.when_imported(other, seen.append)
    import_hooks.forget(name, patch)
    assert import_hooks.pending_names() == [other]
    assert import_hooks._FINDER in sys.meta_path
    importlib.import_module(name)
    assert seen == []
    import_hooks.forget(other, lambda module: None)  # Not the patch that waits: kept.
    assert import_hooks.pending_names() == [other]
    import_hooks.forget(other, seen.append)
    assert import_hooks.pending_names() == []
    assert import_hooks._FINDER not in sys.meta_path


def test_a_loaded_module_is_patched_at_once(module_dir):
    name = module_dir("dapper_hook_loaded")
    importlib.import_module(name)
    seen = []
    import_hooks.when_imported(name, lambda module: seen.append(module.__name__))
    assert seen == [name]
    assert import_hooks._FINDER not in sys.meta_path


def test_a_failing_patch_never_fails_the_import(module_dir, capsys):
    name = module_dir("dapper_hook_failing")

    def broken(module):
        raise RuntimeError("no luck")

    import_hooks.when_imported(name, broken)
    assert importlib.import_module(name).VALUE == 1
    assert "could not hook dapper_hook_failing: no luck" in capsys.readouterr().err


def test_a_missing_module_keeps_its_patch_for_later(module_dir, tmp_path):
    seen = []
    import_hooks.when_imported("dapper_hook_later", lambda module: seen.append(1))
    with pytest.raises(ImportError):
        importlib.import_module("dapper_hook_later")
    assert import_hooks.pending_names() == ["dapper_hook_later"]
    module_dir("dapper_hook_later")
    importlib.invalidate_caches()
    importlib.import_module("dapper_hook_later")
    assert seen == [1]


def test_finding_a_spec_without_loading_it_keeps_the_patch(module_dir):
    name = module_dir("dapper_hook_found")
    seen = []
    import_hooks.when_imported(name, lambda module: seen.append(1))
    assert importlib.util.find_spec(name) is not None
    assert seen == [] and import_hooks.pending_names() == [name]
    importlib.import_module(name)
    assert seen == [1] and import_hooks.pending_names() == []


def test_a_module_whose_code_raises_keeps_the_patch(module_dir, tmp_path):
    name = module_dir("dapper_hook_raises", "raise ValueError('not yet')\n")
    seen = []
    import_hooks.when_imported(name, lambda module: seen.append(module.VALUE))
    with pytest.raises(ValueError):
        importlib.import_module(name)
    assert seen == [] and import_hooks.pending_names() == [name]
    (tmp_path / f"{name}.py").write_text("VALUE = 2\n")
    importlib.invalidate_caches()
    importlib.import_module(name)
    assert seen == [2]
