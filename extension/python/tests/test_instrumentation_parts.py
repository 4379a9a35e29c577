"""What makes a breakpoint cheap to set in a large file, checked against what it stands
for:

- segments.py compiles only the definitions that hold probes: its module must be the
  whole compile's, copy for copy (equal code, line tables included), with the same
  probes accepted and refused for the same reasons and the same sites, on every case of
  test_instrumentation.py and on probes in every other statement of the definitions of
  a few standard library modules; and it must step aside (None) where a part cannot be
  cut (a probe in module-level code, text that continues at the left margin).
- copy_cache.py keeps copies across processes: a second call is served without
  compiling, with the real probe ids in place of the stand-ins; a changed text, probe
  condition or compiler is never served an old entry; a broken entry is a miss.
- pyc_files.py reads a ``.pyc`` only where it is the source's own compile.
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import os
import py_compile
import sys
import textwrap
import types

import pytest
from test_instrumentation import CASES, parse_markers
from test_instrumentation_reading import Counting

from dapperdbg.common import code_cache
from dapperdbg.common.pyc_files import cached_module_code
from dapperdbg.instrumentation import Probe, copy_cache, instrument_source, segments
from dapperdbg.instrumentation.copies import same_code, walk_codes, walk_pairs


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("DAPPER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(code_cache, "_folders", {})
    return tmp_path / "cache"


def plain_of(source: bytes | str, filename: str):
    return lambda: compile(source, filename, "exec", dont_inherit=True)


def assert_same_module(whole, parts) -> None:
    """``parts`` compiles what ``whole`` does: same probes taken and refused, and every
    code object equal, line tables included, with the same probe sites."""
    assert parts.accepted == whole.accepted
    assert parts.refused == whole.refused
    for mine, theirs in walk_pairs(parts.code, whole.code):
        assert same_code(mine, theirs), mine
        assert parts.sites_of(mine) == whole.sites_of(theirs), mine


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_parts_compile_what_the_whole_file_compiles(case):
    if not case.min_version <= sys.version_info[:2] <= case.max_version:
        pytest.skip(f"for Python {case.min_version} to {case.max_version}")
    source = textwrap.dedent(case.source)
    probes, _ = parse_markers(source)
    whole = instrument_source(source, "/virtual/case.py", probes)
    parts = segments.instrument_parts(source.encode(), "/virtual/case.py", probes,
                                      plain_of(source, "/virtual/case.py"))
    if parts is not None:
        assert_same_module(whole, parts)


# (module, which half of its statements): a few thousand statements in all, so the test
# stays a few seconds a Python. argparse and json.decoder call attributes of modules they
# import (compiled as function calls on 3.11+), threading has definitions under a
# module-level try.
STDLIB_CASES = [("argparse", 0), ("json.decoder", 0), ("json.decoder", 1), ("threading", 0),
                ("threading", 1), ("dataclasses", 1), ("asyncio.tasks", 0)]


def statements_in_definitions(source: bytes) -> list[int]:
    """Lines starting a statement inside a module-level function or class (not their
    own def or class lines, which run with the module)."""
    lines: set[int] = set()
    for top in ast.parse(source).body:
        if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for node in ast.walk(top):
                if isinstance(node, ast.stmt) and node.lineno > top.lineno:
                    lines.add(node.lineno)
    return sorted(lines)


@pytest.mark.parametrize(("name", "share"), STDLIB_CASES)
def test_parts_of_standard_library_modules_are_the_whole_compile(name, share):
    origin = importlib.util.find_spec(name).origin
    with open(origin, "rb") as file:
        source = file.read()
    lines = statements_in_definitions(source)[share::2]
    probes = {line: Probe(1000 + number, None if number % 2 else "len(str(1)) < 0")
              for number, line in enumerate(lines)}
    whole = instrument_source(source, origin, probes)
    parts = segments.instrument_parts(source, origin, probes, plain_of(source, origin))
    assert parts is not None
    assert len(parts.accepted) > len(probes) // 2
    assert_same_module(whole, parts)


# A probe line is marked ``#@``; ``parts`` says whether segments.py takes the file.
PART_CASES = {
    "a method": (True, b"""
        import os
        class Box:
            def __init__(self, value):
                self.value = value  #@
            def get(self):
                return self.value
        """),
    "a decorated function, a lambda in its decorator": (True, b"""
        import functools
        @functools.lru_cache(maxsize=None)
        @(lambda f: f)
        def cached(n, key=lambda x: x):
            return key(n) * 2  #@
        """),
    "a function under a module-level if and try": (True, b"""
        import sys
        if sys.version_info >= (3,):
            try:
                def tell(n):
                    return n + 1  #@
            except ImportError:
                pass
        else:
            def tell(n):
                return n
        """),
    "two definitions, a class with a private name": (True, b"""
        class Secret:
            __hidden = 1
            def peek(self):
                return self.__hidden  #@
        def other():
            total = 0  #@
            return total
        """),
    "annotations from the future": (True, b"""
        from __future__ import annotations
        def typed(a: Undefined) -> AlsoUndefined:
            local: Missing = a  #@
            return local
        """),
    "a coding declaration": (True, """\
        # -*- coding: latin-1 -*-
        def accented():
            return "d\u00e9j\u00e0"  #@
        """.encode("latin-1")),
    "a string at the left margin after the last line of code": (False, b"""
        def text():
            value = 1  #@
            return '''
        at the margin
        '''
        """),
    "module-level code": (False, b"""
        def inside():
            return 1  #@
        TOTAL = inside()  #@
        """),
    "a def line": (False, b"""
        def defined():  #@
            return 1
        """),
}


@pytest.mark.parametrize("name", PART_CASES)
def test_which_files_are_compiled_in_parts(name):
    taken, text = PART_CASES[name]
    source = textwrap.dedent(text.decode("latin-1")).lstrip("\n").encode("latin-1")
    # Ids of 256 and more: 3.14 loads smaller numbers from the instruction itself, where
    # the cache's copies load every id from their constants.
    probes = {number: Probe(1000 + number, "len('x') < 0" if number % 2 else None)
              for number, line in enumerate(source.splitlines(), 1) if line.endswith(b"#@")}
    filename = f"/virtual/{name.replace(' ', '_')}.py"
    whole = instrument_source(source, filename, probes)
    parts = segments.instrument_parts(source, filename, probes, plain_of(source, filename))
    assert (parts is not None) == taken
    if parts is not None:
        assert_same_module(whole, parts)
    # The cache's front gives the whole compile's module either way.
    assert_same_module(whole, copy_cache.instrument_file(source, filename, probes))


PROGRAM = b"""\
import sys

