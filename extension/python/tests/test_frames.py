"""The DP frame codec."""

from __future__ import annotations

import json
import struct

import pytest

from dapperdbg.ipc.frames import (
    KIND_FROM_DEBUGGEE,
    KIND_TO_DEBUGGEE,
    MAX_PAYLOAD,
    FrameDecoder,
    FrameError,
    encode_frame,
)

MESSAGES = [
    {"type": "event", "event": "x"},
    {"type": "request", "seq": 1, "command": "é ☃ 𝄞", "arguments": {"a": [1, 2.5, None]}},
    {},
]


def test_encoding_layout():
    frame = encode_frame(KIND_FROM_DEBUGGEE, {"a": 1})
    payload = b'{"a":1}'
    assert frame == b"DP\x01\x01" + struct.pack(">I", len(payload)) + payload


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 7, 8, 9, 1000])
def test_decoding_survives_any_split(chunk_size):
    stream = b"".join(encode_frame(KIND_TO_DEBUGGEE, m) for m in MESSAGES)
    decoder = FrameDecoder()
    decoded = []
    for index in range(0, len(stream), chunk_size):
        decoded.extend(decoder.feed(stream[index:index + chunk_size]))
    assert decoded == [(KIND_TO_DEBUGGEE, m) for m in MESSAGES]
    assert decoder.pending_bytes == 0


def header(magic=b"DP", version=1, kind=2, length=2):
    return struct.pack(">2sBBI", magic, version, kind, length)


@pytest.mark.parametrize("data,message", [
    (header(magic=b"XX") + b"{}", "bad frame magic"),
    (header(version=2) + b"{}", "unsupported frame version 2"),
    (header(kind=9) + b"{}", "unknown frame kind 9"),
    (header(length=MAX_PAYLOAD + 1), "exceeds the limit"),
    (header(length=2) + b"\xff\xfe", "not UTF-8 JSON"),
    (header(length=3) + b"{x}", "not UTF-8 JSON"),
    (header(length=2) + b"[]", "not a JSON object"),
])
def test_malformed_frames_are_errors(data, message):
    with pytest.raises(FrameError, match=message):
        FrameDecoder().feed(data)


def test_incomplete_frame_waits_for_more():
    frame = encode_frame(KIND_TO_DEBUGGEE, {"k": "v"})
    decoder = FrameDecoder()
    assert decoder.feed(frame[:-1]) == []
    assert decoder.pending_bytes == len(frame) - 1
    assert decoder.feed(frame[-1:]) == [(KIND_TO_DEBUGGEE, {"k": "v"})]


def test_non_ascii_is_sent_as_utf8():
    frame = encode_frame(KIND_FROM_DEBUGGEE, {"s": "☃"})
    assert json.loads(frame[8:].decode("utf-8")) == {"s": "☃"}
    assert "☃".encode() in frame


# JSON texts read as json.loads reads them (the codec uses json's C half directly, without
# importing json): whitespace around the value, constants, numbers, escapes, nesting.
VALID_JSON = [
    '{"a": 1}', ' \t\n{"a":[1,2.5,-3e2,null,true,false]}\r\n ', '{"s":"\\u00e9\\n\\ud834\\udd1e"}',
    '{"x":NaN,"y":Infinity,"z":-Infinity}', '{"big":123456789012345678901234567890}',
    '{"nested":{"a":{"b":[{"c":[]}]}}}', '[]', '"text"', '0',
]
# Not JSON, or more than one value: ValueError, as from json.loads.
INVALID_JSON = ["", "   ", "{x}", '{"a":1} 2', '{"a":1}}', "[1,]", '{"a":"\x01"}', "nul",
                '{"a":1', "'single'"]


@pytest.mark.parametrize("text", VALID_JSON)
def test_json_is_read_as_json_loads_reads_it(text):
    from dapperdbg.ipc.frames import from_json

    expected = json.loads(text)
    read = from_json(text)
    # NaN is not equal to itself: compare the texts json writes of both.
    assert json.dumps(read, sort_keys=True) == json.dumps(expected, sort_keys=True)


@pytest.mark.parametrize("text", INVALID_JSON)
def test_what_is_not_json_is_a_value_error(text):
    from dapperdbg.ipc.frames import from_json

    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        from_json(text)


def test_written_json_is_what_json_writes():
    from dapperdbg.ipc.frames import to_json

    value = {"a": [1, 2.5, None, True, "é\n\"", {"b": float("inf")}], "c": {}}
    assert to_json(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    with pytest.raises(TypeError, match="not JSON serializable"):
        to_json({"a": object()})
