"""Instrumenting code that is already loaded or loaded later: swapping live functions'
code for copies and back, refusing an edited file, reporting frames that keep running
old code, and the import finder and main-program compile.

Each test writes a small module into a fresh directory, imports it under a unique name
and drives ``Instrumentation`` as the debugger will.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import importlib.machinery
import io
import itertools
import sys
import textwrap
import threading
import types
from pathlib import Path

import pytest

from dapperdbg.instrumentation import Instrumentation, Probe, instrument_source, set_probe_handler

_counter = itertools.count()

SOURCE = """\
import functools

def plain(n):
    doubled = n * 2
    return doubled

class Shape:
    def __init__(self, size):
        self.size = size

    def area(self):
        result = self.size ** 2
        return result

    @staticmethod
    def kind():
        label = "shape"
        return label

    @classmethod
    def unit(cls):
        made = cls(1)
        return made

def make_adder(base):
    def add(value):
        total = base + value
        return total
    return add

def logged(function):
    @functools.wraps(function)
    def wrapper(*args):
        return function(*args)
    return wrapper

@logged
def decorated(n):
    answer = n + 1
    return answer

def counter(limit):
    for i in range(limit):
        step = i
        yield step

async def fetch(n):
    got = n
    return got

square = lambda x: x * x

add_five = make_adder(5)
"""


def line_of(source: str, text: str) -> int:
    """The 1-based line of the first line containing ``text``."""
    for number, line in enumerate(source.splitlines(), 1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} not in source")


class Hits:
    def __init__(self) -> None:
        self.seen: list = []

    def __call__(self, probe_id, frame, error) -> None:
        self.seen.append((probe_id, frame.f_code.co_name, frame.f_lineno,
                          type(error).__name__ if error else None))

    def take(self) -> list:
        seen, self.seen = self.seen, []
        return seen


@pytest.fixture
def hits():
    recorder = Hits()
    set_probe_handler(recorder)
    yield recorder
    set_probe_handler(None)


@pytest.fixture
def workspace(tmp_path):
    """Writes and imports modules under unique names; cleans up sys.path and modules."""
    names: list[str] = []
    sys.path.insert(0, str(tmp_path))
    instrumentation = Instrumentation()

    class Workspace:
        directory = tmp_path
        instr = instrumentation

        def write(self, source: str) -> tuple[str, Path]:
            name = f"instr_case_{next(_counter)}"
            path = tmp_path / f"{name}.py"
            path.write_text(source)
            names.append(name)
            return name, path

        def load(self, source: str):
            name, path = self.write(source)
            return importlib.import_module(name), path

    yield Workspace()
    instrumentation.uninstall()
    sys.path.remove(str(tmp_path))
    for name in names:
        sys.modules.pop(name, None)


def exercise(module) -> list:
    """Call everything the module defines; the results must not depend on probes."""
    import asyncio

    return [
        module.plain(3), module.Shape(4).area(), module.Shape.kind(),
        module.Shape.unit().size, module.make_adder(1)(2), module.add_five(1),
        module.decorated(6), list(module.counter(3)), asyncio.run(module.fetch(7)),
        module.square(5),
    ]


# Per set: (marker text, condition) per probe, whose id is its position + 1, and the
# ids ``exercise`` hits (each at least once).
PROBE_SETS = {
    "unconditional everywhere": ([
        ("doubled = n * 2", None), ("result = self.size", None), ('label = "shape"', None),
        ("made = cls(1)", None), ("total = base + value", None), ("answer = n + 1", None),
        ("step = i", None), ("got = n", None),
    ], {1, 2, 3, 4, 5, 6, 7, 8}),
    "conditions": ([
        ("doubled = n * 2", "n == 3"), ("result = self.size", "self.size > 100"),
        ("total = base + value", "base == 5"), ("step = i", "i % 2 == 0"),
        ("answer = n + 1", "missing_name"),
    ], {1, 3, 4, 5}),
}


@pytest.mark.parametrize("probe_set", sorted(PROBE_SETS))
def test_swap_then_restore(workspace, hits, probe_set):
    module, path = workspace.load(SOURCE)
    expected = exercise(module)
    functions = [module.plain, module.Shape.area, module.Shape.kind, module.add_five,
                 module.decorated.__wrapped__, module.counter, module.fetch, module.square]
    originals = [function.__code__ for function in functions]
    spec, expected_ids = PROBE_SETS[probe_set]
    probes = {line_of(SOURCE, text): Probe(number, condition)
              for number, (text, condition) in enumerate(spec, 1)}

    result = workspace.instr.set_probes(str(path), probes)
    assert result.error is None and result.refused == {}
    assert set(result.accepted) == set(probes)
    assert result.functions_swapped > 0
    assert module.square.__code__ is originals[-1]  # No probe in it: left alone.
    assert exercise(module) == expected
    seen = hits.take()
    assert {hit[0] for hit in seen} == expected_ids
    for probe_id, _, line, error in seen:
        assert probes[line].probe_id == probe_id
        assert (error == "NameError") == (probes[line].condition == "missing_name")
    # The registry knows each copy, its original and its probe lines.
    registry = workspace.instr.registry
    for function, original in zip(functions[:-1], originals[:-1]):
        copy = function.__code__
        info = registry.info_for_copy(copy)
        if info is None:
            continue  # A function whose lines got no probe in this set.
        assert info.original is original and registry.original_of(copy) is original
        assert registry.copy_of(original) is copy
        assert info.probe_lines <= set(probes)

    restored = workspace.instr.set_probes(str(path), {})
    assert restored.functions_swapped == result.functions_swapped
    assert [function.__code__ for function in functions] == originals
    assert all(a is b for a, b in zip((f.__code__ for f in functions), originals))
    assert registry.copies == {} and registry.files() == ()
    assert exercise(module) == expected
    assert hits.take() == []


def test_closures_created_after_the_swap_run_the_copy_and_are_restored(workspace, hits):
    module, path = workspace.load(SOURCE)
    line = line_of(SOURCE, "total = base + value")
    workspace.instr.set_probes(str(path), {line: Probe(1)})
    fresh = module.make_adder(10)
    assert fresh(1) == 11
    assert hits.take() == [(1, "add", line, None)]
    workspace.instr.set_probes(str(path), {})
    assert fresh(1) == 11 and hits.take() == []
    assert fresh.__code__ is module.add_five.__code__


def test_changing_probes_moves_functions_to_the_new_copy(workspace, hits):
    module, path = workspace.load(SOURCE)
    first = line_of(SOURCE, "doubled = n * 2")
    second = line_of(SOURCE, "result = self.size")
    original = module.plain.__code__
    workspace.instr.set_probes(str(path), {first: Probe(1)})
    module.plain(1)
    module.Shape(2).area()
    assert hits.take() == [(1, "plain", first, None)]
    workspace.instr.set_probes(str(path), {second: Probe(2, "self.size == 2")})
    assert module.plain.__code__ is original
    module.plain(1)
    module.Shape(2).area()
    module.Shape(3).area()
    assert hits.take() == [(2, "area", second, None)]
    assert workspace.instr.registry.probe_lines(module.Shape.area.__code__) == {second}


def test_an_edited_file_is_refused_and_left_to_the_tracer(workspace, hits):
    module, path = workspace.load(SOURCE)
    line = line_of(SOURCE, "doubled = n * 2")
    path.write_text(SOURCE.replace("doubled = n * 2", "doubled = n * 3"))
    original = module.plain.__code__
    result = workspace.instr.set_probes(str(path), {line: Probe(1)})
    assert result.error is not None and "changed since it was loaded" in result.error
    assert result.refused == {line: result.error} and result.accepted == {}
    assert module.plain.__code__ is original and module.plain(2) == 4
    assert hits.take() == []
    # Nor is the refused probe compiled into a later import of the file.
    assert workspace.instr.finder.probes_for(result.canonical) == {}


def test_a_file_edited_after_instrumenting_is_restored_on_the_next_change(workspace, hits):
    module, path = workspace.load(SOURCE)
    line = line_of(SOURCE, "doubled = n * 2")
    original = module.plain.__code__
    assert workspace.instr.set_probes(str(path), {line: Probe(1)}).error is None
    path.write_text("\n" + SOURCE)  # Every line moves down.
    result = workspace.instr.set_probes(str(path), {line + 1: Probe(1)})
    assert "changed since it was loaded" in result.error
    assert module.plain.__code__ is original
    module.plain(1)
    assert hits.take() == []


def test_frames_running_old_code_are_reported(workspace, hits):
    module, path = workspace.load(SOURCE + textwrap.dedent("""
        def blocking(started, release):
            started.set()
            release.wait()
            after = 1
            return after
        """))
    source = path.read_text()
    suspended = module.counter(5)
    next(suspended)  # Paused at its yield, in the original code.
    started, release = threading.Event(), threading.Event()
    thread = threading.Thread(target=module.blocking, args=(started, release))
    thread.start()
    try:
        started.wait(5)
        result = workspace.instr.set_probes(str(path), {
            line_of(source, "step = i"): Probe(1), line_of(source, "after = 1"): Probe(2),
        })
        names = sorted(frame.f_code.co_name for frame in result.stale_frames)
        assert names == ["blocking", "counter"]
    finally:
        release.set()
        thread.join(5)
    # The thread and the suspended generator went on in the old code: no probe ran,
    # as reported. New calls run the copies.
    assert next(suspended) == 1
    assert hits.take() == []
    assert list(module.counter(1)) == [0] and [hit[0] for hit in hits.take()] == [1]


def test_files_with_equal_code_are_told_apart(workspace, hits):
    first, first_path = workspace.load(SOURCE)
    second, _ = workspace.load(SOURCE)
    assert first.plain.__code__ == second.plain.__code__  # Equal, not identical.
    line = line_of(SOURCE, "doubled = n * 2")
    workspace.instr.set_probes(str(first_path), {line: Probe(1)})
    second.plain(1)
    assert hits.take() == []
    assert workspace.instr.registry.info_for_copy(second.plain.__code__) is None
    first.plain(1)
    assert hits.take() == [(1, "plain", line, None)]


def test_functions_with_their_own_builtins_keep_their_code(workspace, hits):
    module, path = workspace.load(SOURCE)
    # Functions made from now on resolve builtins through this dict, which has no
    # __dapper_probe__ (3.9 reads it from the globals at each call: all functions).
    module.__builtins__ = dict(builtins.__dict__)
    own = module.make_adder(3)
    before = own.__code__
    line = line_of(SOURCE, "total = base + value")
    result = workspace.instr.set_probes(str(path), {line: Probe(1)})
    assert own.__code__ is before
    assert any("builtins of its own" in warning for warning in result.warnings)
    assert own(2) == 5 and hits.take() == []


def test_functions_outside_the_files_modules_are_not_found(workspace, hits):
    module, path = workspace.load(SOURCE)
    elsewhere = types.FunctionType(module.plain.__code__, {"__builtins__": builtins}, "x")
    line = line_of(SOURCE, "doubled = n * 2")
    workspace.instr.set_probes(str(path), {line: Probe(1)})
    assert elsewhere.__code__ is not module.plain.__code__
    assert elsewhere(2) == 4 and hits.take() == []


def test_the_debuggers_own_code_is_never_instrumented(hits):
    from dapperdbg.instrumentation import probes

    instrumentation = Instrumentation()
    result = instrumentation.set_probes(probes.__file__, {1: Probe(1)})
    assert "debugger's own code" in result.error
    assert instrumentation.registry.files() == ()


def test_refused_lines_do_not_stop_the_others(workspace, hits):
    module, path = workspace.load(SOURCE)
    loop = line_of(SOURCE, "for i in range(limit)")
    body = line_of(SOURCE, "step = i")
    result = workspace.instr.set_probes(str(path), {loop: Probe(1), body: Probe(2)})
    assert "loop header" in result.refused[loop] and set(result.accepted) == {body}
    assert list(module.counter(2)) == [0, 1]
    assert [hit[0] for hit in hits.take()] == [2, 2]


def test_finder_instruments_a_later_import_without_touching_the_cache(workspace, hits):
    name, path = workspace.write(SOURCE)
    line = line_of(SOURCE, "doubled = n * 2")
    workspace.instr.install()
    workspace.instr.set_probes(str(path), {line: Probe(1, "n > 1")})
    module = importlib.import_module(name)
    assert module.plain(1) == 2 and module.plain(2) == 4
    assert hits.take() == [(1, "plain", line, None)]
    assert not (path.parent / "__pycache__").exists()
    registry = workspace.instr.registry
    assert registry.probe_lines(module.plain.__code__) == {line}
    # Removing the probes restores the plain compile's code.
    workspace.instr.set_probes(str(path), {})
    assert registry.info_for_copy(module.plain.__code__) is None
    module.plain(5)
    assert hits.take() == []


def test_probes_for_a_file_not_imported_wait_for_its_import(workspace, hits, monkeypatch,
                                                             tmp_path):
    # A child process gets every breakpoint of the session: a file it has not imported
    # is not read until it is (and never, if it is not), once its copies for those
    # probes are kept; until then they are made at once, so that the import never needs
    # the compiler (whose modules may be the very one being imported).
    monkeypatch.setenv("DAPPER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("dapperdbg.common.code_cache._folders", {})
    name, path = workspace.write(SOURCE)
    line = line_of(SOURCE, "doubled = n * 2")
    workspace.instr.install()
    opened = []
    real_open_code = io.open_code
    monkeypatch.setattr(io, "open_code", lambda file: opened.append(str(file))
                        or real_open_code(file))
    workspace.instr.set_probes(str(path), {line: Probe(1, None)})
    assert opened.count(str(path)) == 1  # Nothing kept yet: copied now.
    workspace.instr.set_probes(str(path), {})
    result = workspace.instr.set_probes(str(path), {line: Probe(2, None)})
    assert opened.count(str(path)) == 1 and not result.error and not result.refused
    module = importlib.import_module(name)
    assert module.plain(2) == 4
    assert hits.take() == [(2, "plain", line, None)]


def test_a_module_loaded_through_a_link_of_another_name_is_instrumented_live(
        workspace, hits, monkeypatch, tmp_path):
    # Breakpoints in a file no module has loaded wait for its import (the test above);
    # so whether a module has loaded it must see through a link whose name differs.
    monkeypatch.setenv("DAPPER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("dapperdbg.common.code_cache._folders", {})
    real = tmp_path / "elsewhere" / "real_module.py"
    real.parent.mkdir()
    real.write_text(SOURCE)
    line = line_of(SOURCE, "doubled = n * 2")
    workspace.instr.install()
    workspace.instr.set_probes(str(real), {line: Probe(1, None)})  # Copies kept.
    workspace.instr.set_probes(str(real), {})
    name, link = workspace.write("")
    link.unlink()
    link.symlink_to(real)
    module = importlib.import_module(name)
    assert module.plain(2) == 4 and hits.take() == []
    result = workspace.instr.set_probes(str(real), {line: Probe(2, None)})
    assert not result.error and result.functions_swapped > 0
    assert module.plain(2) == 4
    assert hits.take() == [(2, "plain", line, None)]


def test_finder_leaves_other_modules_to_the_import_system(workspace, hits):
    name, path = workspace.write(SOURCE)
    other_name, other_path = workspace.write("VALUE = 1\n")
    workspace.instr.install()
    workspace.instr.set_probes(str(path), {1: Probe(1)})
    finder = workspace.instr.finder
    assert finder.find_spec(other_name, None) is None
    assert finder.find_spec("json", None) is None
    spec = finder.find_spec(name, None)
    assert spec is not None and type(spec.loader).__name__ == "InstrumentingLoader"
    module = importlib.import_module(other_name)
    assert type(module.__loader__) is importlib.machinery.SourceFileLoader


def test_the_finder_joins_sys_meta_path_with_the_first_probes_before_path_finder(workspace):
    # A session whose program never gets a line breakpoint leaves sys.meta_path as it is.
    finder = workspace.instr.finder
    before = list(sys.meta_path)
    workspace.instr.install()
    assert sys.meta_path == before
    _, path = workspace.write("x = 1\n")
    workspace.instr.set_probes(str(path), {1: Probe(1)})
    workspace.instr.set_probes(str(path), {1: Probe(2)})
    workspace.instr.install()
    assert sum(entry is finder for entry in sys.meta_path) == 1
    position = sys.meta_path.index(finder)
    assert sys.meta_path[position + 1] is importlib.machinery.PathFinder
    workspace.instr.uninstall()
    finder.uninstall()
    assert sys.meta_path == before


def test_a_syntax_error_still_fails_the_import_as_usual(workspace):
    name, path = workspace.write("def broken(:\n    pass\n")
    workspace.instr.install()
    workspace.instr.set_probes(str(path), {2: Probe(1)})
    with pytest.raises(SyntaxError):
        importlib.import_module(name)


def test_compile_program_runs_the_main_program_instrumented(workspace, hits):
    source = "total = 0\nfor i in range(4):\n    total += i\nresult = total\n"
    _, path = workspace.write(source)
    module = workspace.instr.compile_program(source, str(path), {
        3: Probe(1, "i == 2"), 4: Probe(2), 2: Probe(3)})
    assert "loop header" in module.refused[2]
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    exec(module.code, namespace)
    assert namespace["result"] == 6
    assert [hit[:3] for hit in hits.take()] == [(1, "<module>", 3), (2, "<module>", 4)]
    assert workspace.instr.registry.probe_lines(module.code) == {3, 4}


def test_a_keyboard_interrupt_in_a_condition_reaches_the_program(hits):
    source = textwrap.dedent("""\
        def interrupt():
            raise KeyboardInterrupt

        def f():
            try:
                x = 1
            except KeyboardInterrupt:
                return "interrupted"
            return x
        """)
    module = instrument_source(source, "/virtual/interrupt.py", {6: Probe(1, "interrupt()")})
    namespace: dict = {}
    exec(module.code, namespace)
    assert namespace["f"]() == "interrupted"
    assert hits.take() == []


def test_probe_handler_errors_are_reported_not_raised(capsys):
    def broken(probe_id, frame, error):
        raise RuntimeError("handler bug")

    module = instrument_source("def f():\n    x = 1\n    return x\n", "/virtual/h.py",
                               {2: Probe(1)})
    namespace: dict = {}
    exec(module.code, namespace)
    set_probe_handler(broken)
    try:
        assert namespace["f"]() == 1
    finally:
        set_probe_handler(None)
    assert "handler bug" in capsys.readouterr().err


def test_decorated_wrappers_are_found_through_gc(workspace, hits):
    module, path = workspace.load(SOURCE)
    line = line_of(SOURCE, "answer = n + 1")
    held = functools.partial(module.decorated, 1)  # Reached only through the wrapper.
    workspace.instr.set_probes(str(path), {line: Probe(1)})
    assert held() == 2
    assert hits.take() == [(1, "decorated", line, None)]


def test_copies_are_restored_even_after_the_module_left_sys_modules(workspace, hits):
    module, path = workspace.load(SOURCE)
    original = module.plain.__code__
    workspace.instr.set_probes(str(path), {line_of(SOURCE, "doubled = n * 2"): Probe(1)})
    sys.modules.pop(module.__name__)
    workspace.instr.set_probes(str(path), {})
    assert module.plain.__code__ is original


def test_uninstall_restores_every_file_and_leaves_imports_alone(workspace, hits):
    first, first_path = workspace.load(SOURCE)
    second, second_path = workspace.load(SOURCE)
    originals = [first.plain.__code__, second.Shape.area.__code__]
    workspace.instr.install()
    workspace.instr.set_probes(str(first_path), {line_of(SOURCE, "doubled = n * 2"): Probe(1)})
    workspace.instr.set_probes(str(second_path),
                               {line_of(SOURCE, "result = self.size"): Probe(2)})
    workspace.instr.uninstall()
    assert first.plain.__code__ is originals[0]
    assert second.Shape.area.__code__ is originals[1]
    assert all(entry is not workspace.instr.finder for entry in sys.meta_path)
    assert workspace.instr.finder.files() == () and workspace.instr.registry.files() == ()
    first.plain(1)
    second.Shape(1).area()
    assert hits.take() == []
