"""Child processes: every Python child of a debuggee starts under the launcher,
connected to the tree's child listener, and is announced to the engine (docs/ipc.md,
"Child processes").

- ``commands``, ``shell``, ``planning``: which commands start Python and how they are
  rewritten (pure). Imported by the first command the program starts (and before its
  first fork): most debuggees start none, and their import cost every start ~0.4 ms.
- ``state``: the active hooks' state and the announcements.
- ``popen_hook``, ``os_hooks``, ``multiprocessing_hooks``, ``fork``: the hooks,
  imported at their first use; ``stand_ins``: what the program finds meanwhile.
- ``watcher``: noticing that a child ended (made with the first child).
- ``fork_safety``: fork children never use their parent's connection; ``os._exit``
  still sends ``dapper/exiting`` (installed in every debuggee).

What a session knows about itself for them (its id, token, the child listener) is
session/link.py's; a fork child becomes a session through session/lifecycle.py.

The hooks are installed only when the engine sent a ``childListener`` and the session
has ``subprocessAutoAttach`` on; without it nothing is patched.
"""

from __future__ import annotations

import sys

from ..session.link import SessionLink

__all__ = ["activate", "announce_again", "deactivate"]


def activate(link: SessionLink, debugger) -> bool:
    """Called once the session is configured, before the user's code runs. Returns True
    when children will be attached."""
    from . import fork_safety

    fork_safety.install(debugger)
    address = link.children_address(debugger)
    if address is None:
        deactivate()
        return False
    from . import stand_ins
    from .state import attach

    attach(link, debugger, *address)
    stand_ins.install()
    return True


def deactivate() -> None:
    """No child is attached from now on (the hooks, if installed, let everything pass)."""
    state = sys.modules.get(__name__ + ".state")
    if state is not None:
        state.ACTIVE.hooks = None


def announce_again() -> None:
    """A new debugger attached to this program (launcher/listen.py): the children still
    running are announced to it, as they reconnect (launcher/reattach.py)."""
    from .state import ACTIVE

    hooks = ACTIVE.hooks
    if hooks is not None:
        hooks.announce_again()
