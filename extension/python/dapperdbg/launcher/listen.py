"""``python -m dapperdbg --listen [HOST:]PORT …`` and ``--connect [HOST:]PORT …``: run a
program that debuggers attach to (docs/ipc.md, "Attach"); the in-code API (api.py)
makes the running program one.

The roles of the launcher are turned around: the program listens and the engine
connects, or the engine listens and the program connects, with no token either way.
One debugger at a time: a second one is told ``dapper/refused`` and closed.
The tracer is installed before the program starts and stays for the whole run, so that
breakpoints apply as soon as a debugger sets them; while none is attached the debugger
is *detached* (no breakpoints, no stops), and every debugger that disconnects leaves it
so again, for the next one to attach.

There is no token: the listener is the server here, and whoever can connect to it
controls the program. That is why it listens on loopback unless told otherwise, and on
Linux refuses a connection from another local user (``ipc.peer``).
"""

from __future__ import annotations

import _socket
import atexit
import contextlib
import os
import socket
import sys

from .. import children
from ..breakpoints.exception_filters import DEFAULT_FILTERS
from ..common.debugger_threads import start_debugger_thread
from ..common.native import Event, allocate_lock
from ..common.package import restore_bytecode_setting
from ..common.start_freeze import remember_interpreter_freeze
from ..ipc.connection import Connection
from ..ipc.dial import accept, connect_tcp, resolvable_host
from ..ipc.frames import KIND_FROM_DEBUGGEE, encode_frame
from ..ipc.peer import refusal
from ..requests.dispatch import dispatch
from ..session.debugger import Debugger
from ..session.lifecycle import (
    ExitState,
    finish_session,
    instrument_program,
    run_program,
    start_reader,
)
from ..session.link import SessionLink, hello
from ..tracing import choose_backend_name
from .environment import DapperEnvironment, take_dapper_environment
from .listen_cli import USAGE, UsageError, parse_arguments
from .reattach_file import new_reattach_file, remove_reattach_file, write_reattach_file

# Exit statuses a shell reports for SIGTERM and SIGKILL, announced before ending that way.
# How long ``--connect`` tries to reach the debugger.
CONNECT_TIMEOUT_S = 10.0


