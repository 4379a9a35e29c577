"""Entry point: ``python -m dapper.launcher --ipc ADDRESS --session-id ID [--no-debug]
(--program PATH | --module NAME | --code TEXT) [--] [args...]`` (docs/ipc.md).

Order matters here: the environment is cleaned and the hello sent before anything
else; the exit hook is registered before the user's code so that it runs after the
user's own atexit handlers; every module of this package is imported before the
PYTHONPATH entry that made it importable is removed.
"""

from __future__ import annotations

import atexit
import contextlib
import sys
import threading

from . import children, restore_bytecode_setting
from .cli import USAGE, UsageError, parse_arguments
from .debugger import Debugger
from .environment import DapperEnvironment, remove_pythonpath_entry, take_dapper_environment
from .ipc import AddressError, Connection, connect
from .requests import dispatch
from .target import PREPARERS, CannotOpenProgram, report_uncaught, run_prepared
from .tracing import choose_backend_name
from .tracing.fast_paths import tracer_notice
from .tracing.monitoring import ToolIdInUse


class ExitState:
    """The exit status to report in ``dapper/exiting``; set once the program ends."""

    def __init__(self) -> None:
        self.code = 0


def _fail(message: str) -> int:
    print(f"dapper: {message}", file=sys.stderr)
    return 1


def _read_requests(debugger: Debugger, link: children.SessionLink) -> None:
    def on_message(message: dict) -> None:
        link.observe(message)
        dispatch(debugger, message)

    reason = debugger.connection.read_loop(on_message)
    if reason:
        print(f"dapper: the debugger connection failed: {reason}", file=sys.stderr)
    debugger.detach()


def start_reader(debugger: Debugger, link: children.SessionLink) -> None:
    """Start the thread that answers the engine's requests (also used by a fork child
    that becomes a session of its own)."""
    reader = threading.Thread(target=_read_requests, args=(debugger, link), name="dapper.ipc",
                              daemon=True)
    reader.start()
    debugger.tracer.ignore_thread(reader.ident)


def flush_output() -> None:
    """Flush the program's stdout and stderr before the engine hears of its end."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def finish_session(debugger: Debugger, state: ExitState) -> None:
    """Runs last among the atexit handlers: after the user's handlers and after Python
    has waited for the non-daemon threads. Also the listening mode's last step."""
    flush_output()
    debugger.connection.send_event("dapper/exiting", {"exitCode": state.code})
    debugger.detach()
    with contextlib.suppress(Exception):
        debugger.tracer.uninstall()
    debugger.connection.close()


def main(argv: list[str] | None = None) -> int:
    # Every module of the package the session needs is imported by now.
    restore_bytecode_setting()
    environment: DapperEnvironment = take_dapper_environment()
    try:
        arguments = parse_arguments(sys.argv[1:] if argv is None else argv)
    except UsageError as error:
        print(f"dapper: {error}\n{USAGE}", file=sys.stderr)
        return 2
    token = environment.session_token
    if not token:
        return _fail("DAPPER_SESSION_TOKEN is not set; the launcher is started by the "
                     "Dapper engine, which passes the session's secret in it")
    try:
        tracer_name = choose_backend_name(environment.variables.get("DAPPER_TRACER"))
    except ValueError as error:
        return _fail(str(error))
    try:
        sock = connect(arguments.ipc)
    except (AddressError, OSError) as error:
        return _fail(f"cannot connect to the debugger at {arguments.ipc}: {error}")

    connection = Connection(sock)
    debugger = Debugger(connection, tracer_name)
    debugger.environment = environment
    if arguments.target_kind == "program":
        # Verified at once: it runs as soon as configurationDone arrives (a child's
        # session has no launch.program to say so).
        debugger.store.loaded.set_program(arguments.target)
    exit_state = ExitState()
    # A child process (started by the hooks of a debugged parent) says hello as a child
    # session; its parent's session id comes by environment.
    link = children.SessionLink(
        arguments.session_id, environment.variables.get(children.PARENT_SESSION_VARIABLE),
        token, environment.variables, exit_state)
    if not connection.send_event(*link.hello()):
        return _fail(f"the debugger at {arguments.ipc} closed the connection")
    atexit.register(finish_session, debugger, exit_state)

    start_reader(debugger, link)
    remove_pythonpath_entry(environment.pythonpath_entry)

    debugger.configuration_done.wait()
    if debugger.detached and not link.is_child:
        exit_state.code = _fail("the debugger disconnected before the program started")
        return exit_state.code
    # A child whose session never started (or ended) runs its program untraced: a
    # program must not break because one of its children could not be debugged.
    children.activate(link, debugger)

    exit_state.code = _run(arguments, debugger)
    return exit_state.code


def _run(arguments, debugger: Debugger) -> int:
    trace = not (arguments.no_debug or debugger.no_debug or debugger.detached)
    return run_target(arguments, debugger, trace)


def run_target(arguments, debugger: Debugger, trace: bool) -> int:
    """Run the program of ``arguments`` as ``python`` would and return its exit status,
    with the tracer installed when ``trace`` (also used by ``python -m dapper --listen``,
    whose tracer is installed before any debugger attaches)."""
    if trace:
        # Before the program is compiled: its breakpoints become probes in its code.
        debugger.activate_instrumentation()
    try:
        run = PREPARERS[arguments.target_kind](arguments.target, arguments.args)
    except CannotOpenProgram as error:
        print(error, file=sys.stderr)
        return 2
    except SyntaxError as error:
        report_uncaught(error)
        return 1
    if trace:
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
        if debugger.launch_configuration.get("stopOnEntry"):
            debugger.request_entry_stop()
    return run_prepared(run)


if __name__ == "__main__":
    sys.exit(main())
