"""What compiling with probes costs and reads: the instrumented compile makes no plain
compile of the file and reads only the probes' instructions, and what it reads that
way is exactly what reading every instruction with ``dis`` gives.

- The instruction decoder (``bytecode.instructions``) against ``dis`` over every code
  object of a few standard library modules, also through its ``dis`` fallback.
- ``find_probe_sites`` reading only the probe lines against reading the whole code
  object, with probes on every line of those modules.
- The import path: ``instrument_source`` for the finder compiles once and never calls
  ``dis``; the plain compile and the originals are made when first asked for, once.
"""

from __future__ import annotations

import ast
import dis
import importlib
import importlib.util
import sys
import types

import pytest

from dapperdbg.common import code_cache
from dapperdbg.instrumentation import (
    Instrumentation,
    Probe,
    bytecode,
    compiler,
    install_probe_function,
    instrument_source,
    plain_code,
)

STDLIB_MODULES = ["argparse", "dataclasses", "json.decoder", "enum", "asyncio.tasks"]


def code_tree(code: types.CodeType) -> list[types.CodeType]:
    found = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found.extend(code_tree(const))
    return found


def stdlib_source(name: str) -> tuple[bytes, str]:
    origin = importlib.util.find_spec(name).origin
    with open(origin, "rb") as file:
        return file.read(), origin


def check_decoder(code: types.CodeType) -> None:
    got = bytecode.instructions(code, bytecode.line_ranges(code))
    wanted = list(dis.get_instructions(code))
    assert [(i.offset, i.opname) for i in got] == [(i.offset, i.opname) for i in wanted]
    for mine, theirs in zip(got, wanted):
        if theirs.opname in ("LOAD_CONST", "LOAD_GLOBAL", "LOAD_NAME") or (
                theirs.opcode in dis.hasjrel or theirs.opcode in dis.hasjabs):
            assert mine.argval == theirs.argval or mine.argval is theirs.argval, (mine, theirs)
        if sys.version_info >= (3, 11):
            assert tuple(mine.positions) == tuple(theirs.positions)


@pytest.mark.parametrize("name", STDLIB_MODULES)
def test_the_decoder_reads_what_dis_reads(name):
    source, origin = stdlib_source(name)
    for code in code_tree(compile(source, origin, "exec")):
        check_decoder(code)


def test_the_dis_fallback_reads_the_same(monkeypatch):
    source, origin = stdlib_source("json.decoder")
    codes = code_tree(compile(source, origin, "exec"))
    fast = [bytecode.instructions(code, bytecode.line_ranges(code)) for code in codes]
    monkeypatch.setattr(bytecode, "_CACHE_UNITS", None)
    slow = [bytecode.instructions(code, bytecode.line_ranges(code)) for code in codes]
    for ours, theirs in zip(fast, slow):
        assert [(i.offset, i.end, i.opname, i.argval, i.line) for i in ours] == [
            (i.offset, i.end, i.opname, i.argval, i.line) for i in theirs]


def every_statement_line(source: bytes) -> list[int]:
    return sorted({node.lineno for node in ast.walk(ast.parse(source))
                   if isinstance(node, ast.stmt)})


@pytest.mark.parametrize("name", STDLIB_MODULES)
@pytest.mark.parametrize("share", [0, 1])
def test_reading_the_probe_lines_only_finds_what_reading_everything_finds(name, share):
    """Probes on every other statement, half of them with a condition."""
    source, origin = stdlib_source(name)
    lines = every_statement_line(source)[share::2]
    probes = {line: Probe(1000 + number, None if number % 2 else "len(str(1)) < 0")
              for number, line in enumerate(lines)}
    module = instrument_source(source, origin, probes)
    assert len(module.accepted) > len(probes) // 2
    checked = 0
    for code in code_tree(module.code):
        partial = bytecode.find_probe_sites(code, set(module.accepted))
        assert partial == bytecode.find_probe_sites(code)
        assert partial == module.sites_of(code)
        checked += partial is not None
    assert checked == len(module.sites) > 0


