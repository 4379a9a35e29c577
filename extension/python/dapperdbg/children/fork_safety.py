"""What every debuggee needs around fork and os._exit, children attached or not.

- A fork child is a copy of a debugged process, including its connection to the
  engine. Whatever forked it (the fork hook, C code, subprocess just before an exec),
  the child must never write on that connection: ``after_in_child`` drops the copy
  (closing this process's descriptor only; a shutdown would cut the parent's too) and
  detaches the copied debugger, so the child runs on untraced unless the fork hook
  makes it a session of its own.
- ``os._exit`` skips atexit handlers, so the session's ``dapper/exiting`` is sent from
  a wrapper (multiprocessing's fork children end that way, and so do many programs).

Kept light: it is installed in every debuggee.
"""

from __future__ import annotations

import os
import sys

_original_exit = os._exit
_fork_hook_registered = False


class _Session:
    """The debugger of this process's session (None in a fork child until it has one)."""

    debugger = None
    pid = 0


def session_debugger():
    """The debugger of this process's session, if it has one (launched, --listen, attached)."""
    return _Session.debugger


def set_session(debugger) -> None:
    _Session.debugger = debugger
    _Session.pid = os.getpid()


def _active_hooks():
    state = sys.modules.get(__package__ + ".state")
    return state.ACTIVE if state is not None else None


def _after_fork_in_child() -> None:
    active = _active_hooks()
    if active is not None:
        active.hooks = None
    debugger, _Session.debugger = _Session.debugger, None
    if debugger is not None:
        debugger.abandon_after_fork()


def _exit(status):
    debugger = _Session.debugger
    if debugger is not None and not debugger.detached and os.getpid() == _Session.pid:
        _Session.debugger = None
        active = _active_hooks()
        hooks = active.hooks if active is not None else None
        if hooks is not None and hooks.debugger is debugger:
            hooks.flush_watcher()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                continue
        code = status if isinstance(status, int) else 1
        debugger.connection.send_event("dapper/exiting", {"exitCode": code})
        debugger.connection.close()
    _original_exit(status)


def install(debugger) -> None:
    global _fork_hook_registered
    set_session(debugger)
    if not _fork_hook_registered and hasattr(os, "register_at_fork"):
        _fork_hook_registered = True
        os.register_at_fork(after_in_child=_after_fork_in_child)
    os._exit = _exit


def uninstall() -> None:
    """Give the program its own ``os._exit`` back and forget the session (a detach from a
    process attached to by its id). The fork hook cannot be unregistered; without a
    session it does nothing."""
    _Session.debugger = None
    if os._exit is _exit:
        os._exit = _original_exit