def first(n):
    total = n * 2
    return total

class Holder:
    def second(self, n):
        value = n + 1
        return value
"""


@pytest.fixture
def compiles(monkeypatch):
    """Counts the compiles of copies (in parts or whole)."""
    counters = {}
    import dapperdbg.instrumentation.compiler as compiler

    for module, name in ((segments, "instrument_parts"), (compiler, "instrument_source")):
        counter = counters[name] = Counting(getattr(module, name))
        monkeypatch.setattr(module, name, counter)
    return lambda: sum(counter.calls for counter in counters.values())


def stand_ins(code: types.CodeType) -> list:
    return [const for each in walk_codes(code) for const in each.co_consts
            if type(const) is int and const < -(1 << 60)]


def probe_calls(module) -> list:
    """The probe ids called by running the module's code and both functions."""
    import builtins

    called = []
    previous = getattr(builtins, "__dapper_probe__", None)
    builtins.__dapper_probe__ = lambda probe_id, failed=False: called.append(probe_id)
    try:
        namespace: dict = {}
        exec(module.code, namespace)
        namespace["first"](1)
        namespace["Holder"]().second(1)
    finally:
        if previous is None:
            del builtins.__dapper_probe__
        else:
            builtins.__dapper_probe__ = previous
    return called


def test_a_second_compile_is_served_with_the_real_ids(compiles):
    first = copy_cache.instrument_file(PROGRAM, "/virtual/program.py",
                                       {4: Probe(11), 9: Probe(12, "n > 0")})
    assert compiles() == 1 and set(first.accepted) == {4, 9}
    assert probe_calls(first) == [11, 12]
    again = copy_cache.instrument_file(PROGRAM, "/virtual/program.py",
                                       {4: Probe(21), 9: Probe(22, "n > 0")})
    assert compiles() == 1  # Served.
    assert probe_calls(again) == [21, 22]
    assert stand_ins(again.code) == [] and stand_ins(first.code) == []
    # The same copies but for the ids in their constants, and the same sites.
    for mine, theirs in walk_pairs(again.code, first.code):
        assert mine.co_code == theirs.co_code and again.sites_of(mine) == first.sites_of(theirs)
    # What the registry and the live swap read of the module.
    assert again.pairs and again.original_of(again.code) == compile(
        PROGRAM, "/virtual/program.py", "exec", dont_inherit=True)


