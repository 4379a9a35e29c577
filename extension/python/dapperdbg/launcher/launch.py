"""Entry point: ``python -m dapperdbg.launcher --ipc ADDRESS --session-id ID [--no-debug]
(--program PATH | --module NAME | --code TEXT) [--] [args...]`` (docs/ipc.md).

Order matters here: the environment is cleaned and the hello sent before anything
else, with only the modules imported at the top of this one (no threading, nor what it
imports): the engine asks the client for the session while the rest of the package is
imported, from the start bundle (common/start_bundle.py, opened before this module is
imported, which serves its own imports and the requests that configure the session
too), so a child is ready sooner; the exit hook is registered
before the user's code so that it runs after the user's own atexit handlers; the package
is imported before the PYTHONPATH entry that made it importable is removed (its modules
are found through the package's own path from then on).
"""

from __future__ import annotations

import gc
import sys

from ..common.package import restore_bytecode_setting
from ..common.start_bundle import (
    SESSION,
    START,
    close_bundle,
    load_phase,
    open_bundle,
    phases_loaded,
)
from ..common.start_freeze import freeze_start_objects, remember_interpreter_freeze
from ..common.tracer_choice import choose_backend_name
from ..session.link import PARENT_SESSION_VARIABLE, ExitState, SessionLink
from . import output_buffering
from .cli import USAGE, UsageError, parse_arguments
from .environment import DapperEnvironment, remove_pythonpath_entry, take_dapper_environment

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Callable


def _fail(message: str) -> int:
    print(f"dapper: {message}", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None, run_as_script: bool = False,
         collecting: bool | None = None) -> int:
    """The launcher; ``collecting``: whether the program's garbage collector is on, where
    the caller turned it off already."""
    # No garbage collection while the launcher starts: its imports make tens of thousands
    # of objects, none of them garbage, and the collections they set off (a full one
    # among them) cost a start ~1 ms. The program gets the collector as it was, with what
    # the start made frozen (_run).
    collecting = gc.isenabled() if collecting is None else collecting
    gc.disable()
    remember_interpreter_freeze()
    environment: DapperEnvironment = take_dapper_environment()
    output_buffering.apply(environment.variables)
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
    exit_state = ExitState()
    # A child process (started by the hooks of a debugged parent) says hello as a child
    # session; its parent's session id comes by environment.
    link = SessionLink(arguments.session_id, environment.variables.get(PARENT_SESSION_VARIABLE),
                       token, environment.variables, exit_state)
    try:
        # What the connection needs, imported here: an interpreter whose sys.path a
        # ._pth file fixes may have no extension modules (_json; _socket, which dialling
        # an address imports, and a connection handed over does not need).
        from ..ipc.dial import AddressError, connect, send_first

        sock = connect(arguments.ipc)
    except ImportError as error:
        return _without_session(arguments, environment, link, collecting, run_as_script,
                                f"it cannot load what the debugger needs ({error})")
    except (AddressError, OSError) as error:
        return _without_session(arguments, environment, link, collecting, run_as_script,
                                f"cannot connect to the debugger at {arguments.ipc}: {error}")
    event, body = link.hello()
    if not send_first(sock, {"type": "event", "event": event, "body": body}):
        return _without_session(arguments, environment, link, collecting, run_as_script,
                                f"the debugger at {arguments.ipc} closed the connection")
    return _run(arguments, environment, link, exit_state, sock, tracer_name, run_as_script,
                collecting)


def _without_session(arguments, environment: DapperEnvironment, link: SessionLink,
                     collecting: bool, run_as_script: bool, reason: str) -> int:
    """No session could start. A launched program fails, saying why; a child process runs
    its program untraced, as it does when its session ends early: a program must not
    break because one of its children could not be debugged."""
    if not link.is_child:
        return _fail(reason)
    close_bundle()
    print(f"dapper: this child process runs without the debugger: {reason}",
          file=sys.stderr)
    from ..session import program

    program.interpreter_flushes_at_end = run_as_script
    remove_pythonpath_entry(environment.pythonpath_entry)
    restore_bytecode_setting()
    if collecting:
        gc.enable()
    return _run_untraced(arguments, program)


def run_as_main(run_as_script: bool = False, collecting: bool | None = None) -> None:
    """What the launcher's script (``run_as_script``: Python flushes stdout and stderr
    after it, as after the program's own script) and ``python -m dapperdbg.launcher``
    run: ``main``, then the end ``python`` gives the program (session/program.py)."""
    code = main(run_as_script=run_as_script, collecting=collecting)
    from ..session.program import end_as_python_would

    end_as_python_would(code)


