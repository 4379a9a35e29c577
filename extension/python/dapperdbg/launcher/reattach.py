"""The children of a program debuggers attach to, across debuggers (docs/ipc.md,
"Attach"). A debugger that detaches from the program ends its children's sessions too,
and they run on without a debugger. When the next debugger attaches, the program writes
where its children connect (the child listener's address and the session's token) to
the reattach file, in a directory only its user can enter, and announces its running
children again; each child, which has watched the file since its own session ended,
connects there and is debugged again, as the program is (listen.py's AttachedProgram).
"""

from __future__ import annotations

import contextlib
import os

from ..common.debugger_threads import start_debugger_thread
from ..common.native import Event
from ..ipc.connection import AddressError, connect
from ..session.debugger import Debugger
from ..session.link import SessionLink
from .listen import AttachedProgram, CurrentClient
from .reattach_file import read_reattach_file

# How often a detached child looks at the reattach file.
POLL_SECONDS = 0.5


def watch(path: str, link: SessionLink, debugger: Debugger, name: str,
          program: str | None) -> None:
    """In a child of an attached program, once its session is running: reconnect to each
    next debugger of the parent, for as long as this process runs."""
    started = read_reattach_file(path) or {}
    start_debugger_thread("dapper.reattach", _watch, path, started.get("generation", 0), link,
                          debugger, name, program)


def _watch(path: str, seen, link: SessionLink, debugger: Debugger, name: str,
           program: str | None) -> None:
    first = debugger.connection
    session: AttachedProgram | None = None
    stop = Event()
    while not stop.wait(POLL_SECONDS):
        attached = first if session is None else session.client
        if not attached.closed:
            continue
        if not os.path.isdir(os.path.dirname(path)):
            return  # The parent has ended: no debugger will come through it.
        content = read_reattach_file(path)
        generation = content.get("generation") if content else None
        if not isinstance(generation, int) or not isinstance(seen, int) or generation <= seen:
            continue
        seen = generation
        address, token = content.get("address"), content.get("token")
        if not isinstance(address, str) or not isinstance(token, str):
            continue
        try:
            sock = connect(address)
        except (AddressError, OSError):
            continue
        link.token = token
        if session is None:
            client = CurrentClient()
            session = AttachedProgram(debugger, client, link, name, program)
            debugger.connection = client  # type: ignore[assignment]
        with contextlib.suppress(OSError):
            session.attach_socket(sock)
