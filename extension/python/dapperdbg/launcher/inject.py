"""Attached into a running process: the entry point of an attach by process id
(docs/ipc.md, "Attach by process id").

The host injects a tiny bootstrap into the process (``sys.remote_exec`` on 3.14+, gdb or
lldb before); it puts this package on ``sys.path`` for the import, takes it off again and
calls ``attach`` with the engine's address, the session's token and its id. ``attach``
runs in whatever thread the interpreter picked (the main thread at an eval breaker for
``sys.remote_exec``, the interrupted thread under gdb), so it only starts the session's
thread and returns; nothing it does may raise into the program.

The session thread connects, says the launcher's hello with the token, and once the
client's configuration is done installs the tracer for every thread: sys.monitoring
(3.12+) is process-wide, and the settrace backend (3.9-3.11) gives the running threads a
trace function from outside (tracing/remote.py). The program's output is not captured:
it goes where it went, and ``redirectOutput`` tees it into the debug console. When the
debugger goes (disconnect, or the client closing), everything the session put into the
process is taken out again, so that it runs on exactly as before and a later attach
starts afresh; ``dapper/terminate`` ends the program as for ``--listen``.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys

from .. import children
from ..children import fork_safety
from ..common.debugger_threads import start_debugger_thread
from ..common.native import Event, allocate_lock
from ..common.package import restore_bytecode_setting
from ..requests.dispatch import dispatch
from ..session.lifecycle import ExitState, Session, finish_session, start_reader, start_tracing
from ..session.link import SessionLink, hello
from ..tracing import choose_backend_name
from .environment import DapperEnvironment

THREAD_NAME = "dapper.attach"
# Taken while an attach checks that no other session debugs the process and claims it.
_CLAIM = allocate_lock()


def _say(message: str) -> None:
    # A closed or missing stderr: nothing else to tell.
    with contextlib.suppress(Exception):
        print(f"dapper: {message}", file=sys.stderr, flush=True)


def _program_name() -> str:
    """The running program: its main script's path, else its command line's first word."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if isinstance(path, str) and path:
        return os.path.abspath(path)
    argv = getattr(sys, "argv", None) or [""]
    return argv[0] or f"python (pid {os.getpid()})"


def attach(address: str, token: str, session_id: str) -> None:
    """Start the session in this process; returns at once and never raises."""
    try:
        start_debugger_thread(THREAD_NAME, _run, address, token, session_id)
    except BaseException as error:  # Never into the program's own code.
        _say(f"the debugger could not attach: {error!r}")


def _run(address: str, token: str, session_id: str) -> None:
    try:
        _session(address, token, session_id)
    except BaseException as error:
        _say(f"the debugger could not attach: {error!r}")


def _session(address: str, token: str, session_id: str) -> None:
    # Importing the package turned bytecode writing on for its own modules.
    restore_bytecode_setting()
    environment = DapperEnvironment({"DAPPER_SESSION_TOKEN": token})
    exit_state = ExitState()
    # The program's exit status never reaches Python code (atexit handlers run without
    # it): its end is reported without one, as `terminated` without `exited`.
    exit_state.code = None
    link = SessionLink(session_id, None, token, environment.variables, exit_state)
    try:
        session = Session.connect(address, choose_backend_name(None), environment, link,
                                  exit_state)
    except OSError as error:
        _say(f"cannot connect to the debugger at {address}: {error}")
        return
    debugger = session.debugger
    with _CLAIM:
        debugged = fork_safety.session_debugger() is not None
        if not debugged:
            # The process's session from now on. A fork child drops its copy of the
            # connection; os._exit reports the exit.
            fork_safety.install(debugger)
    if debugged:
        # Launched under Dapper, started with --listen, or attached to already: one
        # debugger at a time. Said with the token, so the engine tells the user why.
        message = ("it is debugged by Dapper already (a debug session, or python -m "
                   "dapperdbg --listen); use that session, or attach with 'connect'")
        debugger.connection.send_event("dapper/refused", {"token": token, "message": message})
        debugger.connection.close()
        return
    # The launcher's hello, naming the program (the engine shows it in place of a pid).
    if not debugger.connection.send_event(*hello(session_id, token=token, name=_program_name())):
        fork_safety.uninstall()
        debugger.connection.close()
        return
    ended = Event()

    def on_message(message: dict) -> None:
        link.observe(message)
        dispatch(debugger, message)

    def on_end() -> None:
        # Stopped threads are released first (detach), then the hooks go.
        atexit.unregister(finish_session)
        children.deactivate()
        fork_safety.uninstall()
        debugger.remove_from_process()
        debugger.connection.close()
        ended.set()

    # configurationDone is answered once tracing has started (requests/configuration.py).
    tracing_ready = debugger.tracing_ready = Event()
    # The program's exit while attached is reported as a launched program's is.
    atexit.register(finish_session, debugger, exit_state)
    start_reader(debugger, debugger.connection, on_message, on_end)
    if not session.wait_until_configured():
        return
    try:
        debugger.activate_instrumentation()
        start_tracing(debugger)
        # The program's frames run already: the tracer looks at them for breakpoints now,
        # as it does when breakpoints change, rather than at their next call.
        debugger.breakpoints_changed()
        # The children it starts from now on are debugged, as a launched program's are.
        children.activate(link, debugger)
    finally:
        tracing_ready.set()
    if ended.is_set():
        # The debugger went away while the tracer was being installed.
        children.deactivate()
        fork_safety.uninstall()
        debugger.remove_from_process()
