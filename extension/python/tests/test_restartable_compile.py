"""Which functions a restartable compile (instrumentation/restartable.py) gives the restart
handler, wherever they are defined, and a module without functions: compiled and loaded
as plain, without the syntax tree's round trip or an entry in the debugger's cache; and
the loader that serves the user's imports restartable from that cache
(instrumentation/restart_loading.py)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import pathlib
import py_compile
import sys
import textwrap
import types

import pytest

from dapperdbg.common import code_cache
from dapperdbg.common.paths import canonical_path
from dapperdbg.instrumentation import restart_loading
from dapperdbg.instrumentation.restartable import compile_restartable
from dapperdbg.instrumentation.restarts import is_restartable

EVERYWHERE = '''
import contextlib

FLAG = True

if FLAG:
    def in_if():
        return 1
else:
    def in_else():
        return 2

try:
    def in_try():
        return 3
except ImportError:
    def in_except():
        return 4
finally:
    def in_finally():
        return 5

with contextlib.nullcontext():
    def in_with():
        return 6

for _ in range(1):
    def in_for():
        return 7

while not FLAG:
    def in_while():
        return 8

class Outer:
    class Inner:
        def method(self):
            return 9

    @staticmethod
    def decorated(key=lambda item: item):
        def nested():
            return 10
        return nested

    async def coroutine(self):
        return 11

    def generator(self):
        yield 12

TABLE = {"key": [(lambda: 13), {"deep": (1, 2, 3)}]}
'''
EVERYWHERE_RESTARTABLE = {"in_if", "in_else", "in_try", "in_except", "in_finally", "in_with",
                          "in_for", "in_while", "method", "decorated", "nested", "coroutine"}

MATCH = '''
match 1:
    case 1:
        def in_case():
            return 1
'''

# Functions that numba compiles from their bytecode (it refuses the handler's re-raise and
# its call): every way numba's documentation shows of handing it one, the names imported
# or reached through the module, with and without options. Each stays plain, and so does
# every function defined inside it (an overload's implementation is numba's too) or in a
# class numba compiles.
JIT_COMPILED = '''
import numba
from numba import njit, vectorize, cfunc
from numba.experimental import jitclass
from numba.extending import overload, register_jitable

@njit
def bare():
    return 1

@numba.njit(cache=True)
def with_options(x):
    return x

@numba.jit(nopython=True)
def jitted(x):
    return x

@vectorize(["float64(float64)"])
def elementwise(x):
    return x * 2

@cfunc("float64(float64)")
def callback(x):
    return x

@numba.stencil
def kernel(a):
    return a[0, 1]

@numba.cuda.jit
def on_device(a):
    pass

@register_jitable
def shared(x):
    return x

@overload(len)
def typing_of(x):
    def implementation(x):
        return 0
    return implementation

@jitclass([("value", numba.float64)])
class Counter:
    def __init__(self, value):
        self.value = value

    def bump(self):
        return self.value + 1

def by_call(x):
    return x

fast = njit(by_call)

def by_call_with_options(x):
    return x

faster = numba.jit(nopython=True)(by_call_with_options)

def factory():
    def inner(x):
        return x
    return njit(inner)

def stays(x):
    return x

class Plain:
    @staticmethod
    def method(x):
        return x
'''
JIT_COMPILED_RESTARTABLE = {"factory", "stays", "method"}

# ``numba.jit_module`` compiles every function of the module it is called in.
JIT_MODULE = '''
import numba

def first(x):
    return x

def second(x):
    return first(x)

numba.jit_module(nopython=True)
'''


def _functions(code: types.CodeType):
    for const in code.co_consts:
        if type(const) is types.CodeType:
            yield const
            yield from _functions(const)


@pytest.mark.parametrize("source, expected", [
    (EVERYWHERE, EVERYWHERE_RESTARTABLE),
    pytest.param(MATCH, {"in_case"}, marks=pytest.mark.skipif(
        sys.version_info < (3, 10), reason="match is 3.10+")),
    (JIT_COMPILED, JIT_COMPILED_RESTARTABLE),
    (JIT_MODULE, set()),
])
def test_every_function_of_a_module_is_restartable_wherever_it_is_defined(source, expected):
    code = compile_restartable(textwrap.dedent(source), "<case>")
    restartable = {function.co_name for function in _functions(code)
                   if is_restartable(function)}
    assert restartable == expected


@pytest.mark.parametrize("source", [
    # Data: the restartable compile is the plain one.
    "TABLE = {\n" + "".join(f"    'key{i}': ({i}, 'value {i}'),\n" for i in range(200)) + "}\n",
    # The letters of ``def`` in a word: the whole rewrite runs, and finds nothing.
    "DEFAULTS = {'undefined': 'default'}\nSIZE = len(DEFAULTS)\n",
])
def test_a_module_without_functions_compiles_as_plain(source):
    assert compile_restartable(source, "<case>") == compile(source, "<case>", "exec",
                                                             dont_inherit=True)


@pytest.fixture
def fresh_cache(monkeypatch, tmp_path):
    """The debugger's code cache in a folder of the test's own."""
    monkeypatch.setenv("DAPPER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(code_cache, "_folders", {})
    return tmp_path / "cache"


def test_a_module_without_functions_is_loaded_as_plain(fresh_cache, monkeypatch, tmp_path):
    """Its .pyc read or written as plain, nothing kept in the debugger's cache, and the
    file counted as loaded restartable (a function added by a hot reload is)."""
    monkeypatch.setattr(code_cache, "_SETTLED_NS", 0)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "table_case.py"
    path.write_text("TABLE = {'a': 1, 'b': 2}\n")
    loader = importlib.machinery.SourceFileLoader("table_case", str(path))
    loaded = []
    restart_loading.enable(canonical_path, loaded.append)
    try:
        codes = [loader.get_code("table_case") for _ in range(2)]
    finally:
        restart_loading.disable()
    assert codes[0] == codes[1] == compile(path.read_bytes(), str(path), "exec",
                                           dont_inherit=True)
    with open(importlib.util.cache_from_source(str(path)), "rb") as pyc:
        assert pyc.read(4) == importlib.util.MAGIC_NUMBER
    assert loaded == [str(path.resolve())] * 2
    folder = code_cache.folder_for("restartable")
    assert folder is None or not any(name.startswith("table_case")
                                     for name in os.listdir(folder))


def test_a_module_without_functions_is_compiled_once_where_no_pyc_is_written(
        fresh_cache, monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    path = tmp_path / "table_once.py"
    path.write_text("TABLE = {'a': 1, 'b': 2}\n")
    loader = importlib.machinery.SourceFileLoader("table_once", str(path))
    compiles = []
    original = loader.source_to_code
    monkeypatch.setattr(loader, "source_to_code",
                        lambda *args, **keywords: compiles.append(1) or original(*args, **keywords))
    restart_loading.enable(canonical_path, lambda canonical: None)
    try:
        code = loader.get_code("table_once")
    finally:
        restart_loading.disable()
    assert code == compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
    assert len(compiles) == 1
    assert not os.path.exists(importlib.util.cache_from_source(str(path)))


def test_an_import_reads_the_source_only_when_the_identity_finds_nothing(
        fresh_cache, monkeypatch, tmp_path):
    monkeypatch.setattr(code_cache, "_SETTLED_NS", 0)
    path = tmp_path / "restart_case.py"
    path.write_bytes(b"def f(a):\n    return a * 2\n")
    py_compile.compile(str(path), doraise=True)  # A current .pyc: plain, only it is read.
    read = []
    loader = importlib.machinery.SourceFileLoader("restart_case", str(path))
    original_get_data = loader.get_data
    monkeypatch.setattr(loader, "get_data", lambda name: read.append(name) or
                        original_get_data(name))
    restart_loading.enable(canonical_path, lambda canonical: None)
    try:
        codes = [loader.get_code("restart_case") for _ in range(2)]
        first_reads = [name for name in read if name.endswith(".py")]
        # Rewritten: its identity changed, so the source is read and compiled again.
        path.write_bytes(b"def f(a):\n    return a * 3\n")
        changed = loader.get_code("restart_case")
    finally:
        restart_loading.disable()
    assert first_reads == [str(path)]  # Only the first import read the source.
    assert codes[0] == codes[1] and is_restartable(codes[0].co_consts[0])
    namespace: dict = {}
    exec(changed, namespace)
    assert namespace["f"](2) == 6


def test_a_pyc_gone_or_stale_after_a_cached_import_is_written_again(
        fresh_cache, monkeypatch, tmp_path):
    """A plain import writes the module's .pyc when it is missing or does not match the
    source; an import served from the cache does the same, however the .pyc changed
    since the import that cached it."""
    monkeypatch.setattr(code_cache, "_SETTLED_NS", 0)
    path = tmp_path / "pyc_case.py"
    path.write_bytes(b"def f(a):\n    return a * 2\n")
    pyc = pathlib.Path(importlib.util.cache_from_source(str(path)))
    loader = importlib.machinery.SourceFileLoader("pyc_case", str(path))
    restart_loading.enable(canonical_path, lambda canonical: None)
    try:
        for _ in range(2):  # The second is served by the identities.
            assert is_restartable(loader.get_code("pyc_case").co_consts[0])
        written = pyc.read_bytes()
        pyc.unlink()
        assert is_restartable(loader.get_code("pyc_case").co_consts[0])
        assert pyc.read_bytes() == written
        # Stale: the source's modification time it records is another one.
        with open(pyc, "r+b") as file:
            file.seek(8)
            file.write(b"\0\0\0\0")
        assert is_restartable(loader.get_code("pyc_case").co_consts[0])
        assert pyc.read_bytes() == written
    finally:
        restart_loading.disable()
