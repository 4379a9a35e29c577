"""A child process that runs dormant: its debugger is made at the first thing that
needs it.

A child configured to stop at nothing from its first line (no line, function or data
breakpoint, no exception filter but ``uncaught``, no stop on entry), whether by what it
inherited (session/inheritance.py) or by its client's own session, has no use for a
debugger until someone asks it something, and most children of a test suite run for a
few milliseconds and end before anyone does. The debugger's modules are some thirty-five
of the eighty of the package that a child's start loads. So such a child runs with only
what a debugger made later could not make up for:

- its connection, and the requests that configured it, kept to give the debugger;
- the user's modules loaded restartable, and the program compiled so
  (instrumentation/restart_loading.py), so that Restart Frame works in frames that
  began before the debugger;
- the output tees of a terminal console (inspection/output_capture.py);
- the hooks that attach its own children, fork's and ``os._exit``'s (children/);
- ``breakpoint()``'s hook, and, with the ``uncaught`` filter on, the hooks where
  uncaught exceptions end up;
- the exit's ``dapper/exiting``;
- a reader thread.

The requests that only confirm that the child is to stop at nothing (a
``dapper/configure`` that asks for no stop on entry, as its configuration; breakpoints
that are none; exception filters of ``uncaught`` at most; ``configurationDone``) are
answered here, before the program as after. Any other request wakes the child: the
debugger is made, given the requests answered so far, and the tracer is put in the
running threads, as an attach by process id does (launcher/inject.py); then the request
is handled. ``breakpoint()``, ``dapperdbg.breakpoint()`` and ``post_mortem()``, and an
uncaught exception under the ``uncaught`` filter, wake it on the thread that meets them,
which then stops. A request that needs the debugger before the program runs makes the
child a session as any other (the launcher's ``configure`` says so). What a woken child
lacks: ``thread`` events for the threads that started while it slept (a ``threads``
request lists them all).
"""

from __future__ import annotations

import atexit
import sys
import time

from ..common import program_threading
from ..common.debugger_threads import start_debugger_thread
from ..common.native import allocate_lock
from ..common.output import TERMINAL_CONSOLES, flush_output
from . import breakpoint_hook, program
from .link import own_keys

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

    from ..ipc.connection import Connection
    from .debugger import Debugger
    from .lifecycle import Session
    from .link import ExitState, SessionLink

# The only exception filter a dormant child honours: the others stop where an exception
# is raised or leaves the user's code, which takes the tracer from the first line.
_UNCAUGHT = "uncaught"
# The requests a dormant child may answer itself, when they ask for nothing new.
_CONFIRMING = frozenset(("dapper/configure", "setBreakpoints", "setFunctionBreakpoints",
                         "setExceptionBreakpoints", "configurationDone"))
# How soon after its hello a quiet child may end without waiting for the engine to close
# its end (DormantChild._ends_quiet): half the engine's CHILD_SESSION_DELAY_MS, which a
# test of the engine's (core/src/router/child_table.rs) holds to at least twice this.
QUIET_END_SECONDS = 0.05
# Launch settings that need the debugger before the program's first line.
_FROM_THE_START = ("stopOnEntry", "noDebug", "keepExecSources")


def may_run_dormant(tracer_name: str, variables) -> bool:
    """Whether a child may run dormant with this tracer: one that can be put in running
    threads from another (sys.monitoring, or sys.settrace where ctypes is there), with
    breakpoints as instrumented copies (``DAPPER_INSTRUMENT``), which let a woken
    debugger run them without a trace function."""
    from ..common.tracer_choice import remote_expected
    from ..instrumentation.switches import enabled

    return enabled(variables) and (tracer_name == "monitoring" or remote_expected())


def _asks_nothing(command, arguments) -> bool:
    """Whether a request leaves a dormant child nothing to do before an exception is
    uncaught (a malformed one is the debugger's to refuse)."""
    if command not in _CONFIRMING or not isinstance(arguments, dict):
        return False
    if command == "dapper/configure":
        launch = arguments.get("launch", {})
        return isinstance(launch, dict) and not any(launch.get(key) for key in _FROM_THE_START)
    if command == "setBreakpoints":
        source = arguments.get("source")
        if not isinstance(source, dict) or not isinstance(source.get("path"), str):
            return False
    if command in ("setBreakpoints", "setFunctionBreakpoints"):
        return not arguments.get("breakpoints") and not arguments.get("lines")
    if command == "setExceptionBreakpoints":
        return _uncaught_only(arguments) is not None
    return True