def _run(arguments, environment: DapperEnvironment, link: SessionLink, exit_state: ExitState,
         sock, tracer_name: str, run_as_script: bool, collecting: bool) -> int:
    """The session, once the hello is said: the rest of the package is imported now."""
    open_bundle()  # Open already where run_as_main started the launcher.
    # The imports below find what this loads (common/start_bundle.py says how and why):
    # first what every start needs, a dormant child's included (session/dormant.py).
    load_phase(START)
    from .. import children

    # What children.activate installs once the session is configured: imported here, while
    # the engine asks the client for the session, rather than on the way to the program
    # (the hooks themselves wait for their first use: children/stand_ins.py).
    from ..children import fork_safety, stand_ins  # noqa: F401
    from ..children.state import REATTACH_VARIABLE
    from ..common import library_code, program_threading  # noqa: F401
    from ..common.module_files import program_waits

    # What loads the user's modules with restartable functions (the instrumentation turns
    # it on before the program), a dormant child too.
    from ..instrumentation import restart_loading, switches, user_files  # noqa: F401
    from ..ipc.connection import Connection
    from ..session import program
    from ..session.dormant import DormantChild, may_run_dormant

    # No code of the program's runs until run_program (common/module_files.py says what
    # that spares the configuration).
    program_waits()
    program.interpreter_flushes_at_end = run_as_script
    connection = Connection(sock, sent=1)
    reattach_file = environment.variables.get(REATTACH_VARIABLE)
    program_path = arguments.target if arguments.target_kind == "program" else None
    dormant = None
    to_handle: list[dict] = []
    if (link.is_child and not arguments.no_debug and not reattach_file
            and may_run_dormant(tracer_name, environment.variables)):
        dormant = DormantChild(connection, link, exit_state, environment, tracer_name,
                               program_path)
        configured = dormant.configure()
        if configured is None:
            return _run_dormant(arguments, environment, link, exit_state, dormant, collecting)
        to_handle = configured

    # The debugger's own modules, and what every session uses next, imported with them
    # rather than at its first use, so that it comes from the bundle's block too: the
    # handlers of the configuration's requests and the tracer's backend.
    load_phase(SESSION)
    from ..requests.dispatch import handler_for
    from ..session.lifecycle import Session, instrument_program, run_program
    from ..tracing import backend_class

    handler_for("dapper/configure")
    backend_class(tracer_name)
    phases_loaded()

    if dormant is None:
        session = Session.on(connection, tracer_name, environment, link, exit_state)
        if program_path is not None:
            # Verified at once: it runs as soon as configurationDone arrives (a child's
            # session has no launch.program to say so).
            session.debugger.store.loaded.set_program(program_path)
    else:
        # Given what the child answered before it was asked for more.
        session = dormant.session()
    debugger = session.debugger
    session.finish_at_exit()
    # Before the reader thread starts: the requests it handles import modules (of the
    # standard library too, through sys.path), and an entry taken out of sys.path while
    # the path finder goes through it makes the finder skip the next one (a module of
    # lib-dynload, say, is then not found).
    remove_pythonpath_entry(environment.pythonpath_entry)
    # What a child read before it needed its debugger, then what the engine sent while
    # the modules loaded (a child's inheritance), are handled on this thread before the
    # reader starts (Session.configure_from_arrived says why).
    for message in to_handle:
        session.on_message(message)
    session.configure_from_arrived()
    # The launched program ends when its engine dies. A child runs on, as it does when
    # its session could not start: the engine also closes a child's connection on
    # purpose (its client cannot start sessions), and ending the parent ends the tree.
    session.start_reader(end_with_engine=not link.is_child)

    configured = session.wait_until_configured()
    if not configured and not link.is_child:
        close_bundle()
        exit_state.code = _fail("the debugger disconnected before the program started")
        return exit_state.code
    # A child whose session never started (or ended) runs its program untraced: a
    # program must not break because one of its children could not be debugged.
    children.activate(link, debugger)

    trace = not (arguments.no_debug or debugger.no_debug or debugger.detached)
    if trace and link.is_child and reattach_file:
        # A child of an attached program: it reconnects to the program's next debuggers
        # (imported only here: the listener's modules import socket and json).
        from .listen import program_name
        from .reattach import watch as watch_for_next_debuggers

        watch_for_next_debuggers(reattach_file, link, debugger, program_name(arguments),
                                 program_path)
    instrument_program(debugger, trace)
    return _run_program(exit_state, collecting, lambda: run_program(arguments, debugger, trace))


def _run_dormant(arguments, environment: DapperEnvironment, link: SessionLink,
                 exit_state: ExitState, dormant, collecting: bool) -> int:
    """A child configured to stop at nothing: its program runs without the debugger,
    which is made when something needs it (session/dormant.py)."""
    from .. import children
    from ..common.module_files import program_runs
    from ..session import program

    # The reader starts once the PYTHONPATH entry is out (_run says why).
    remove_pythonpath_entry(environment.pythonpath_entry)
    dormant.start()
    children.activate(link, dormant)

    def run() -> int:
        program_runs()
        return _run_untraced(arguments, program)

    return _run_program(exit_state, collecting, run)


def _run_untraced(arguments, program) -> int:
    """The program of ``arguments``, prepared and run untraced (``program``: the module
    session/program.py, imported by the caller); the exit status Python would give."""
    run = program.prepare_or_exit_status(arguments.target_kind, arguments.target,
                                         arguments.args)
    return run if isinstance(run, int) else program.run_prepared(run)


def _run_program(exit_state: ExitState, collecting: bool, run: Callable[[], int]) -> int:
    """The end of the start, then ``run``, the program's run."""
    # The bundle served the requests that configured the session too (their handlers'
    # modules, the tracer's backend), and the instrumentation that gave the configured
    # breakpoints to what is loaded; what the program's run needs later is imported
    # through the import system, and the program finds sys.meta_path as it was.
    close_bundle()
    # The program gets the user's bytecode setting; until here the package's modules,
    # those that applied the breakpoints included, had their bytecode cached (a module
    # changed in place was compiled again by every process that imported it after the
    # setting came back).
    restore_bytecode_setting()
    # What the start made lives as long as the process: the collector leaves it alone
    # from now on (common/start_freeze.py says what that changes).
    freeze_start_objects()
    if collecting:
        gc.enable()
    exit_state.code = run()
    return exit_state.code
