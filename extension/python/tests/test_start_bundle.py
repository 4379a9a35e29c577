"""The start bundle (common/start_bundle.py): the launcher's start-up imports come from one
file of bytecode, written by a start that found it missing or stale, and never from a
bundle that no longer matches the package's sources; once a start has recorded the order
they load in, the next ones run them in that order past the import system. Each scenario
is a series of launches of a copy of the package, with what is done to it before each,
and where a start-up module came from each time."""

from __future__ import annotations

import json
import marshal
import shutil
import sys

import pytest

from conftest import PACKAGE_DIR
from dapperdbg.common.start_bundle import SESSION, START, bundle_path

# Prints how the launcher's start imported one of its modules, and what the import system
# left of it.
PROGRAM = """
import json, sys
bundle = sys.modules["dapperdbg.common.start_bundle"]
module = sys.modules["dapperdbg.session.threads"]
package = sys.modules["dapperdbg.session"]
loader = module.__spec__.loader
print(json.dumps({
    "loader": type(loader).__name__,
    "preloaded": module.__name__ in bundle.loaded_at[bundle.SESSION],
    "boot preloaded": "dapperdbg.launcher.launch" in bundle.loaded_at[bundle.BOOT],
    "edited": getattr(module, "EDITED", None),
    "source matches": loader.get_source(module.__name__) == open(module.__file__).read(),
    "attributes": [module.__file__, module.__spec__.cached, getattr(module, "__cached__", None),
                   module.__spec__.origin,
                   module.__spec__.parent, module.__loader__ is loader,
                   package.__path__, package.__spec__.submodule_search_locations,
                   package.__file__],
    "finders": [type(finder).__name__ for finder in sys.meta_path],
    "launcher": type(sys.modules["dapperdbg.launcher.launch"].__spec__.loader).__name__,
    "packages preloaded": [name in bundle.loaded_at[bundle.BOOT]
                           for name in ("dapperdbg", "dapperdbg.common", "dapperdbg.launcher")],
    # The package's top, and what the launcher's script made itself, before the bundle.
    "first modules": [[made.__file__, made.__spec__.cached, getattr(made, "__path__", None),
                    type(made.__loader__).__name__, made.__spec__.parent]
                   for made in (sys.modules["dapperdbg"], sys.modules["dapperdbg.common"],
                                bundle)],
    "first modules attached": [sys.modules["dapperdbg"].common is sys.modules["dapperdbg.common"],
                            sys.modules["dapperdbg.common"].start_bundle is bundle],
}))
"""

# Where the module came from: its source (through the import system's path finder), the
# bundle through the import system, or the bundle in the order a start recorded.
FROM_SOURCE, BUNDLED, PRELOADED = "SourceFileLoader", "_BundleLoader", "preloaded"


def edit(package):
    with open(package / "dapperdbg" / "session" / "threads.py", "a") as source:
        source.write("\nEDITED = 1\n")


def corrupt(package):
    bundle(package).write_bytes(b"not a bundle")


