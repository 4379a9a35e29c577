"""Fork children (os.fork, and so multiprocessing's fork start method, Pool and
ProcessPoolExecutor with it).

``os.fork`` is wrapped. Before forking, the parent picks the child's session id; after
it, the parent announces the child with its pid, and the child, which is a copy of a
debugged process, turns itself into a new session: it drops its copy of the parent's
connection (closing the descriptor only: a shutdown would cut the parent's too), opens
its own to the child listener, says ``dapper/sessionHello`` and waits, as a launched
child does, until its session is configured. Then it traces with a fresh debugger
and its own breakpoints.

Every fork child first goes through ``fork_safety`` (the copied connection is dropped,
the copied debugger detached); other forks (by C code, or the ones subprocess and
os.spawn* make just before an exec) stop there.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading

from ..debugger import Debugger
from ..ipc import Connection, connect
from . import fork_safety
from .link import SessionLink
from .planning import Plan
from .state import ACTIVE, ChildHooks

_original_fork = os.fork if hasattr(os, "fork") else None
_installed = False


def _fork():
    hooks = ACTIVE.usable()
    if hooks is None:
        return _original_fork()
    session_id = hooks.next_session_id()
    name = getattr(ACTIVE.local, "process_name", None) or f"{_program_name()} (fork)"
    pid = _original_fork()
    if pid == 0:
        _become_session(hooks, session_id)
        return 0
    command = list(getattr(sys, "orig_argv", None) or [sys.executable, *sys.argv])
    plan = Plan(command, name, True)
    hooks.announce(plan, pid, session_id, None)
    return pid


def _program_name() -> str:
    program = sys.argv[0] if sys.argv else ""
    if program in ("", "-c"):
        return "python -c" if program else "python"
    return os.path.basename(program)


def _become_session(parent_hooks: ChildHooks, session_id: str) -> None:
    from .. import launcher  # The launcher's session helpers; imported late (cycle).

    old = parent_hooks.debugger
    parent_link = parent_hooks.link
    link = SessionLink(session_id, parent_link.session_id, parent_link.token,
                       parent_link.variables, parent_link.exit_state)
    link.child_listener = parent_link.child_listener
    # The parent's exit handler, copied into this process, belongs to a connection that
    # is not ours (and takes locks another thread of the parent may have held at the
    # fork): this process's session, if it gets one, registers its own.
    atexit.unregister(launcher.finish_session)
    if hasattr(old.tracer, "_lock"):
        # Same reason: the copied tracer's lock may be held by a thread that is not here.
        old.tracer._lock = threading.RLock()
    try:
        old.tracer.uninstall()
    except Exception as error:
        print(f"dapper: fork child could not stop the parent's tracer: {error}",
              file=sys.stderr)
    try:
        sock = connect(parent_hooks.ipc)
    except OSError as error:
        print(f"dapper: fork child {os.getpid()} runs without the debugger: "
              f"cannot connect to {parent_hooks.ipc}: {error}", file=sys.stderr)
        return
    debugger = Debugger(Connection(sock), old.tracer.name)
    debugger.environment = old.environment
    if not debugger.connection.send_event(*link.hello()):
        return
    exit_state = link.exit_state if link.exit_state is not None else launcher.ExitState()
    atexit.register(launcher.finish_session, debugger, exit_state)
    fork_safety.set_session(debugger)
    launcher.start_reader(debugger, link)
    debugger.configuration_done.wait()
    if debugger.detached:
        return
    # As in a launched program: breakpoints run as probes, and with none needing the
    # tracer the child runs untraced (3.9-3.11). The parent's copies are this session's
    # to replace or restore.
    debugger.activate_instrumentation()
    try:
        debugger.tracer.install()
    except Exception as error:
        print(f"dapper: fork child falls back to sys.settrace: {error}", file=sys.stderr)
        debugger.use_tracer("settrace")
        debugger.tracer.install()
    # Frames already running (the one that called fork and its callers) get the
    # breakpoints this session set.
    debugger.tracer.breakpoints_changed()
    from . import activate

    activate(link, debugger)


def install() -> None:
    global _installed
    if _installed or _original_fork is None:
        return
    _installed = True
    os.fork = _fork
