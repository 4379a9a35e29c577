"""The "DP" binary frame that carries every IPC message (docs/ipc.md).

A frame is the two bytes ``DP``, a version byte, a kind byte, a four-byte big-endian
payload length and that many bytes of UTF-8 JSON holding exactly one object.
"""

from __future__ import annotations

import json
import json.encoder
import struct

MAGIC = b"DP"
VERSION = 1
KIND_FROM_DEBUGGEE = 1
KIND_TO_DEBUGGEE = 2
HEADER = struct.Struct(">2sBBI")
MAX_PAYLOAD = 64 * 1024 * 1024


class FrameError(Exception):
    """The byte stream is not a valid sequence of DP frames; the connection is unusable."""


# Messages are built by the debugger from strings, numbers, lists and dicts, never with a
# cycle, so the encoder skips its per-container cycle check (a tenth of the encoding time
# of a scope of 1,000 variables).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)
# The C encoder that _ENCODER.encode builds afresh for every call, built once (a variable
# of a big scope is one call); None where the json module has no C acceleration.
_C_ENCODER = None if json.encoder.c_make_encoder is None else json.encoder.c_make_encoder(
    None, _ENCODER.default, json.encoder.encode_basestring, None, ":", ",", False, False,
    True)


class EncodedJson:
    """A message body that is JSON text already; ``encode_frame`` writes it as it is.
    (A scope of 1,000 variables is written straight as JSON: building a dict per
    variable and encoding it took longer than rendering the values.)"""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def to_json(value: dict | list) -> str:
    """Compact JSON text of a dict or list, as frames carry it."""
    if _C_ENCODER is not None:
        return "".join(_C_ENCODER(value, 0))
    return _ENCODER.encode(value)


def encode_json(message: dict) -> str:
    """The JSON text of a message, whose ``body`` may be EncodedJson."""
    body = message.get("body")
    if type(body) is not EncodedJson:
        return to_json(message)
    head = to_json({key: value for key, value in message.items() if key != "body"})
    separator = "," if len(head) > 2 else ""
    return f'{head[:-1]}{separator}"body":{body.text}}}'


def encode_frame(kind: int, message: dict) -> bytes:
    """Return the whole frame (header and payload) as one bytes object, so that a single
    ``sendall`` writes it."""
    payload = encode_json(message).encode("utf-8")
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"payload of {len(payload)} bytes exceeds the {MAX_PAYLOAD} limit")
    return HEADER.pack(MAGIC, VERSION, kind, len(payload)) + payload


class FrameDecoder:
    """Incremental decoder: feed it chunks split or coalesced anywhere and it returns the
    complete messages as (kind, object) pairs."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[tuple[int, dict]]:
        self._buffer += data
        messages = []
        while len(self._buffer) >= HEADER.size:
            magic, version, kind, length = HEADER.unpack_from(self._buffer)
            if magic != MAGIC:
                raise FrameError(f"bad frame magic {bytes(magic)!r}, expected {MAGIC!r}")
            if version != VERSION:
                raise FrameError(f"unsupported frame version {version}, expected {VERSION}")
            if kind not in (KIND_FROM_DEBUGGEE, KIND_TO_DEBUGGEE):
                raise FrameError(f"unknown frame kind {kind}")
            if length > MAX_PAYLOAD:
                raise FrameError(f"frame payload of {length} bytes exceeds the limit")
            end = HEADER.size + length
            if len(self._buffer) < end:
                break
            payload = bytes(self._buffer[HEADER.size:end])
            del self._buffer[:end]
            try:
                message = json.loads(payload.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as error:
                raise FrameError(f"frame payload is not UTF-8 JSON: {error}") from None
            if not isinstance(message, dict):
                raise FrameError("frame payload is not a JSON object")
            messages.append((kind, message))
        return messages

    @property
    def pending_bytes(self) -> int:
        """How many bytes of an incomplete frame are buffered."""
        return len(self._buffer)