def cut_short(package):
    data = bundle(package).read_bytes()
    bundle(package).write_bytes(data[:len(data) // 2])


def entry_unreadable(package):
    """records.py's code, in its entry and in its phase's block, is not what was written:
    it comes from its source, and a bundle written again leaves it out of the block."""
    head, code, blocks = read_bundle(package)
    name = "dapperdbg.common.records"
    phase = next(index for index, (order, _) in enumerate(head[3]) if name in order)
    *_, offset, length = head[2][name]
    code = code[:offset] + b"\xff" * length + code[offset + length:]
    codes = marshal.loads(blocks[phase])
    del codes[name]
    blocks[phase] = marshal.dumps(codes)
    write_bundle(package, head, code, blocks)


def other_layout(package):
    bundle(package).write_bytes(marshal.dumps((999, b"", {})))


def read_bundle(package):
    """The bundle's index, its modules' code, and each phase's block (still marshalled)."""
    data = bundle(package).read_bytes()
    length = int.from_bytes(data[:4], "little")
    head = marshal.loads(data[4:4 + length])
    body = data[4 + length:]
    blocks = [body[offset:offset + size] for _, (offset, size) in head[3]]
    return head, body[:head[3][0][1][0]], blocks


def write_bundle(package, head, code, blocks):
    """The bundle with this index, code and phases' blocks."""
    layout, magic, index, phases = head
    offset = len(code)
    written = []
    for (order, _), block in zip(phases, blocks):
        written.append((order, (offset, len(block))))
        offset += len(block)
    head = marshal.dumps((layout, magic, index, written))
    bundle(package).write_bytes(len(head).to_bytes(4, "little") + head + code
                                + b"".join(blocks))


def misorder(package):
    """The recorded order with a package moved after the modules that import names from
    it: the first of them fails to load, and the import system loads what is left."""
    head, code, blocks = read_bundle(package)
    order = head[3][SESSION][0]
    assert "dapperdbg.tracing" in order and "dapperdbg.session.threads" in order
    order.remove("dapperdbg.tracing")
    order.append("dapperdbg.tracing")
    write_bundle(package, head, code, blocks)


def drop_from_order(package):
    """The recorded session order without the module, as a start that did not import it
    in that phase would have recorded it (one where the connection could not be made, say):
    the next start loads it from its entry after the order, and adds it to the order."""
    head, code, blocks = read_bundle(package)
    head[3][SESSION][0].remove("dapperdbg.session.threads")
    write_bundle(package, head, code, blocks)


def block_edits(package):
    """A session block whose code of the module is not its entry's: a start runs the
    block's (as it runs a pyc's: the bundle is a cache of them, never checked against its
    own entries)."""
    head, code, blocks = read_bundle(package)
    codes = marshal.loads(blocks[SESSION])
    threads = package / "dapperdbg" / "session" / "threads.py"
    codes["dapperdbg.session.threads"] = compile(threads.read_text() + "\nEDITED = 2\n",
                                                 str(threads), "exec", dont_inherit=True)
    blocks[SESSION] = marshal.dumps(codes)
    write_bundle(package, head, code, blocks)


def block_unreadable(package):
    head, code, blocks = read_bundle(package)
    blocks[SESSION] = blocks[SESSION][:len(blocks[SESSION]) // 2]
    write_bundle(package, head, code, blocks)


def bundle(package):
    return package / "dapperdbg" / "__pycache__" / bundle_path().rsplit("/", 1)[-1]


# name: [(what is done before the launch, where dapperdbg.session.threads comes from, EDITED)]
SCENARIOS = {
    "the first start writes the bundle, the next imports from it, the next run its order": [
        (None, FROM_SOURCE, None), (None, BUNDLED, None), (None, PRELOADED, None),
        (None, PRELOADED, None),
    ],
    "an edited module comes from its source, then from the bundle written again": [
        (None, FROM_SOURCE, None), (None, BUNDLED, None), (None, PRELOADED, None),
        (edit, FROM_SOURCE, 1), (None, BUNDLED, 1), (None, PRELOADED, 1),
    ],
    "an order whose modules fail to load is left to the import system, and recorded again": [
        (None, FROM_SOURCE, None), (None, BUNDLED, None), (misorder, BUNDLED, None),
        (None, PRELOADED, None),
    ],
    "an order that lacks a module its phase loads gets it at the next start": [
        (None, FROM_SOURCE, None), (None, BUNDLED, None), (None, PRELOADED, None),
        (drop_from_order, BUNDLED, None), (None, PRELOADED, None), (None, PRELOADED, None),
    ],
    "a start runs its modules' code from its phase's block": [
        (None, FROM_SOURCE, None), (None, BUNDLED, None), (block_edits, PRELOADED, 2),
    ],
    "a block that cannot be read leaves each module to its own entry": [
        (None, FROM_SOURCE, None), (None, BUNDLED, None), (block_unreadable, PRELOADED, None),
    ],
    "a module whose code in the bundle cannot be read comes from its source": [
        (None, FROM_SOURCE, None), (None, BUNDLED, None), (entry_unreadable, PRELOADED, None),
        (edit, FROM_SOURCE, 1), (None, BUNDLED, 1), (None, PRELOADED, 1),
    ],
    "a bundle that cannot be read is ignored and written again": [
        (None, FROM_SOURCE, None), (corrupt, FROM_SOURCE, None), (None, BUNDLED, None),
    ],
    "a bundle cut short is ignored and written again": [
        (None, FROM_SOURCE, None), (cut_short, FROM_SOURCE, None), (None, BUNDLED, None),
    ],
    "a bundle of another layout is ignored and written again": [
        (None, FROM_SOURCE, None), (other_layout, FROM_SOURCE, None), (None, BUNDLED, None),
    ],
}


@pytest.mark.skipif(bundle_path() is None, reason="no bytecode cache on this Python")
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_start_bundle(launch, write, tmp_path, scenario):
    package = tmp_path / "package"
    shutil.copytree(PACKAGE_DIR / "dapperdbg", package / "dapperdbg",
                    ignore=shutil.ignore_patterns("__pycache__"))
    program = write("main.py", PROGRAM)
    env = {"PYTHONPATH": str(package), "DAPPER_PYTHONPATH_ENTRY": str(package)}
    reports = []
    for action, expected_loader, expected_edited in SCENARIOS[scenario]:
        if action is not None:
            action(package)
        debuggee = launch("--program", program, env=env, package=package)
        debuggee.configure({"program": str(program)})
        debuggee.request("configurationDone")
        debuggee.finish(0)
        report = json.loads(debuggee.stdout())
        loaded_from = PRELOADED if report["preloaded"] else report["loader"]
        assert (loaded_from, report["edited"]) == (expected_loader, expected_edited)
        if report["preloaded"]:
            assert report["loader"] == BUNDLED
            # The launcher's own first modules were recorded by the start before, too,
            # the packages above them among them.
            assert report["boot preloaded"]
            assert report["packages preloaded"] == [True, True, True]
        if expected_loader != FROM_SOURCE:
            # The launcher's own modules, imported before the hello, come from it too.
            assert report["launcher"] == BUNDLED
        assert report["source matches"]
        # Nothing of the bundle stays for the program to see.
        assert "StartBundle" not in report["finders"]
        assert bundle(package).exists()
        reports.append(report)
    # A module from the bundle is what the import system makes of it from its source.
    assert all(report["attributes"] == reports[0]["attributes"] for report in reports)
    # The package's top, and the bundle's module that the script makes before the bundle
    # serves, are what the import system makes of them, from the package the script is in.
    tag = sys.implementation.cache_tag
    top, common = package / "dapperdbg", package / "dapperdbg" / "common"
    first = [[str(top / "__init__.py"), str(top / "__pycache__" / f"__init__.{tag}.pyc"),
              [str(top)], "dapperdbg"],
             [str(common / "__init__.py"), str(common / "__pycache__" / f"__init__.{tag}.pyc"),
              [str(common)], "dapperdbg.common"],
             [str(common / "start_bundle.py"),
              str(common / "__pycache__" / f"start_bundle.{tag}.pyc"), None, "dapperdbg.common"]]
    for report in reports:
        assert [attributes[:3] + attributes[4:] for attributes in report["first modules"]] == first
        assert report["first modules attached"] == [True, True]
    threads = package / "dapperdbg" / "session" / "threads.py"
    assert reports[0]["attributes"][:2] == [
        str(threads), str(package / "dapperdbg" / "session" / "__pycache__" /
                        f"threads.{sys.implementation.cache_tag}.pyc")]


@pytest.mark.skipif(bundle_path() is None, reason="no bytecode cache on this Python")
def test_the_script_finds_its_package_where_pythonpath_is_ignored(launch, write, tmp_path):
    """Under -I the package is on no path Python reads: the launcher's script finds it by
    its own path, with a bundle to write and with one to read."""
    package = tmp_path / "package"
    shutil.copytree(PACKAGE_DIR / "dapperdbg", package / "dapperdbg",
                    ignore=shutil.ignore_patterns("__pycache__"))
    program = write("main.py", PROGRAM)
    for expected in (FROM_SOURCE, BUNDLED, PRELOADED):
        debuggee = launch("--program", program, python_options=("-I",), package=package,
                          env={"PYTHONPATH": None, "DAPPER_PYTHONPATH_ENTRY": None})
        debuggee.configure({"program": str(program)})
        debuggee.request("configurationDone")
        debuggee.finish(0)
        report = json.loads(debuggee.stdout())
        assert (PRELOADED if report["preloaded"] else report["loader"]) == expected
        assert report["attributes"][0] == str(package / "dapperdbg" / "session" / "threads.py")


def test_paths_are_the_import_systems():
    """A module's source and pyc paths, put together by hand for the bundle's specs, are
    the ones the import system finds for every module of the package."""
    import importlib.util
    import pkgutil

    import dapperdbg
    from dapperdbg.common.start_bundle import cached_path, source_path

    names = ["dapperdbg"] + [info.name for info in pkgutil.walk_packages(
        dapperdbg.__path__, "dapperdbg.")]
    assert len(names) > 100
    for name in names:
        spec = importlib.util.find_spec(name)
        is_package = spec.submodule_search_locations is not None
        assert source_path(name, is_package) == spec.origin
        assert cached_path(spec.origin) == importlib.util.cache_from_source(spec.origin)


def test_an_order_loaded_already_is_kept():
    """A process that imported an order's modules before the bundle opened (a test that
    runs the launcher in its own process) has nothing to load, and does not record the
    order again: it would record none, and the next start would lose what it preloads."""
    from dapperdbg.common import start_bundle

    name = start_bundle.__name__
    bundle = start_bundle.StartBundle("/nonexistent/start.bundle", {}, [[name], [name]])
    assert start_bundle._preload(bundle, bundle.orders[START], {}) == ()
    assert start_bundle._preload(bundle, [], {}) is None
    assert bundle.missed == []


@pytest.mark.parametrize("reading", ["by part", "whole, where there is no pread"])
def test_a_bundle_is_read_the_same_by_part_and_whole(reading, tmp_path, monkeypatch):
    """Where the system reads a file at an offset, a start reads only the parts it needs;
    elsewhere it reads the file at once. Either way it finds the same index and code."""
    from dapperdbg.common import start_bundle

    codes = {f"dapperdbg.m{n}": marshal.dumps(compile(str(n), f"m{n}", "eval"))
             for n in range(3)}
    entries = {name: (False, 1, 2, code) for name, code in codes.items()}
    path = tmp_path / "start.bundle"
    written = start_bundle.StartBundle(str(path), dict(entries))
    written.orders[START] = ["dapperdbg.m1", "dapperdbg.m2"]
    written.write()
    if reading != "by part":
        monkeypatch.setattr(start_bundle, "_pread", None)
    read = start_bundle.StartBundle(str(path), *start_bundle._open(str(path)))
    try:
        assert read.orders[START] == ["dapperdbg.m1", "dapperdbg.m2"]
        assert {name: eval(code) for name, code in read.codes(START).items()} == {
            "dapperdbg.m1": 1, "dapperdbg.m2": 2}
        assert read._marshalled("dapperdbg.m0") == codes["dapperdbg.m0"]
    finally:
        read.close()


# A module's source as the bundle compiles it, and what its run makes of it: the future
# import a flag (no __future__ imported, annotations kept as text), no docstring left
# anywhere (each says DOCSTRING), and every other line where it was.
COMPILED_CASES = {
    "the package's shape": (
        '"""The module\'s DOCSTRING."""\n\nfrom __future__ import annotations\n\nimport sys\n\n\n'
        'def f(x: int | None = None) -> Missing:\n    """f\'s DOCSTRING."""\n'
        '    return sys._getframe().f_lineno\n',
        {"line": 10, "annotations": {"x": "int | None", "return": "Missing"}}),
    "a body that is its docstring alone": (
        'class C:\n    """DOCSTRING alone."""\n\n\ndef f():\n    """DOCSTRING alone."""\n',
        {"line": None, "annotations": None}),
    "scopes inside other statements": (
        "import sys\nif True:\n    class C:\n        'DOCSTRING'\n"
        "        def method(self):\n            'DOCSTRING'\n"
        "            async def inner():\n                'DOCSTRING'\n"
        "            return inner\n"
        "try:\n    def f():\n        'DOCSTRING'\n        return sys._getframe().f_lineno\n"
        "except ImportError:\n    pass\n",
        {"line": 13, "annotations": None}),
    "other futures stay statements": (
        "from __future__ import annotations, generator_stop\n"
        "def f(x: int) -> None:\n    return 3\n",
        {"line": None, "annotations": {"x": "int", "return": "None"}, "imports": True}),
    "no future import": (
        "def f(x: int) -> None:\n    'DOCSTRING'\n    return 4\n",
        {"line": None, "annotations": {"x": int, "return": None}}),
}


@pytest.mark.parametrize("case", list(COMPILED_CASES))
def test_a_module_is_compiled_for_the_bundle_without_what_it_does_not_use(case):
    from dapperdbg.common.bundle_code import compiled

    source, expected = COMPILED_CASES[case]
    code = compiled(source.encode(), "/nowhere/m.py")
    assert ("__future__" in code.co_names) == expected.get("imports", False)
    assert b"DOCSTRING" not in marshal.dumps(code)
    namespace: dict = {"__name__": "m"}
    exec(code, namespace)
    assert namespace.get("__doc__") is None
    function = namespace.get("f")
    if expected["line"] is not None:
        assert function() == expected["line"]
    if expected["annotations"] is not None:
        assert function.__annotations__ == expected["annotations"]