def _uncaught_only(arguments: dict) -> bool | None:
    """Whether exception filters that hold no more than ``uncaught`` hold it; None when
    they hold others (or are malformed)."""
    filters = arguments.get("filters") or []
    options = arguments.get("filterOptions") or []
    if (not isinstance(filters, list) or not isinstance(options, list)
            or arguments.get("exceptionOptions")):
        return None
    ids = list(filters)
    for option in options:
        if not isinstance(option, dict):
            return None
        ids.append(option.get("filterId"))
    if any(filter_id != _UNCAUGHT for filter_id in ids):
        return None
    return bool(ids)


def _inheritance_asks_nothing(message: dict) -> bool:
    """Whether a ``dapper/inherit`` gives a child only requests that ask for nothing."""
    arguments = message.get("arguments")
    requests = arguments.get("requests") if isinstance(arguments, dict) else None
    return isinstance(requests, list) and all(
        isinstance(request, dict) and request.get("command") != "configurationDone"
        and _asks_nothing(request.get("command"), request.get("arguments"))
        for request in requests)


class DormantChild:
    """A child's session without its debugger, and the debugger's stand-in for what the
    child-process hooks, ``breakpoint()`` and the in-code API ask of it
    (``connection``, ``detached``, ``launch_configuration``, ``no_debug``,
    ``environment``, ``tracer_name``, ``abandon_after_fork``, ``leave_fork_child``,
    ``breakpoint_called``, ``post_mortem``)."""

    no_debug = False

    def __init__(self, connection: Connection, link: SessionLink, exit_state: ExitState,
                 environment, tracer_name: str, program_path: str | None) -> None:
        self.connection = connection
        self.environment = environment
        self.tracer_name = tracer_name
        self._link = link
        self._exit_state = exit_state
        self._program_path = program_path
        # What the debugger is to be given when it is made: the requests answered here
        # (an inheritance among them), in order.
        self.answered: list[dict] = []
        # The configuration in force (dapper/configure's arguments, without the launch
        # configuration's private keys), once one came.
        self._configuration: dict | None = None
        self.launch_configuration: dict = {}
        # Whether the child runs on an inheritance its client has not confirmed yet
        # (its events for the client are held until then), and whether the client sent
        # exception filters of its own meanwhile.
        self._inherited = False
        self._exceptions_sent = False
        self._uncaught = False
        # The session once made, and whether the connection ended (or was left behind
        # by a fork) before.
        self._session: Session | None = None
        self._wake_lock = allocate_lock()
        self._gone = False
        # Whether anything arrived once the child was configured, and how many messages
        # it had sent then (``_ends_quiet``).
        self._heard = False
        self._sent_at_start = 0
        self._output = None
        # The user's files loaded restartable before the debugger was made.
        self._restartable_files: list[str] = []

    # Before the program.

    def configure(self) -> list[dict] | None:
        """Read what the engine sends and answer what asks for nothing, until the child
        is configured: by an inheritance it can run dormant on, or by its client's
        ``configurationDone`` (None: it runs dormant). Otherwise the messages its debugger
        is to handle next (none when the connection ended): the debugger is made now and
        given ``answered`` first."""
        while True:
            message = self.connection.next_arrived(wait=True)
            if message is None:
                return []
            if message.get("type") == "request" and message.get("command") == "dapper/inherit":
                if self.answered or not _inheritance_asks_nothing(message):
                    return [message]
                self._take_inheritance(message)
                return None
            if not self._answered(message):
                return [message]
            if message.get("command") == "configurationDone":
                return None

    def _take_inheritance(self, message: dict) -> None:
        self._link.observe(message)
        self.answered.append(message)
        self._inherited = True
        for request in message["arguments"]["requests"]:
            arguments = request["arguments"]
            if request["command"] == "dapper/configure":
                self._configure(arguments)
            elif request["command"] == "setExceptionBreakpoints":
                self._uncaught = bool(_uncaught_only(arguments))

    def _configure(self, arguments: dict) -> None:
        self._configuration = own_keys(arguments)
        launch = arguments.get("launch")
        self.launch_configuration = launch if isinstance(launch, dict) else {}

    def start(self) -> None:
        """Just before the program: everything but the debugger (the module's
        docstring)."""
        from ..common.library_code import set_rules

        if self._inherited:
            self.connection.hold_events()
        self._sent_at_start = self.connection.sent
        launch = self.launch_configuration
        set_rules(launch.get("rules"))
        self._capture_output(launch)
        self._load_restartable()
        program.uncaught_exception_hook = self._uncaught_exception
        program_threading.when_imported(self._hook_threads)
        breakpoint_hook.install(self)
        atexit.register(self._finish)
        start_debugger_thread("dapper.ipc", self._read)

    def _capture_output(self, launch: dict) -> None:
        # The tees' module is loaded only where they go in: a child whose output the
        # host reads from its pipes has no use for it.
        if launch.get("console") not in TERMINAL_CONSOLES:
            return
        from ..inspection.output_capture import OutputCapture

        connection = self.connection
        output = OutputCapture(lambda category, text: connection.send_event(
            "output", {"category": category, "output": text}))
        output.configure(launch)
        self._output = output if output.installed else None

    def _load_restartable(self) -> None:
        """The user's modules, and the program, compiled restartable from now on, as the
        debugger's instrumentation loads them (instrumentation/instrumentation.py); the
        files loaded so are the debugger's to know once it is made."""
        from ..common.paths import canonical_path
        from ..instrumentation import restart_loading, switches
        from ..instrumentation.user_files import restartable_file, restartable_source

        variables = self.environment.variables if self.environment is not None else {}
        if not switches.restartable_enabled(variables):
            return
        restart_loading.enable(restartable_source, self._restartable_files.append)

        def compile_program(source: bytes, filename: str) -> types.CodeType:
            canonical = canonical_path(filename)
            code = restart_loading.restartable_code(source, filename, canonical) if (
                restartable_file(canonical)) else None
            if code is None:
                code = compile(source, filename, "exec", dont_inherit=True)
            return code

        program.compile_program_hook = compile_program

    def _hook_threads(self, threading) -> None:
        original = threading.excepthook

        def thread_excepthook(arguments) -> None:
            # Once awake, the debugger's own hook (installed over this one) has seen it.
            if arguments.exc_value is not None and self._session is None:
                self._uncaught_exception(arguments.exc_value, arguments.exc_traceback)
            original(arguments)

        threading.excepthook = thread_excepthook

    def _uncaught_exception(self, error: BaseException, traceback=None) -> None:
        if self._uncaught and self._session is None and not isinstance(error, SystemExit):
            debugger = self.wake()
            if debugger is not None:
                debugger.exceptions.uncaught(
                    error, error.__traceback__ if traceback is None else traceback)

    # The reader, while the program runs.

    def _read(self) -> None:
        try:
            self.connection.read_loop(self._on_message)
        finally:
            self._reading_ended()

    def _on_message(self, message: dict) -> None:
        self._heard = True
        with self._wake_lock:
            session = self._session
            if session is None and self._answered(message):
                return
        if session is None:
            self.wake()
            session = self._session
        if session is not None:
            session.on_message(message)
        elif message.get("type") == "request":
            self.connection.send_response(
                message, error="the debugger could not start in this process")

    def _answered(self, message: dict) -> bool:
        """Answer a request that asks for nothing new; False for any other message."""
        command = message.get("command")
        arguments = message.get("arguments", {})
        if message.get("type") != "request":
            return False
        if command == "threads":
            # VS Code asks as its session starts: a program with one thread is answered
            # without the debugger, as the debugger would answer.
            threads = self._main_thread_alone()
            if threads is not None:
                self.connection.send_response(message, {"threads": threads})
            return threads is not None
        if not _asks_nothing(command, arguments):
            return False
        if command == "dapper/configure":
            if self._configuration is None:
                self._configure(arguments)
            elif own_keys(arguments) != self._configuration:
                return False
            body: dict = {}
        elif command == "setExceptionBreakpoints":
            self._uncaught, self._exceptions_sent = bool(_uncaught_only(arguments)), True
            count = len(arguments.get("filters") or []) + len(
                arguments.get("filterOptions") or [])
            body = {"breakpoints": [{"verified": True} for _ in range(count)]}
        elif command == "configurationDone":
            # What the client did not send again of what was inherited is not its
            # (session/inheritance.py).
            if self._inherited and not self._exceptions_sent:
                self._uncaught = False
            body = {}
        else:
            body = {"breakpoints": []}
        self._link.observe(message)
        self.answered.append(message)
        self.connection.send_response(message, body)
        if command == "configurationDone" and self._inherited:
            self._inherited = False
            self.connection.release_events()
        return True

    def _main_thread_alone(self) -> list[dict] | None:
        """The threads request's answer while the main thread is the program's only one;
        None otherwise, and where greenlets or asyncio tasks are shown as threads."""
        if "greenlet" in sys.modules or self.launch_configuration.get("asyncioTasksAsThreads"):
            return None
        threads = program_threading.threads()
        if len(threads) != 1 or threads[0] is not program_threading.main_thread():
            return None
        return [{"id": program_threading.MAIN_THREAD_ID, "name": threads[0].name}]

    def _reading_ended(self) -> None:
        with self._wake_lock:
            session = self._session
            if session is None:
                self._gone = True
        if session is not None and not self._exit_state.finished:
            session.debugger.detach()

    # Waking.

    def wake(self) -> Debugger | None:
        """The debugger, made now if it was not (None once the connection is gone)."""
        session = self._session
        if session is not None:
            return session.debugger
        with self._wake_lock:
            if self._session is None and not self._gone:
                try:
                    self._session = self._awake()
                except Exception:
                    # The program runs on undebugged, as a child whose session could
                    # not start does.
                    self._gone = True
                    from ..common.errors import report_internal_error

                    report_internal_error("the debugger of a dormant child")
            session = self._session
        return session.debugger if session is not None else None

    def _awake(self) -> Session:
        """The session, made in the running program."""
        from .lifecycle import start_tracing

        session = self.session()
        debugger = session.debugger
        debugger.activate_instrumentation()
        # The files loaded restartable until the line above made the debugger's registry
        # their record (session/hot_reload.py reads it).
        instrumentation = debugger.probes.instrumentation
        if instrumentation is not None:
            for canonical in self._restartable_files:
                instrumentation.registry.add_restartable_file(canonical)
        start_tracing(debugger)
        debugger.breakpoints_changed()
        return session

    def session(self) -> Session:
        """A session with a debugger given what was answered here."""
        from ..requests.configuration import apply_requests
        from .lifecycle import Session

        session = Session.on(self.connection, self.tracer_name, self.environment,
                             self._link, self._exit_state)
        debugger = session.debugger
        if self._program_path is not None:
            debugger.store.loaded.set_program(self._program_path)
        # The output tees in place are the debugger's: its configuration must not put
        # others over them.
        debugger.inspection.output = self._output
        apply_requests(debugger, self.answered)
        return session

    # The debugger's stand-in.

    @property
    def detached(self) -> bool:
        session = self._session
        return session.debugger.detached if session is not None else self._gone

    def abandon_after_fork(self) -> None:
        """In a fork child: the parent's session, copied, is not this process's, nor is
        its exit handler."""
        self._gone = True
        # A thread of the parent may have held it at the fork (a wake under way).
        self._wake_lock = allocate_lock()
        atexit.unregister(self._finish)
        session = self._session
        if session is not None:
            session.debugger.abandon_after_fork()
        else:
            self.connection.abandon_after_fork()

    def leave_fork_child(self) -> None:
        """In a fork child that becomes a session of its own: the parent's tracer goes,
        if it had one."""
        session = self._session
        if session is not None:
            session.debugger.leave_fork_child()

    def breakpoint_called(self, frame: types.FrameType) -> None:
        debugger = self.wake()
        if debugger is not None:
            debugger.breakpoint_called(frame)

    def post_mortem(self, exception: BaseException, traceback) -> None:
        debugger = self.wake()
        if debugger is not None:
            debugger.post_mortem(exception, traceback)

    # The end.

    def _finish(self) -> None:
        """The last exit handler: session/lifecycle.py's ``finish_session`` once awake,
        else its like without a debugger."""
        with self._wake_lock:
            session = self._session
            self._exit_state.finished = True
        if session is not None:
            from .lifecycle import finish_session

            finish_session(session.debugger, self._exit_state)
            return
        flush_output()
        connection = self.connection
        connection.release_events()
        connection.send_event("dapper/exiting", {"exitCode": self._exit_state.code})
        connection.close(linger=not self._ends_quiet())

    def _ends_quiet(self) -> bool:
        """Whether the engine can have nothing on its way to this child as it ends, which
        may then close without waiting for the engine to close its end
        (Connection.close): each of a test suite's short children waited a round trip
        through the engine for it. So it is for a child that runs on an inheritance its
        client has not confirmed, has heard nothing and said nothing since (the engine asks
        the client at once for a child that says something), and ends within
        QUIET_END_SECONDS of its hello: the engine asks the client for such a child's
        session only once it has run CHILD_SESSION_DELAY_MS from its hello at the
        earliest (core/src/router/child_table.rs), and writes to it only after that
        client has come."""
        hello_at = self._link.hello_at
        return (self._inherited and not self._heard
                and self.connection.sent == self._sent_at_start + 1
                and hello_at is not None and time.monotonic() - hello_at < QUIET_END_SECONDS)
