"""Fork children (os.fork, and so multiprocessing's fork start method, Pool and
ProcessPoolExecutor with it).

``os.fork``'s stand-in (stand_ins.py) calls ``fork`` here. Before forking, the parent
picks the child's session id; after it, the parent announces the child with its pid,
and the child, which is a copy of a debugged process, turns itself into a new session:
it drops its copy of the parent's connection (closing the descriptor only: a shutdown
would cut the parent's too), opens its own to the child listener, says
``dapper/sessionHello`` and waits, as a launched child does, until its session is
configured. Then it traces with a fresh debugger and its own breakpoints.

Every fork child first goes through ``fork_safety`` (the copied connection is dropped,
the copied debugger detached); other forks (by C code, or the ones subprocess and
os.spawn* make just before an exec) stop there.
"""

from __future__ import annotations

import os
import sys

from ..session import lifecycle
from . import fork_safety
from .state import ACTIVE, ORIGINALS, ChildHooks, attach


def fork():
    """``os.fork``, through its stand-in (stand_ins.py)."""
    hooks = ACTIVE.usable()
    if hooks is None:
        return ORIGINALS["fork"]()
    session_id = hooks.next_session_id()
    name = getattr(ACTIVE.local, "process_name", None) or f"{_program_name()} (fork)"
    pid = ORIGINALS["fork"]()
    if pid == 0:
        _become_session(hooks, session_id)
        return 0
    from .planning import Plan

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
    """The session lifecycle (session/lifecycle.py) from the middle of the program: the
    parent's copies are put aside first, and the program goes on traced by a session of
    its own once it is configured, or untraced if it gets none."""
    old = parent_hooks.debugger
    link = parent_hooks.link.for_fork_child(session_id)
    lifecycle.forget_inherited_session()
    # The parent's debugger, or a dormant child's stand-in for it (session/dormant.py).
    old.leave_fork_child()
    exit_state = link.exit_state if link.exit_state is not None else lifecycle.ExitState()
    try:
        session = lifecycle.Session.connect(parent_hooks.ipc, old.tracer_name, old.environment,
                                            link, exit_state)
    except OSError as error:
        print(f"dapper: fork child {os.getpid()} runs without the debugger: "
              f"cannot connect to {parent_hooks.ipc}: {error}", file=sys.stderr)
        return
    debugger = session.debugger
    if not session.say_hello():
        return
    session.finish_at_exit()
    fork_safety.set_session(debugger)
    session.start_reader()
    if not session.wait_until_configured():
        return
    # As in a launched program: breakpoints run as probes, and with none needing the
    # tracer the child runs untraced (3.9-3.11). The parent's copies are this session's
    # to replace or restore.
    debugger.activate_instrumentation()
    try:
        lifecycle.start_tracing(debugger)
    except RuntimeError as error:
        _run_untraced(debugger, error)
        return
    # Frames already running (the one that called fork and its callers) get the
    # breakpoints this session set.
    debugger.tracer.breakpoints_changed()
    # Its own children are attached as its parent's were (the hooks came with the copy).
    address = link.children_address(debugger)
    if address is not None:
        attach(link, debugger, *address)


def _run_untraced(debugger, error: RuntimeError) -> None:
    """CPython 3.10 and 3.11 let one thread at a time install a trace function, and a
    fork taken while another thread was doing so (a thread starting under the parent's
    tracer) leaves the child unable to install any: ``sys.settrace`` raises. The child
    then runs on untraced, as plain, and the user is told why its breakpoints do not
    stop."""
    try:
        debugger.tracer.uninstall()
    except Exception:
        pass
    debugger.send_output(
        f"Dapper: this fork child (pid {os.getpid()}) cannot be traced, so its breakpoints "
        f"will not stop: it was forked while another thread of its parent was installing "
        f"a trace function, and Python {sys.version_info[0]}.{sys.version_info[1]} refuses "
        f"any other in it ({error}). It runs on undebugged.\n")