@pytest.mark.parametrize("change", ["text", "condition", "lines", "compiler"])
def test_what_changed_is_never_served_from_the_cache(compiles, monkeypatch, change):
    probes = {4: Probe(1001), 9: Probe(1002, "n > 0")}
    copy_cache.instrument_file(PROGRAM, "/virtual/program.py", probes)
    source = PROGRAM
    if change == "text":  # Same size, same everything but one character.
        source = PROGRAM.replace(b"n * 2", b"n * 3")
    elif change == "condition":
        probes = {4: Probe(1001), 9: Probe(1002, "n > 1")}
    elif change == "lines":
        probes = {4: Probe(1001), 10: Probe(1002, "n > 0")}
    else:
        monkeypatch.setattr("dapperdbg.instrumentation.plain_code._version", b"another")
    module = copy_cache.instrument_file(source, "/virtual/program.py", probes)
    assert compiles() == 2
    assert_same_module(instrument_source(source, "/virtual/program.py", probes), module)


WRONG_ENTRIES = {
    "cut short": None,
    "a site past the code": (compile("x = 1", "/virtual/program.py", "exec"),
                             ((99, (), (), ()),), (), {}),
    "a line without a probe": (compile("x = 1", "/virtual/program.py", "exec"), (), (7,), {}),
    "no tuple": ["code", (), (), {}],
}


@pytest.mark.parametrize("wrong", WRONG_ENTRIES)
def test_a_broken_entry_is_a_miss(compiles, fresh_cache, monkeypatch, wrong):
    probes = {4: Probe(1)}
    copy_cache.instrument_file(PROGRAM, "/virtual/program.py", probes)
    if WRONG_ENTRIES[wrong] is None:
        folder = fresh_cache / f"copies-{sys.implementation.cache_tag}"
        [entry] = [entry for entry in os.scandir(folder) if "program" in entry.name]
        with open(entry.path, "r+b") as file:
            file.truncate(os.path.getsize(entry.path) - 40)
    else:
        monkeypatch.setattr(code_cache, "load", lambda *arguments: WRONG_ENTRIES[wrong])
    module = copy_cache.instrument_file(PROGRAM, "/virtual/program.py", probes)
    assert compiles() == 2 and probe_calls(module) == [1]


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="folder permissions are POSIX")
def test_a_folder_others_may_write_to_is_not_used(compiles, fresh_cache):
    folder = fresh_cache / f"copies-{sys.implementation.cache_tag}"
    folder.mkdir(parents=True)
    folder.chmod(0o777)
    for _ in range(2):
        copy_cache.instrument_file(PROGRAM, "/virtual/program.py", {4: Probe(1)})
    assert compiles() == 2 and list(folder.iterdir()) == []
    assert code_cache.folder_for("copies") is None


def write_module(folder, source: bytes, invalidation=py_compile.PycInvalidationMode.TIMESTAMP):
    path = folder / "pyc_case.py"
    path.write_bytes(source)
    py_compile.compile(str(path), doraise=True, invalidation_mode=invalidation)
    return str(path)


def test_a_current_pyc_is_read(tmp_path):
    path = write_module(tmp_path, PROGRAM)
    code = cached_module_code(path, PROGRAM)
    assert code is not None and code.co_filename == path
    assert same_code(code, compile(PROGRAM, path, "exec", dont_inherit=True))


def test_an_edit_within_the_pyc_s_second_keeping_the_size_is_seen(tmp_path):
    second = 1_700_000_000 * 10**9
    path = tmp_path / "pyc_case.py"
    path.write_bytes(PROGRAM)
    os.utime(path, ns=(second, second))
    py_compile.compile(str(path), doraise=True)
    cached = importlib.util.cache_from_source(str(path))
    os.utime(cached, ns=(second + 500_000_000, second + 500_000_000))
    assert cached_module_code(str(path), PROGRAM) is not None
    # Edited after the .pyc was written, within the same second, at the same size: the
    # import system's own check (whole seconds and size) would take the .pyc as current.
    edited = PROGRAM.replace(b"n * 2", b"n * 3")
    path.write_bytes(edited)
    os.utime(path, ns=(second + 700_000_000, second + 700_000_000))
    assert cached_module_code(str(path), edited) is None


def test_a_hash_based_pyc_is_read_only_for_its_source(tmp_path):
    path = write_module(tmp_path, PROGRAM, py_compile.PycInvalidationMode.UNCHECKED_HASH)
    assert cached_module_code(path, PROGRAM) is not None
    assert cached_module_code(path, PROGRAM.replace(b"n * 2", b"n * 3")) is None


