"""Child processes: every Python child of a debuggee starts under the launcher,
connected to the tree's child listener, and is announced to the engine (docs/ipc.md,
"Child processes").

- ``commands``, ``shell``, ``planning``: which commands start Python and how they are
  rewritten (pure).
- ``state``: the active hooks' state and the announcements.
- ``popen_hook``, ``os_hooks``, ``multiprocessing_hooks``, ``fork``: the hooks.
- ``watcher``: noticing that a child ended.
- ``fork_safety``: fork children never use their parent's connection; ``os._exit``
  still sends ``dapper/exiting`` (installed in every debuggee).

What a session knows about itself for them (its id, token, the child listener) is
session/link.py's; a fork child becomes a session through session/lifecycle.py.

The hooks are installed only when the engine sent a ``childListener`` and the session
has ``subprocessAutoAttach`` on; without it nothing is patched.
"""

from __future__ import annotations

import atexit
import sys

from ..session.link import SessionLink, format_address

__all__ = ["activate", "deactivate"]


def activate(link: SessionLink, debugger) -> bool:
    """Called once the session is configured, before the user's code runs. Returns True
    when children will be attached."""
    from . import fork_safety

    fork_safety.install(debugger)
    launch = debugger.launch_configuration
    if (link.child_listener is None or not launch.get("subprocessAutoAttach", True)
            or debugger.no_debug or debugger.detached):
        deactivate()
        return False
    try:
        ipc, port = format_address(link.child_listener)
    except ValueError as error:
        print(f"dapper: child processes will not be debugged: {error}", file=sys.stderr)
        deactivate()
        return False
    from . import fork, multiprocessing_hooks, os_hooks, popen_hook
    from .state import ACTIVE, ChildHooks

    hooks = ChildHooks(link, debugger, ipc, port)
    ACTIVE.hooks = hooks
    # Registered after the launcher's exit handler, so it runs before it: the children
    # that ended are reported before the session says it is exiting.
    atexit.register(_report_ended_children, hooks)

    popen_hook.install()
    os_hooks.install()
    fork.install()
    multiprocessing_hooks.install()
    return True


def _report_ended_children(hooks) -> None:
    from .state import ACTIVE

    if ACTIVE.hooks is hooks:
        hooks.watcher.flush()


def deactivate() -> None:
    """No child is attached from now on (the hooks, if installed, let everything pass)."""
    state = sys.modules.get(__name__ + ".state")
    if state is not None:
        state.ACTIVE.hooks = None
