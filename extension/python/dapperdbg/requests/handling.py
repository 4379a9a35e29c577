"""What every request handler uses (the handlers' conventions are in dispatch.py).

- ``RequestError``: the one error a handler raises for a request it cannot serve; the
  message goes back to the client.
- ``argument``: reads and checks one argument.
- ``Then``: a response whose side effect runs once the response is sent.
"""

from __future__ import annotations

from ..common.errors import RequestError
from ..common.records import Record

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["NO_RESPONSE", "REQUIRED", "RequestError", "Then", "argument", "source_path"]


class Then(Record):
    """A handler's result whose ``action`` must run after the response is sent: resuming
    a thread first could let the program exit (and the connection close) before the
    response is out, and DAP wants the response before the events it causes."""

    body: dict | None
    action: Callable[[], None]


class _NoResponse:
    def __repr__(self) -> str:
        return "NO_RESPONSE"


# A handler's result for a request the engine does not want answered (it may have closed
# the connection already: an answer would only reset it).
NO_RESPONSE = _NoResponse()


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


# The default of an argument the request must have.
REQUIRED = _Required()

_KIND_NAMES = {int: "an integer", str: "a string", dict: "an object", list: "an array",
               bool: "a boolean"}


def argument(arguments: dict, name: str, kind: type, default=REQUIRED):
    """``arguments[name]``, which must be of ``kind`` (int, str, dict, list or bool; a
    bool is no int). A missing or null optional argument is ``default``. Raises
    RequestError naming the argument otherwise."""
    value = arguments.get(name)
    if value is None and default is not REQUIRED:
        return default
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RequestError(f"'{name}' must be {_KIND_NAMES.get(kind, kind.__name__)}, "
                           f"got {value!r}")
    return value


def source_path(arguments: dict, command: str) -> str:
    """``source.path``: the absolute path of the file a request is about."""
    source = arguments.get("source")
    path = source.get("path") if isinstance(source, dict) else None
    if not isinstance(path, str) or not path:
        raise RequestError(f"{command} needs source.path (an absolute file path)")
    return path