def test_a_condition_is_compiled_once_across_processes(monkeypatch):
    """A process's first compile() builds the interpreter's syntax tree types (1-2 ms):
    a condition kept in the cache needs none."""
    calls = []

    def counting(*arguments, **keywords):
        calls.append(arguments[0])
        return compile(*arguments, **keywords)

    monkeypatch.setattr(code_cache, "compile", counting, raising=False)
    first = code_cache.compile_text("n > 1", "<breakpoint condition>")
    compiled = len(calls)  # Compiled, and seen to warn of nothing.
    again = code_cache.compile_text("n > 1", "<breakpoint condition>")
    assert set(calls) == {"n > 1"} and len(calls) == compiled
    assert again == first and eval(again, {"n": 2}) is True
    code_cache.compile_text("n > 2", "<breakpoint condition>")
    assert set(calls) == {"n > 1", "n > 2"}
    with pytest.raises(SyntaxError):
        code_cache.compile_text("n >", "<breakpoint condition>")
    with pytest.raises(SyntaxError):
        code_cache.compile_text("n >", "<breakpoint condition>")
    assert calls.count("n >") == 2  # An error is never kept.


def test_every_condition_of_a_session_is_kept_across_processes(monkeypatch, fresh_cache):
    """Each expression has an entry of its own: a process that gets several conditions
    (every breakpoint of the session comes to every child) compiles none of them once
    another process has. Within a process each text is read once."""
    calls = []

    def counting(*arguments, **keywords):
        calls.append(arguments[0])
        return compile(*arguments, **keywords)

    monkeypatch.setattr(code_cache, "compile", counting, raising=False)
    monkeypatch.setattr(code_cache, "_compiled", {})
    texts = ["n > 1", "n < 5", "n == 3"]
    for text in texts:
        code_cache.compile_text(text, "<breakpoint condition>")
    assert set(calls) == set(texts)
    compiled = len(calls)
    loads = []
    load = code_cache.load

    def counting_load(*arguments, **keywords):
        loads.append(arguments)
        return load(*arguments, **keywords)

    monkeypatch.setattr(code_cache, "load", counting_load)
    monkeypatch.setattr(code_cache, "_compiled", {})  # Another process.
    kept = [code_cache.compile_text(text, "<breakpoint condition>") for text in texts]
    again = [code_cache.compile_text(text, "<breakpoint condition>") for text in texts]
    assert len(calls) == compiled and [eval(code, {"n": 3}) for code in kept] == [True] * 3
    assert again == kept and len(loads) == len(texts)


def test_a_program_that_warns_as_it_compiles_is_not_kept(monkeypatch, fresh_cache):
    """Its warnings come from compiling it: a process that read it from the cache would
    not show them, where the same program run plain does each time."""
    monkeypatch.setattr(code_cache, "_compiled", {})
    with pytest.warns(SyntaxWarning):
        code_cache.compile_text("x is 1", "<string>", "exec")
    monkeypatch.setattr(code_cache, "_compiled", {})  # Another process.
    with pytest.warns(SyntaxWarning):
        code_cache.compile_text("x is 1", "<string>", "exec")


@pytest.fixture
def weighed_every_write(monkeypatch):
    monkeypatch.setattr(code_cache, "_writes_unweighed", {})
    monkeypatch.setattr(code_cache, "_WEIGH_EVERY", 0)


def test_the_cache_keeps_to_its_limits(monkeypatch, fresh_cache, weighed_every_write):
    monkeypatch.setattr(code_cache, "_MAX_ENTRIES", 8)
    monkeypatch.setattr(code_cache, "_MAX_BYTES", 10_000)
    for number in range(12):
        code_cache.store("trim", f"file{number}.py", b"key", b"x" * 100, number)
    kept = [number for number in range(12)
            if code_cache.load("trim", f"file{number}.py", b"key", b"x" * 100) == number]
    assert 6 <= len(kept) <= 8 and kept[-1] == 11  # The newest are kept.
    code_cache.store("trim", "large.py", b"key", b"y" * 9_000, "large")
    folder = code_cache.folder_for("trim")
    assert sum(os.path.getsize(os.path.join(folder, name)) for name in os.listdir(folder)) \
        <= 10_000


def _count_weighings(monkeypatch) -> list:
    weighed: list = []
    real_stat = os.stat
    monkeypatch.setattr(code_cache.os, "stat", lambda path, *a, **k: (
        weighed.append(path) if str(path).endswith(".entry") else None)
        or real_stat(path, *a, **k))
    return weighed


