"""Completions, the source registry, output capture and the return-value entry, each
tested on its own."""

from __future__ import annotations

import io
import sys
import threading

import pytest
from parked import parked_thread

from dapperdbg.common.paths import PathCache
from dapperdbg.inspection.completions import complete, split_reference
from dapperdbg.inspection.inspector import RETURN_VALUE_PREFIX, Inspector
from dapperdbg.inspection.output_capture import OutputCapture, StreamTee
from dapperdbg.inspection.sources import SourceError, SourceRegistry, modules_body


@pytest.mark.parametrize("text,names,partial", [
    ("", [], ""),
    ("abc", [], "abc"),
    ("a.b", ["a"], "b"),
    ("a.b.", ["a", "b"], ""),
    ("print(x.y", ["x"], "y"),
    ("f(a, b", [], "b"),
    ("a . b . c", ["a", "b"], "c"),
    ("1.", [], ""),
    ("x + ", [], ""),
])
def test_split_reference(text, names, partial):
    assert split_reference(text) == (names, partial)


@pytest.mark.parametrize("text,expected", [
    ("numb", [("number", "variable")]),
    ("ite", [("items", "variable"), ("iter", "function")]),
    ("items.appe", [("append", "function")]),
    ("clos", [("closure", "function")]),
    ("lambd", [("lambda", "keyword")]),
    ("MODULE_C", [("MODULE_CONSTANT", "variable")]),
    ("threading.Threa", [("Thread", "class"), ("ThreadError", "class")]),
    ("no_such_name.x", []),
    ("number.real.imag.", None),  # Some targets; just no failure.
])
def test_complete(text, expected):
    with parked_thread() as parked:
        targets = parked.run(lambda: complete(parked.frame, text))
    if expected is not None:
        assert [(t["label"], t["type"]) for t in targets] == expected
    else:
        assert targets


def test_complete_orders_public_names_first():
    with parked_thread() as parked:
        labels = [t["label"] for t in parked.run(lambda: complete(parked.frame, "items."))]
    assert labels.index("append") < labels.index("__add__")


def test_source_registry_keeps_one_reference_per_text():
    # Not <string>: from 3.13 linecache holds the text of a -c program under that name,
    # and pytest-xdist's workers are such programs.
    registry = SourceRegistry()
    registry.remember_text("<made up>", "x = 1\n")
    first = registry.source_for("<made up>")
    assert first["sourceReference"] == registry.source_for("<made up>")["sourceReference"]
    assert registry.content(first["sourceReference"]) == "x = 1\n"
    registry.remember_text("<made up>", "y = 2\n")
    second = registry.source_for("<made up>")["sourceReference"]
    assert second != first["sourceReference"]
    assert registry.content(first["sourceReference"]) == "x = 1\n"
    assert "sourceReference" not in registry.source_for("<unknown code>")
    assert registry.source_for(__file__) == {"name": "test_inspection_parts.py",
                                             "path": __file__}
    with pytest.raises(SourceError):
        registry.content(12345)


def test_code_compiled_from_strings_keeps_its_text_in_the_newest_registry():
    # A later session of the same process (listening mode) takes over the one audit hook.
    first, second = SourceRegistry(), SourceRegistry()
    first.capture_exec_sources()
    namespace: dict = {}
    exec(compile("def f():\n    return 1\n", "<first>", "exec"), namespace)
    second.capture_exec_sources()
    exec(compile("def g():\n    return 2\n", "<second>", "exec"), namespace)
    shown = first.source_for_code(namespace["f"].__code__)
    assert first.content(shown["sourceReference"]) == "def f():\n    return 1\n"
    assert "sourceReference" not in first.source_for_code(namespace["g"].__code__)
    shown = second.source_for_code(namespace["g"].__code__)
    assert shown["name"] == "<second>"
    assert second.content(shown["sourceReference"]) == "def g():\n    return 2\n"


def test_modules_are_paged():
    every = modules_body(0, 0)
    assert every["totalModules"] == len(every["modules"])
    assert modules_body(1, 2)["modules"] == every["modules"][1:3]
    assert "sys" in {m["name"] for m in every["modules"]}


def test_modules_read_versions_without_running_module_getattr(monkeypatch):
    # 3.15 deprecates stdlib modules' __version__ through a module __getattr__ that
    # warns: asking for the modules list must not warn (or raise, under -W error) in
    # the user's program, yet still show the versions modules set themselves.
    import types
    import warnings

    lazy = types.ModuleType("lazy_version")

    def lazy_getattr(name):
        if name == "__version__":
            warnings.warn("__version__ is deprecated", DeprecationWarning, stacklevel=2)
            return "9.9"
        raise AttributeError(name)

    lazy.__getattr__ = lazy_getattr
    plain = types.ModuleType("plain_version")
    plain.__version__ = "1.2.3"
    monkeypatch.setitem(sys.modules, "lazy_version", lazy)
    monkeypatch.setitem(sys.modules, "plain_version", plain)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        modules = {m["name"]: m for m in modules_body(0, 0)["modules"]}
    assert "version" not in modules["lazy_version"]
    assert modules["plain_version"]["version"] == "1.2.3"


def test_stream_tee_reports_when_asked():
    reported = []
    capturing: set[int] = set()
    original = io.StringIO()
    tee = StreamTee(original, "stdout", lambda c, t: reported.append((c, t)), False, capturing)
    tee.write("quiet ")
    capturing.add(threading.get_ident())
    tee.write("loud")
    assert original.getvalue() == "quiet loud"
    assert reported == [("stdout", "loud")]
    always = StreamTee(original, "stderr", lambda c, t: reported.append((c, t)), True, set())
    always.writelines(["a", "b"])
    assert reported[-2:] == [("stderr", "a"), ("stderr", "b")]
    assert tee.getvalue() == original.getvalue()  # Everything else is the original's.


def test_output_capture_installs_only_for_terminals(monkeypatch):
    for console, installed in [("internalConsole", False), (None, False),
                               ("integratedTerminal", True), ("externalTerminal", True)]:
        monkeypatch.setattr(sys, "stdout", io.StringIO())
        capture = OutputCapture(lambda category, text: None)
        capture.configure({"console": console})
        assert capture.installed is installed
        assert isinstance(sys.stdout, StreamTee) is installed


def test_return_value_shows_in_the_top_frame_only_when_enabled():
    with parked_thread() as parked:
        inspector = Inspector(PathCache())

        def compute():
            return 42

        inspector.record_return_value(1, compute.__code__, 42)
        assert inspector.last_return_values == {}  # showReturnValue is off.
        inspector.settings.show_return_value = True
        inspector.record_return_value(1, compute.__code__, 42)
        inspector.settings.show_return_value = False

        def local_names():
            stack = inspector.stack_trace(1, parked.frame, 0, 2)
            names = []
            for frame in stack["stackFrames"]:
                scope = inspector.scopes(frame["id"])["scopes"][0]
                body = inspector.variables(scope["variablesReference"])
                names.append([v["name"] for v in body["variables"]][:1])
            return names

        assert parked.run(local_names)[0] != [RETURN_VALUE_PREFIX + "compute"]
        inspector.settings.show_return_value = True
        top, caller = parked.run(local_names)
        assert top == [RETURN_VALUE_PREFIX + "compute"]
        assert caller != top
        inspector.clear()
        assert inspector.last_return_values == {}
