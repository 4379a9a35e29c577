"""The debugger's cache on disk (common/code_cache.py): an entry another layout or
another Python wrote is neither read nor taken as kept. ``has_entry`` tells whether a
later ``load`` would need the compiler; an entry of another format that it took as kept
left a module's instrumented compile to the moment it was imported, where the compiler's
own imports may be the module being imported (test_compiler_import_cycle.py)."""

from __future__ import annotations

from dapperdbg.common import code_cache

KEY = b"the key"
TEXT = b"x = 1\n"


def test_an_entry_of_another_format_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("DAPPER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(code_cache, "_folders", {})
    current = code_cache._HEADER
    monkeypatch.setattr(code_cache, "_HEADER", current.replace(b"dapper-cache ", b"dapper-cache 0"))
    code_cache.store("copies", "m.py", KEY, TEXT, ("the value",))
    assert code_cache.has_entry("copies", "m.py", KEY)
    assert code_cache.load("copies", "m.py", KEY, TEXT) == ("the value",)
    monkeypatch.setattr(code_cache, "_HEADER", current)
    assert not code_cache.has_entry("copies", "m.py", KEY)
    assert code_cache.load("copies", "m.py", KEY, TEXT) is None
    code_cache.store("copies", "m.py", KEY, TEXT, ("the value",))
    assert code_cache.has_entry("copies", "m.py", KEY)
    assert code_cache.load("copies", "m.py", KEY, TEXT) == ("the value",)