class CurrentClient:
    """The debugger's connection: the attached debugger's, or none (messages are then
    dropped). It stays the same object for the whole run because parts of the debuggee
    keep the connection they were configured with (the output tees do)."""

    def __init__(self) -> None:
        self._connection: Connection | None = None

    def bind(self, connection: Connection | None) -> None:
        self._connection = connection

    @property
    def closed(self) -> bool:
        connection = self._connection
        return connection is None or connection.closed

    def send(self, message: dict) -> bool:
        connection = self._connection
        return connection is not None and connection.send(message)

    def send_event(self, event: str, body: dict | None = None) -> bool:
        connection = self._connection
        return connection is not None and connection.send_event(event, body)

    def send_response(self, request: dict, body: dict | None = None,
                      error: str | None = None) -> bool:
        connection = self._connection
        return connection is not None and connection.send_response(request, body, error)

    def close(self) -> None:
        connection = self._connection
        if connection is not None:
            connection.close()

    def abandon_after_fork(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.abandon_after_fork()


def _display(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def open_server(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port); raises OSError with the reason. Made with
    ``_socket`` itself, as its connections are (ipc/dial.py says why)."""
    family, kind, proto, _, address = _socket.getaddrinfo(resolvable_host(host), port, 0,
                                                        _socket.SOCK_STREAM)[0]
    server = _socket.socket(family, kind, proto)
    try:
        if os.name != "nt":
            # A restarted program may listen on its port again at once.
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(address)
        server.listen(1)
    except BaseException:
        server.close()
        raise
    return server


def program_name(arguments) -> str:
    """The hello's name of a launched or listening program's target."""
    if arguments.target_kind == "program":
        return os.path.abspath(arguments.target)
    if arguments.target_kind == "module":
        return arguments.target
    return "python -c"


class AttachedProgram:
    """A program a debugger attaches to, one debugger at a time: on a connection the
    program accepted (``--listen``, ``dapperdbg.listen``) or one it made to the debugger's
    listener (``--connect``, ``dapperdbg.connect``). Its debugger stays detached (no
    breakpoints, no stops) whenever no debugger is configured."""

    def __init__(self, debugger: Debugger, client: CurrentClient, link: SessionLink,
                 name: str, program: str | None) -> None:
        self.debugger = debugger
        self.client = client
        self.link = link
        self.name = name
        # The program file, which runs (or already runs) whatever the debugger has
        # imported: its breakpoints are verified at once, as a launch's are.
        self.program = program
        self.server: socket.socket | None = None
        # Where this program connected to the debugger (--connect): its children connect
        # to the same place.
        self.connected_to: tuple[str, int] | None = None
        self._lock = allocate_lock()
        self._attached = False
        # Set while a debugger is configured (wait_for_client waits for it).
        self.configured = Event()
        # Set when a debugger leaves, configured or not.
        self.detached = Event()
        # How many debuggers the children were told of (the reattach file's generation).
        self._generation = 0

    def hello(self) -> tuple[str, dict]:
        if self.link.is_child:
            # A child of an attached program, connecting to the next debugger (reattach.py).
            return self.link.hello()
        return hello(self.link.session_id, name=self.name)

    def listen(self, server: socket.socket) -> None:
        """Accept debuggers on ``server`` for the rest of the run."""
        self.server = server
        start_debugger_thread("dapper.listen", self._accept_loop)

    def connect(self, host: str, port: int, timeout: float | None = None) -> None:
        """Connect to a debugger that listens on (host, port) and attach it. Raises
        OSError with the reason when it cannot be reached."""
        sock = connect_tcp((host, port), timeout)
        sock.settimeout(None)
        self.connected_to = (host, port)
        self.attach_socket(sock)

    def attach_socket(self, sock: socket.socket) -> None:
        """Attach the debugger at the other end of ``sock``, a connection this program
        made. Raises OSError when a debugger is attached already."""
        if not self._claim():
            sock.close()
            raise OSError("a debugger is attached to this program already")
        self._attach(sock)

    def is_client_connected(self) -> bool:
        return self.configured.is_set() and not self.client.closed

    def _claim(self) -> bool:
        with self._lock:
            busy, self._attached = self._attached, True
        return not busy

    def _accept_loop(self) -> None:
        assert self.server is not None
        while True:
            try:
                sock, address = accept(self.server)
            except OSError:
                return  # The listener was closed: the program is ending.
            why = refusal(sock)
            if why is not None:
                print(f"dapper: refused a debugger from {_display(*address[:2])}: {why}",
                      file=sys.stderr, flush=True)
                _refuse(sock, f"refused: {why}")
                continue
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if not self._claim():
                _refuse(sock, "another debugger is attached to it")
                continue
            self._attach(sock)

    def _attach(self, sock: socket.socket) -> None:
        """A debugger connected: it gets a fresh debugger state, which stays detached
        (no stops) until its configurationDone, like a launched program before it runs."""
        debugger = self.debugger
        connection = Connection(sock)
        self.detached.clear()
        debugger.configuration_done = Event()
        debugger.set_exception_filters(DEFAULT_FILTERS)
        # The hello first: what the program's threads send goes to the bound client, and
        # nothing may reach the debugger before the hello (the program's first notice
        # did, when it started as the debugger connected).
        if not connection.send_event(*self.hello()):
            connection.close()
            self._detach()
            return
        self.client.bind(connection)
        start_reader(debugger, connection, self._on_message, self._detach)

    def _on_message(self, message: dict) -> None:
        command = message.get("command") if message.get("type") == "request" else None
        self.link.observe(message)
        if command == "dapper/configure":
            self._children_connect_where_this_program_did()
        dispatch(self.debugger, message)
        if command == "dapper/configure":
            # An attach configuration names no program; this process knows it.
            self.debugger.store.loaded.set_program(self.program)
        if command == "configurationDone" and self.debugger.configuration_done.is_set():
            # Stops are allowed from here on, as after a launch's configurationDone, and
            # the children started from now on are debugged.
            self.debugger.attach()
            if children.activate(self.link, self.debugger):
                self._tell_children_where()
            self.configured.set()

    def _children_connect_where_this_program_did(self) -> None:
        """The engine's attach listener is its child listener too; its own idea of its
        address (0.0.0.0, a tunnel's far end) may not be where this machine reaches it."""
        listener = self.link.child_listener
        if (self.connected_to is not None and listener is not None
                and listener.get("transport") == "tcp"
                and listener.get("port") == self.connected_to[1]):
            host, port = self.connected_to
            self.link.child_listener = {"transport": "tcp", "host": host, "port": port}

    def _tell_children_where(self) -> None:
        """The children still running from an earlier debugger reconnect to this one:
        they read where from the reattach file (reattach.py), and are announced again."""
        address = self.link.children_address(self.debugger)
        if address is None or self.link.is_child:
            return
        self._generation += 1
        try:
            if self.link.reattach_file is None:
                # Made before the first child starts: the hooks hand it to each child.
                self.link.reattach_file = new_reattach_file()
            write_reattach_file(self.link.reattach_file, {
                "generation": self._generation, "address": address[0],
                "token": self.link.token})
        except OSError as error:
            print(f"dapper: running children cannot reconnect: {error}", file=sys.stderr)
            return
        children.announce_again()

    def _detach(self) -> None:
        """The debugger went away: the program runs on, ready for the next one."""
        children.deactivate()
        self.configured.clear()
        self.debugger.detach()
        self.client.close()
        self.client.bind(None)
        with self._lock:
            self._attached = False
        self.detached.set()

    def close(self) -> None:
        if self.server is not None:
            with contextlib.suppress(OSError):
                self.server.close()


def start_attached_program(name: str, program: str | None,
                           environment: DapperEnvironment | None = None,
                           tracer_name: str | None = None) -> tuple[AttachedProgram, ExitState]:
    """The debugger of a program that debuggers attach to, detached until one does, with
    its exit reported to whichever is attached then. Raises ValueError for a bad
    DAPPER_TRACER."""
    environment = DapperEnvironment() if environment is None else environment
    if tracer_name is None:
        tracer_name = choose_backend_name(environment.variables.get("DAPPER_TRACER"))
    client = CurrentClient()
    debugger = Debugger(client, tracer_name)  # type: ignore[arg-type]
    debugger.environment = environment
    debugger.detach()
    state = ExitState()
    # The token and the child listener come with each debugger's dapper/configure.
    link = SessionLink(f"listen-{os.getpid()}", None, "", environment.variables, state)
    session = AttachedProgram(debugger, client, link, name, program)
    atexit.register(_on_exit, session, state)
    # Fork children drop their copy of the connection and os._exit still reports; the
    # hooks for children are installed while a debugger is configured.
    children.activate(link, debugger)
    return session, state


def _refuse(sock: socket.socket, reason: str) -> None:
    message = {"seq": 1, "type": "event", "event": "dapper/refused",
               "body": {"message": reason}}
    with contextlib.suppress(OSError):
        sock.sendall(encode_frame(KIND_FROM_DEBUGGEE, message))
    with contextlib.suppress(OSError):
        sock.close()


def _on_exit(session: AttachedProgram, state: ExitState) -> None:
    """Runs last among the atexit handlers, as the launcher's does."""
    session.close()
    finish_session(session.debugger, state)
    if session.link.reattach_file is not None:
        remove_reattach_file(session.link.reattach_file)


def main(argv: list[str] | None = None) -> int:
    # Every module of the package the session needs is imported by now.
    restore_bytecode_setting()
    remember_interpreter_freeze()  # Before the program: what is frozen is not its own.
    arguments_list = sys.argv[1:] if argv is None else argv
    if arguments_list in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    try:
        arguments = parse_arguments(arguments_list)
    except UsageError as error:
        print(f"dapper: {error}\n{USAGE}", file=sys.stderr)
        return 2
    environment = take_dapper_environment()
    try:
        tracer_name = choose_backend_name(environment.variables.get("DAPPER_TRACER"))
    except ValueError as error:
        print(f"dapper: {error}", file=sys.stderr)
        return 1
    where = _display(arguments.host, arguments.port)
    server = None
    if arguments.mode == "listen":
        try:
            server = open_server(arguments.host, arguments.port)
        except OSError as error:
            print(f"dapper: cannot listen on {where}: {error}", file=sys.stderr)
            return 1
    program = program_name(arguments) if arguments.target_kind == "program" else None
    session, state = start_attached_program(program_name(arguments), program, environment,
                                            tracer_name)
    if server is not None:
        host, port = server.getsockname()[:2]
        waiting = " (the program starts when one attaches)" if arguments.wait_for_client else ""
        print(f"dapper: listening for a debugger on {_display(host, port)}{waiting}",
              file=sys.stderr, flush=True)
        session.listen(server)
    else:
        try:
            session.connect(arguments.host, arguments.port, CONNECT_TIMEOUT_S)
        except OSError as error:
            print(f"dapper: cannot connect to the debugger at {where}: {error}",
                  file=sys.stderr)
            state.code = 1
            return 1
    if arguments.wait_for_client or arguments.mode == "connect":
        # The program starts once the debugger is configured, so that its breakpoints
        # apply from the first line; a debugger that leaves first lets it run without.
        try:
            while not session.configured.wait(0.5):
                if arguments.mode == "connect" and session.detached.is_set():
                    print("dapper: the debugger went away before the program started; it "
                          "runs without the debugger", file=sys.stderr, flush=True)
                    break
        except KeyboardInterrupt:
            state.code = 130
            return state.code
    instrument_program(session.debugger, trace=True)
    state.code = run_program(arguments, session.debugger, trace=True)
    return state.code
