"""One debug session of this process, from its connection to its end (docs/ipc.md).

    connect → hello → reader → configurationDone → instrumentation → tracer → program
    → finish

The steps are written once, here, and run in three places:

- ``python -m dapperdbg.launcher`` (launcher/launch.py): a launched program, or a child
  process started under the launcher by the hooks of a debugged parent;
- ``python -m dapperdbg --listen`` (launcher/listen.py): the connection comes the other
  way, from every debugger that attaches, and the tracer runs from the start;
- a fork child (children/fork.py), which becomes a session of its own in the middle
  of the program it copied.
"""

from __future__ import annotations

import _signal
import atexit
import os
import sys

from ..common.debugger_threads import start_debugger_thread
from ..common.errors import report_internal_error
from ..common.module_files import program_runs
from ..common.native import sleep
from ..common.output import flush_output
from ..ipc.connection import Connection, connect
from ..requests.dispatch import dispatch
from ..tracing import ToolIdInUse
from ..tracing.fast_paths import tracer_notice
from . import program
from .debugger import Debugger
from .link import ExitState, SessionLink

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Callable


class Session:
    """A connected session: the debugger, what the session knows about itself (its link)
    and how its program ended."""

    def __init__(self, debugger: Debugger, link: SessionLink, exit_state: ExitState) -> None:
        self.debugger = debugger
        self.link = link
        self.exit_state = exit_state

    @classmethod
    def connect(cls, address: str, tracer_name: str, environment, link: SessionLink,
                exit_state: ExitState) -> Session:
        """Connect to the engine at ``address`` (an ``--ipc`` value). Raises AddressError
        or OSError with the reason."""
        return cls.on(Connection(connect(address)), tracer_name, environment, link,
                      exit_state)

    @classmethod
    def on(cls, connection: Connection, tracer_name: str, environment, link: SessionLink,
           exit_state: ExitState) -> Session:
        """The session on ``connection``, a connection to the engine (launcher/launch.py
        says the hello on it before importing this module)."""
        debugger = Debugger(connection, tracer_name)
        debugger.environment = environment
        return cls(debugger, link, exit_state)

    def say_hello(self) -> bool:
        """Send the hello; False when the engine closed the connection already."""
        return self.debugger.connection.send_event(*self.link.hello())

    def finish_at_exit(self) -> None:
        """Register ``finish_session`` with atexit. Done before the user's code runs, so
        that it runs after the user's own handlers."""
        atexit.register(finish_session, self.debugger, self.exit_state)

    def start_reader(self, end_with_engine: bool = False) -> None:
        """Start the thread that answers the engine's requests until the connection ends,
        when the debugger detaches and the program runs on; but with ``end_with_engine``
        (a launched program) a connection that ends without ``dapper/detach`` means the
        engine died, and the program ends as a launched program ends with its debugger
        instead of running on as an orphan."""
        debugger, exit_state = self.debugger, self.exit_state

        def on_end() -> None:
            # Before configurationDone the launcher itself ends, saying why. The signal
            # goes before the stopped threads are released: the program must not run on
            # meanwhile (its own SIGTERM handler runs once they are).
            if (end_with_engine and debugger.connection.ended_by_peer
                    and debugger.configuration_done.is_set()
                    and not debugger.detach_requested and not exit_state.finished):
                end_without_engine()
            if not exit_state.finished:  # Else the process ends: finish_session detached.
                debugger.detach()

        start_reader(debugger, debugger.connection, self.on_message, on_end)

    def on_message(self, message: dict) -> None:
        """Handle one message from the engine."""
        self.link.observe(message)
        dispatch(self.debugger, message)

    def configure_from_arrived(self) -> None:
        """Apply the configuration that has arrived already, on this thread, before the
        reader starts: a child's inheritance, which the engine sends as it reads the
        hello, is here by the time the start-up modules are loaded, and applying it
        here spares the child waiting for the reader thread to start and to be handed
        the interpreter's lock before the program may run (about 0.8 ms, more on a busy
        machine). What has not arrived is the reader's to wait for."""
        debugger = self.debugger
        debugger.connection.read_arrived(self.on_message, debugger.configuration_done.is_set)

    def wait_until_configured(self) -> bool:
        """Wait for configurationDone; False when the engine went away first."""
        self.debugger.configuration_done.wait()
        return not self.debugger.detached


