"""Terminal auto-attach, the debuggee's side (docs/auto-attach.md): the bootstrap
(extension/python/autoattach/sitecustomize.py) was told by the VS Code window where the
session it started for this process listens; the program connects there, as under
``python -m dapperdbg --connect``, and its own code starts once the debugger is
configured (its breakpoints are set). Whatever fails, the program runs on undebugged.
"""

from __future__ import annotations

import time

from ..ipc.dial import connect_tcp
from . import api

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import _socket

# How long the session's listener may take to open (VS Code starts the session first).
OPEN_DEADLINE_S = 10.0
RETRY_S = 0.02


def _connect(host: str, port: int, deadline: float) -> _socket.socket | None:
    while True:
        try:
            timeout = max(0.1, deadline - time.monotonic())
            sock = connect_tcp((host, port), timeout)
        except OSError:
            if time.monotonic() + RETRY_S >= deadline:
                return None
            time.sleep(RETRY_S)
            continue
        sock.settimeout(None)
        return sock


def attach_at(host: str, port: int, name: str, program: str | None,
              deadline_s: float = OPEN_DEADLINE_S) -> bool:
    """Connect to the session at (host, port) and wait until it is configured; False when
    it could not be reached or left first (the program then runs without it)."""
    sock = _connect(host, port, time.monotonic() + deadline_s)
    if sock is None:
        return False
    session = api.attach_connected(sock, host, port, name, program)
    while not session.configured.wait(0.5):
        if session.detached.is_set():
            return False
    return True