def big_table(entries: int) -> str:
    """The benchmark's bigdict module: a large literal, then a line that runs once."""
    rows = [f'    "key{i:06d}": ({i}, "value {i}", {i * 0.5}),' for i in range(entries)]
    return "\n".join(["TABLE = {", *rows, "}", "SIZE = len(TABLE)",
                      "def size(extra):", "    total = SIZE + extra", "    return total"]) + "\n"


class Counting:
    def __init__(self, function):
        self.function = function
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.function(*args, **kwargs)


def no_dis(*args, **kwargs):
    raise AssertionError("dis read a whole code object")


@pytest.fixture
def lean(monkeypatch, tmp_path):
    """Counts plain compiles; a whole-code ``dis`` pass fails the test. The cache of
    copies starts empty, so that what is counted is compiled here."""
    monkeypatch.setenv("DAPPER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(code_cache, "_folders", {})
    counter = Counting(plain_code.compile_plain)
    monkeypatch.setattr(plain_code, "compile_plain", counter)
    monkeypatch.setattr(dis, "get_instructions", no_dis)
    return counter


def test_instrumenting_a_large_module_compiles_it_once_and_reads_no_more(lean):
    source = big_table(3000)
    probe_line = 3002 + 1
    module = instrument_source(source, "/virtual/table.py", {
        probe_line: Probe(1, "len(TABLE) < 0"),  # At module level: no shape check.
        probe_line + 2: Probe(2, "extra < 0"),  # In a function: its statement checked.
    })
    assert set(module.accepted) == {probe_line, probe_line + 2} and not module.refused
    assert lean.calls == 0
    install_probe_function()
    namespace: dict = {}
    exec(module.code, namespace)
    assert namespace["size"](1) == 3001
    # The plain compile is made when first asked for, once.
    assert module.plain is module.plain and lean.calls == 1
    assert module.plain == compile(source, "/virtual/table.py", "exec", dont_inherit=True)
    for plain, copy in module.pairs:
        assert module.original_of(copy) is plain
    assert lean.calls == 1


@pytest.fixture
def importing(tmp_path):
    sys.path.insert(0, str(tmp_path))
    instrumentation = Instrumentation()
    instrumentation.install()
    yield tmp_path, instrumentation
    instrumentation.uninstall()
    sys.path.remove(str(tmp_path))
    sys.modules.pop("lean_import_case", None)


def test_an_import_compiles_once_and_undo_restores_the_plain_code(importing, lean):
    directory, instrumentation = importing
    source = big_table(500)
    path = directory / "lean_import_case.py"
    path.write_text(source)
    function_line = 500 + 5
    instrumentation.set_probes(str(path), {503: Probe(1, "len(TABLE) < 0"),
                                           function_line: Probe(2, "extra == 7")})
    # Setting probes on a file not loaded yet matches no live function: no plain compile.
    assert lean.calls == 0
    module = importlib.import_module("lean_import_case")
    assert lean.calls == 0  # The import compiled the copy only.
    copy = module.size.__code__
    registry = instrumentation.registry
    info = registry.info_for_copy(copy)
    assert info is not None and info.original_if_made() is None
    assert registry.copy_of(copy) is None  # Asking which copy does not make originals.
    assert lean.calls == 0

    # Another probe set: the live swap moves the function to a new copy.
    result = instrumentation.set_probes(str(path), {function_line: Probe(3)})
    assert result.error is None and set(result.accepted) == {function_line}
    assert module.size.__code__ is not copy and module.size(1) == 501
    # Removing every probe gives the function the plain compile's code, exactly.
    instrumentation.set_probes(str(path), {})
    plain = compile(source, str(path), "exec", dont_inherit=True)
    original = next(c for c in plain.co_consts if isinstance(c, types.CodeType))
    assert module.size.__code__ == original
    assert registry.info_for_copy(module.size.__code__) is None


@pytest.mark.parametrize("source", [
    "return 1\n",  # Only the compiler, not the parser, rejects these.
    "x = 1\nnonlocal x\n",
    "def f():\n    x = 1\n    global x\n",
])
def test_a_file_only_the_compiler_rejects_is_reported_not_looped_on(source):
    with pytest.raises(compiler.InstrumentationError, match="does not compile"):
        instrument_source(source, "/virtual/bad.py", {1: Probe(1, "True"), 2: Probe(2)})