def test_a_process_weighs_the_cache_s_entries_now_and_then(monkeypatch, fresh_cache):
    """Counting the entries needs no stat; their sizes are read every few writes of a
    process (from where its process id starts the count: here, the first write),
    and whenever there are too many entries."""
    monkeypatch.setattr(code_cache, "_writes_unweighed", {})
    monkeypatch.setattr(code_cache, "_WEIGH_EVERY", 4)
    monkeypatch.setattr(code_cache, "_MAX_ENTRIES", 12)
    monkeypatch.setattr(code_cache, "_count_start", lambda: 4)
    weighed = _count_weighings(monkeypatch)
    counts = []
    for number in range(16):
        before = len(weighed)
        code_cache.store("weigh", f"file{number}.py", b"key", b"x", number)
        counts.append(len(weighed) - before)
    # The first write weighs; then every fifth; and the one that makes thirteen
    # entries, which trims them to nine.
    assert [count > 0 for count in counts] == [
        True, False, False, False, False, True, False, False, False, False, True,
        False, True, False, False, False]
    folder = code_cache.folder_for("weigh")
    assert len(os.listdir(folder)) <= 12


def test_processes_that_write_one_entry_each_weigh_the_cache_now_and_then(
        monkeypatch, fresh_cache):
    # A child running a script just written compiles it and writes one entry: weighing
    # the folder then (a stat an entry) cost it 5-10 ms. About one such process in
    # _WEIGH_EVERY + 1 weighs it, picked by its process id.
    monkeypatch.setattr(code_cache, "_WEIGH_EVERY", 4)
    weighed = _count_weighings(monkeypatch)
    weighings = 0
    for number in range(200):
        monkeypatch.setattr(code_cache, "_writes_unweighed", {})  # Another process,
        monkeypatch.setattr(code_cache.os, "getpid", lambda pid=1000 + number: pid)
        before = len(weighed)
        code_cache.store("once", f"script{number}.py", b"key", b"x", number)
        weighings += len(weighed) > before
    assert weighings == 40


def test_an_entry_is_served_for_the_file_s_identity_without_its_text(
        fresh_cache, monkeypatch, tmp_path):
    monkeypatch.setattr(code_cache, "_SETTLED_NS", 0)
    path = tmp_path / "module.py"
    path.write_bytes(PROGRAM)
    identity = code_cache.file_identity(os.stat(path))
    assert identity
    code_cache.store("kind", str(path), b"key", PROGRAM, "value", identity)
    assert code_cache.load("kind", str(path), b"key", identity=identity) == "value"
    assert code_cache.load("kind", str(path), b"key", PROGRAM) == "value"
    assert code_cache.load("kind", str(path), b"other key", identity=identity) is None
    # Rewritten at the same size, its modification time put back: the change time moved.
    modified = os.stat(path).st_mtime_ns
    path.write_bytes(PROGRAM.replace(b"n * 2", b"n * 3"))
    os.utime(path, ns=(modified, modified))
    assert code_cache.load("kind", str(path), b"key",
                           identity=code_cache.file_identity(os.stat(path))) is None
    # An entry stored with the text only is no answer to an identity.
    code_cache.store("kind", str(path), b"key", PROGRAM, "value")
    assert code_cache.load("kind", str(path), b"key", identity=identity) is None
    assert code_cache.load("kind", str(path), b"key", PROGRAM) == "value"


def test_a_file_changed_a_moment_ago_has_no_identity(fresh_cache, tmp_path):
    """A clock tick may be coarser than two writes: within two seconds of its last
    change a file is served by its text only."""
    path = tmp_path / "module.py"
    path.write_bytes(PROGRAM)
    assert code_cache.file_identity(os.stat(path)) == b""
    code_cache.store("kind", str(path), b"key", PROGRAM, "value", b"")
    assert code_cache.load("kind", str(path), b"key", identity=b"") is None
    assert code_cache.load("kind", str(path), b"key", PROGRAM) == "value"


@pytest.mark.parametrize("settled", [True, False])
def test_the_compiler_s_version_follows_its_files(monkeypatch, tmp_path, settled):
    """By the files' identities once they settled, else by their text: either way an
    edit of the compiler's files is a new version, so no entry of the old is served."""
    from dapperdbg.instrumentation import plain_code

    if settled:
        monkeypatch.setattr(code_cache, "_SETTLED_NS", 0)
    compiler = tmp_path / "compiler.py"
    compiler.write_text("def compile(): return 1\n")
    monkeypatch.setattr(plain_code, "_COMPILER_FILES", (str(compiler),))
    versions = []
    for text in ("def compile(): return 1\n", "def compile(): return 2\n"):
        compiler.write_text(text)
        monkeypatch.setattr(plain_code, "_version", None)
        versions.append(plain_code.compiler_version())
    monkeypatch.setattr(plain_code, "_version", None)
    assert versions[0] != versions[1] and plain_code.compiler_version() == versions[1]

