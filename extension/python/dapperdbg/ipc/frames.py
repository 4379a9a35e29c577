"""The "DP" binary frame that carries every IPC message (docs/ipc.md).

A frame is the two bytes ``DP``, a version byte, a kind byte, a four-byte big-endian
payload length and that many bytes of UTF-8 JSON holding exactly one object.
"""

from __future__ import annotations

try:
    # The json module's C half, used directly: ``import json`` would bring ``re`` and
    # ``enum`` into every debugged process before its first line (and tear them down at
    # its exit), where this needs the encoder and the scanner alone.
    import _json
except ImportError:  # A Python built without it: the json module's pure-Python code.
    _json = None

MAGIC = b"DP"
VERSION = 1
KIND_FROM_DEBUGGEE = 1
KIND_TO_DEBUGGEE = 2
HEADER_SIZE = 8
MAX_PAYLOAD = 64 * 1024 * 1024


def frame_header(kind: int, length: int) -> bytes:
    """The eight bytes before a payload of ``length`` bytes (without ``_struct``, whose
    import is a shared library loaded at every start)."""
    return MAGIC + bytes((VERSION, kind)) + length.to_bytes(4, "big")


class FrameError(Exception):
    """The byte stream is not a valid sequence of DP frames; the connection is unusable."""


def _not_serializable(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class _DecodingOptions:
    """What the C scanner reads from its context: ``json.loads``'s defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    array_hook = None  # Read from 3.15 on.
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        return float(name.replace("Infinity", "inf"))


def _c_codec():
    """The C encoder and scanner, or (None, None) where they are missing or take other
    arguments than these (a later Python's): the json module does the work then."""
    if _json is None:
        return None, None
    try:
        # Messages are built by the debugger from strings, numbers, lists and dicts,
        # never with a cycle, so the encoder skips the per-container cycle check (no
        # markers: a tenth of the encoding time of a scope of 1,000 variables). Arguments:
        # markers, default, string encoder, indent, key and item separators, sort_keys,
        # skipkeys, allow_nan.
        return (_json.make_encoder(None, _not_serializable, _json.encode_basestring, None,
                                   ":", ",", False, False, True),
                _json.make_scanner(_DecodingOptions()))
    except Exception:
        return None, None


_C_ENCODER, _C_SCANNER = _c_codec()
_WHITESPACE = " \t\n\r"


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
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), check_circular=False)


def from_json(text: str) -> object:
    """The value of JSON text, as ``json.loads`` reads it; ValueError if it is not JSON."""
    if _C_SCANNER is None:
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _C_SCANNER(text, start)
    except StopIteration as stop:
        raise ValueError(f"Expecting value: char {stop.value}") from None
    if text[end:].strip(_WHITESPACE):
        raise ValueError(f"Extra data: char {end}")
    return value


def encode_json(message: dict) -> str:
    """The JSON text of a message, whose ``body`` may be EncodedJson."""
    body = message.get("body")
    if type(body) is not EncodedJson:
        return to_json(message)
    head = to_json({key: value for key, value in message.items() if key != "body"})
    separator = "," if len(head) > 2 else ""
    return f'{head[:-1]}{separator}"body":{body.text}}}'


def _python_string_encoder():
    from json.encoder import encode_basestring

    return encode_basestring


# A str as JSON string text (quotes included), as the encoder writes strings.
json_string = _json.encode_basestring if _json is not None else _python_string_encoder()


def encode_frame(kind: int, message: dict) -> bytes:
    """Return the whole frame (header and payload) as one bytes object, so that a single
    ``sendall`` writes it."""
    payload = encode_json(message).encode("utf-8")
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"payload of {len(payload)} bytes exceeds the {MAX_PAYLOAD} limit")
    return frame_header(kind, len(payload)) + payload


class FrameDecoder:
    """Incremental decoder: feed it chunks split or coalesced anywhere and it returns the
    complete messages as (kind, object) pairs."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[tuple[int, dict]]:
        self._buffer += data
        messages = []
        buffer = self._buffer
        while len(buffer) >= HEADER_SIZE:
            magic, version, kind = buffer[:2], buffer[2], buffer[3]
            length = int.from_bytes(buffer[4:HEADER_SIZE], "big")
            if magic != MAGIC:
                raise FrameError(f"bad frame magic {bytes(magic)!r}, expected {MAGIC!r}")
            if version != VERSION:
                raise FrameError(f"unsupported frame version {version}, expected {VERSION}")
            if kind not in (KIND_FROM_DEBUGGEE, KIND_TO_DEBUGGEE):
                raise FrameError(f"unknown frame kind {kind}")
            if length > MAX_PAYLOAD:
                raise FrameError(f"frame payload of {length} bytes exceeds the limit")
            end = HEADER_SIZE + length
            if len(buffer) < end:
                break
            payload = bytes(buffer[HEADER_SIZE:end])
            del buffer[:end]
            try:
                message = from_json(payload.decode("utf-8"))
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
