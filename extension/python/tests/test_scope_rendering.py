"""The Locals and Globals scopes render their plain values on a fast path of their own;
it must give exactly what the general path (Inspector.describe) gives, value by value."""

from __future__ import annotations

import json
import sys

import pytest

from dapperdbg.common.paths import PathCache
from dapperdbg.inspection.inspector import Container, Inspector
from dapperdbg.inspection.rendering import DEFAULT_FORMAT, TRUNCATION_MARKER, Format, safe_repr
from dapperdbg.ipc import frames
from dapperdbg.ipc.frames import EncodedJson, encode_frame

HUGE_INT = 10**5000
# Python 3.11+ refuses to turn ints of more than 4,300 digits into decimal text.
HUGE_INT_FAILS = hasattr(sys, "get_int_max_str_digits")


def frame_with(namespace: dict):
    """A frame whose globals are ``namespace`` (the Globals scope shows them as given)."""
    code = compile("frame = __import__('sys')._getframe()\n", "<scope test>", "exec")
    exec(code, namespace)
    return namespace.pop("frame")


def scope_variables(namespace: dict, fmt: Format = DEFAULT_FORMAT, **paging) -> list[dict]:
    """The scope's variables as the request handler sends them (JSON text), checked
    against the dicts the same call gives without ``encoded``."""
    inspector = Inspector(PathCache())
    frame = frame_with(namespace)
    reference = inspector.containers.add(Container("globals", frame, None, 1, frame))
    plain = inspector.variables(reference, fmt=fmt, **paging)["variables"]
    encoded = inspector.variables(reference, fmt=fmt, encoded=True, **paging)
    assert isinstance(encoded, EncodedJson)
    variables = json.loads(encoded.text)["variables"]
    # References are handles, new on every call: compare whether they are set.
    assert [{**v, "variablesReference": bool(v["variablesReference"])} for v in variables] \
        == [{**v, "variablesReference": bool(v["variablesReference"])} for v in plain]
    return variables


def described(value, fmt: Format) -> dict:
    inspector = Inspector(PathCache())
    frame = sys._getframe()
    return inspector.describe("v", value, "v", 1, frame, fmt)


VALUES = [1, -5, True, None, 1.5, float("nan"), 2j, "text", "é" * 3, "\n" * 600, "x" * 999,
          "x" * 1000, "x" * 1001, "y" * 5000, b"bytes", b"\x00" * 400, b"z" * 3000,
          10**200, HUGE_INT, bytearray(b"a"), range(4), [1, 2], {"k": 1}, (1,), {3}]
FORMATS = [Format(), Format(hex=True), Format(None), Format(10), Format(0)]


@pytest.mark.parametrize("fmt", FORMATS, ids=repr)
@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_scope_values_render_as_describe_renders_them(value, fmt):
    (variable,) = [v for v in scope_variables({"v": value}, fmt) if v["name"] == "v"]
    expected = described(value, fmt)
    # References are handles: equal when both or neither expand.
    assert bool(variable.pop("variablesReference")) == bool(expected.pop("variablesReference"))
    assert variable == expected


@pytest.mark.parametrize("value,text", [
    ("x" * 1001, "'" + "x" * 999 + TRUNCATION_MARKER),
    ("x" * 999, "'" + "x" * 999 + TRUNCATION_MARKER),  # The closing quote is cut.
    ("x" * 998, "'" + "x" * 998 + "'"),
    (255, "255"),
])
def test_scope_values_are_cut_at_the_limit(value, text):
    (variable,) = [v for v in scope_variables({"v": value}) if v["name"] == "v"]
    assert variable["value"] == text
    assert variable["evaluateName"] == "v"


@pytest.mark.parametrize("value", [HUGE_INT, [HUGE_INT], {"k": HUGE_INT}, (1, HUGE_INT)],
                         ids=["int", "list", "dict", "tuple"])
def test_an_int_too_long_for_decimal_is_shown_not_raised(value):
    text = safe_repr(value)
    if HUGE_INT_FAILS:
        assert "<repr raised ValueError: Exceeds the limit" in text
    else:
        assert "1000000000" in text
    assert len(text) <= 1000 + len(TRUNCATION_MARKER)
    assert "raised" not in safe_repr(value, hex=True)  # Hex needs no decimal text.


def test_scope_order_grouping_and_skipped_entries():
    def function():
        pass

    class Klass:
        pass

    namespace = {"b": 2, "__dunder__": 3, 7: "not a name", "f": function, "a": [1],
                 "Klass": Klass, "__doc__": None, "obj": object()}
    variables = scope_variables(namespace)
    names = [v["name"] for v in variables]
    assert names == ["b", "a", "obj", "special variables", "function variables",
                     "class variables"]
    # __builtins__ (added by exec) and the int key are not shown at all.
    assert all(v["name"] != "__builtins__" for v in variables)
    assert variables[3]["namedVariables"] == 2  # __dunder__ and __doc__.
    assert variables[3]["presentationHint"] == {"kind": "virtual"}
    paged = scope_variables(dict(namespace), start=1, count=3)
    assert [v["name"] for v in paged] == ["a", "obj", "special variables"]
    assert scope_variables(dict(namespace), filter_kind="indexed") == []


@pytest.mark.parametrize("message", [
    {"type": "response", "request_seq": 3, "success": True, "command": "variables",
     "body": EncodedJson('{"variables":[{"name":"é","value":"1"}]}'), "seq": 9},
    {"body": EncodedJson("{}")},
])
@pytest.mark.parametrize("c_encoder", [True, False], ids=["C encoder", "no C encoder"])
def test_an_encoded_body_is_framed_as_the_same_message(message, c_encoder, monkeypatch):
    if not c_encoder:
        monkeypatch.setattr(frames, "_C_ENCODER", None)
    frame = encode_frame(1, message)
    decoded = json.loads(frame[8:].decode("utf-8"))
    expected = {**message, "body": json.loads(message["body"].text)}
    assert decoded == expected
    assert int.from_bytes(frame[4:8], "big") == len(frame) - 8
