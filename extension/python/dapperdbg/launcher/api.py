"""The in-code API (``dapperdbg.listen``, ``connect``, ``wait_for_client``,
``is_client_connected``, ``breakpoint``, ``post_mortem``; the package's ``__init__``
imports this module only when one of them is called): the program itself becomes a
program a debugger attaches to, as under ``python -m dapperdbg --listen`` or
``--connect``, with the same session (listen.py's AttachedProgram). One session a
process; the tracer is installed when it starts, so breakpoints apply from then on.
"""

from __future__ import annotations

import atexit
import functools
import os
import socket
import sys

from ..common.native import allocate_lock
from ..common.package import restore_bytecode_setting
from ..session.breakpoint_hook import current_debugger
from ..session.lifecycle import ExitState, start_tracing
from .listen import CONNECT_TIMEOUT_S, AttachedProgram, open_server, start_attached_program
from .listen_cli import DEFAULT_HOST, UsageError, parse_endpoint

_lock = allocate_lock()
_session: AttachedProgram | None = None


def parse_address(address, what: str) -> tuple[str, int]:
    """``PORT``, ``(HOST, PORT)`` or ``"[HOST:]PORT"`` as (host, port)."""
    if isinstance(address, bool):
        raise TypeError(f"dapperdbg.{what}() takes a port or a (host, port) pair, not {address!r}")
    if isinstance(address, int):
        host, port = DEFAULT_HOST, address
    elif isinstance(address, str):
        try:
            host, port = parse_endpoint(address, f"dapperdbg.{what}()")
        except UsageError as error:
            raise ValueError(str(error)) from None
    elif (isinstance(address, (tuple, list)) and len(address) == 2
          and isinstance(address[0], str) and isinstance(address[1], int)
          and not isinstance(address[1], bool)):
        host, port = address
    else:
        raise TypeError(f"dapperdbg.{what}() takes a port or a (host, port) pair, not {address!r}")
    if not 0 <= port <= 65535:
        raise ValueError(f"dapperdbg.{what}(): the port must be from 0 to 65535, not {port}")
    return host or DEFAULT_HOST, port


def _program() -> tuple[str, str | None]:
    """The hello's name and the program file (for breakpoints verified at once)."""
    main = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if main and os.path.isfile(main):
        path = os.path.abspath(main)
        return path, path
    return main or "python", None


def _launched():
    """The debugger of this process when it runs under Dapper already (launched, a child
    process, ``--listen``): the API then serves that session."""
    return current_debugger() if _session is None else None


def _started(what: str, program: tuple[str, str | None] | None = None) -> AttachedProgram:
    """This process's session, started (and traced) on first use; ``program`` is its
    hello's name and program file when not this process's ``sys.argv[0]``."""
    global _session
    with _lock:
        if _session is None and current_debugger() is not None:
            raise RuntimeError(f"dapperdbg.{what}(): this program runs under the debugger "
                               "already")
        if _session is None:
            name, program = _program() if program is None else program
            session, state = start_attached_program(name, program)
            _observe_exit_status(state)
            session.debugger.activate_instrumentation()
            start_tracing(session.debugger)
            # The debugger's modules are all loaded (and cached) by now.
            restore_bytecode_setting()
            _session = session
        return _session


def _observe_exit_status(state: ExitState) -> None:
    """The status the attached debugger is told at exit. A launcher runs the program and
    sees how it ended; here the program runs itself, and CPython keeps the status of a
    SystemExit nowhere an exit handler can read it. So ``sys.exit(status)`` notes its
    status, and an uncaught exception (which CPython leaves in ``sys.last_value``) makes
    it 1; a ``raise SystemExit(status)`` of the program's own is reported as 0."""
    original_exit = sys.exit

    @functools.wraps(original_exit)
    def exit(status=None):
        state.code = _status_of(status)
        original_exit(status)

    sys.exit = exit

    def settle() -> None:
        if getattr(sys, "last_value", None) is not None:
            state.code = 1

    # Registered after the session's exit handler, so it runs before it.
    atexit.register(settle)


def _status_of(status, os_name: str = os.name) -> int:
    """The process's exit status for ``sys.exit(status)``, as CPython computes it: POSIX
    keeps its low 8 bits, Windows the whole number."""
    if status is None:
        return 0
    if isinstance(status, int):
        return status & 0xFF if os_name != "nt" else status
    return 1


def listen(address) -> tuple[str, int]:
    host, port = parse_address(address, "listen")
    session = _started("listen")
    if session.server is not None:
        bound = session.server.getsockname()[:2]
        raise RuntimeError(f"dapperdbg.listen() was called already: it listens on {bound}")
    server = open_server(host, port)
    session.listen(server)
    bound_host, bound_port = server.getsockname()[:2]
    return bound_host, bound_port


def connect(address) -> None:
    host, port = parse_address(address, "connect")
    if port == 0:
        raise ValueError("dapperdbg.connect(): the port must be the debugger's, from 1 to 65535")
    session = _started("connect")
    session.connect(host, port, CONNECT_TIMEOUT_S)
    # The debugger listened first and configures at once, so returning only once it has
    # set its breakpoints costs milliseconds, and the program's next line already stops
    # at them, as under ``--connect``. A debugger that leaves first lets the program run.
    while not session.configured.wait(0.5):
        if session.detached.is_set():
            return


def attach_connected(sock: socket.socket, host: str, port: int, name: str,
                     program: str | None) -> AttachedProgram:
    """Start this process's session on ``sock``, a connection made to a debugger that
    listens on (host, port) (terminal auto-attach: terminal_attach.py)."""
    session = _started("connect", (name, program))
    session.connected_to = (host, port)
    session.attach_socket(sock)
    return session


def wait_for_client() -> None:
    session = _session
    if session is None and _launched() is not None:
        return  # Its debugger was configured before the program started.
    if session is None:
        raise RuntimeError("dapperdbg.wait_for_client(): call dapperdbg.listen() or "
                           "dapperdbg.connect() first")
    session.configured.wait()


def is_client_connected() -> bool:
    session = _session
    if session is not None:
        return session.is_client_connected()
    launched = _launched()
    return launched is not None and not launched.detached and not launched.connection.closed



def _debugger():
    """The debugger a client is attached to and configured, else None."""
    session = _session
    if session is not None:
        return session.debugger if session.is_client_connected() else None
    return _launched()


def breakpoint(frame) -> None:
    debugger = _debugger()
    if debugger is not None:
        debugger.breakpoint_called(frame)


def post_mortem(exception: BaseException) -> None:
    debugger = _debugger()
    if debugger is not None:
        debugger.post_mortem(exception, exception.__traceback__)