def start_reader(debugger: Debugger, connection: Connection,
                 on_message: Callable[[dict], None], on_end: Callable[[], None]) -> None:
    """Read ``connection`` on a debugger thread (never traced nor stopped), calling
    ``on_message`` for each message and ``on_end`` once it ends."""

    def read() -> None:
        try:
            reason = connection.read_loop(on_message)
            # After dapper/detach the engine closes on purpose: how the close looks from
            # here (a reset, say) is no failure. The engine read this process's stderr
            # too, so it may be a broken pipe now: the line must not cost the detach.
            if reason and not debugger.detach_requested:
                try:
                    print(f"dapper: the debugger connection failed: {reason}",
                          file=sys.stderr, flush=True)
                except Exception:
                    pass
        finally:
            on_end()

    start_debugger_thread("dapper.ipc", read)


# How long a launched program whose engine died has to end on SIGTERM (its own handler
# may shut it down cleanly) before it is ended without one.
END_WITHOUT_ENGINE_SECONDS = 5.0


def end_without_engine() -> None:
    """End this process because its engine is gone: SIGTERM, as the engine's own
    `terminate` would send, then an exit without cleanup if that did not end it."""
    # The engine read this process's output: stderr may be a broken pipe now.
    try:
        print("dapper: the debugger's connection closed without a detach (the debugger "
              "ended); ending the program it launched.", file=sys.stderr, flush=True)
    except Exception:
        pass

    def last_resort() -> None:
        sleep(END_WITHOUT_ENGINE_SECONDS)
        os._exit(128 + int(_signal.SIGTERM))

    start_debugger_thread("dapper.end", last_resort)
    os.kill(os.getpid(), _signal.SIGTERM)


def start_tracing(debugger: Debugger) -> None:
    """Install the tracer. When another tool holds sys.monitoring's debugger id, fall
    back to sys.settrace (the one failure the other backend gets round); any other
    failure is a bug and is raised. A slower tracer than this Python could have is said
    once in the debug console."""
    fallback = None
    try:
        debugger.tracer.install()
    except ToolIdInUse as error:
        fallback = str(error)
        debugger.use_tracer("settrace")
        debugger.tracer.install()
    variables = debugger.environment.variables if debugger.environment is not None else {}
    notice = tracer_notice(debugger.tracer.name, variables.get("DAPPER_TRACER"), fallback)
    if notice is not None:
        debugger.send_output(notice)


def instrument_program(debugger: Debugger, trace: bool) -> None:
    """Before the program is compiled (and before the launcher's freeze of what the start
    made, common/start_freeze.py: copies given to the live functions of a module
    imported before the program would otherwise undo it): the configured breakpoints
    become probes in the program's code and in what is loaded already."""
    if trace:
        debugger.activate_instrumentation()


def run_program(arguments, debugger: Debugger, trace: bool) -> int:
    """Run the program of ``arguments`` (launcher or listen arguments: ``target_kind``,
    ``target``, ``args``) as ``python`` would and return its exit status, traced when
    ``trace`` (``instrument_program`` came first)."""
    # From here code of the program's may run: preparing a module target imports its
    # packages.
    program_runs()
    run = program.prepare_or_exit_status(arguments.target_kind, arguments.target,
                                         arguments.args)
    if isinstance(run, int):
        return run
    if trace:
        start_tracing(debugger)
        if debugger.launch_configuration.get("stopOnEntry"):
            debugger.stops.request_entry_stop()
    return program.run_prepared(run)


def finish_session(debugger: Debugger, state: ExitState) -> None:
    """The last step: runs last among the atexit handlers, after the user's handlers and
    after Python has waited for the non-daemon threads."""
    state.finished = True
    flush_output()
    if debugger.inherited is not None:
        # A child that ran on its inheritance ends without waiting for its session: what
        # it held for the client goes first; the engine gives it to the session later.
        debugger.connection.release_events()
    debugger.connection.send_event("dapper/exiting", {"exitCode": state.code})
    try:
        debugger.end_of_process()
    except Exception:
        report_internal_error("the end of the session")
    debugger.connection.close()


def forget_inherited_session() -> None:
    """In a fork child: the parent's exit handler, copied into this process, belongs to a
    connection that is not this process's (and takes locks another thread of the parent
    may have held at the fork). The child's own session registers its own."""
    atexit.unregister(finish_session)
