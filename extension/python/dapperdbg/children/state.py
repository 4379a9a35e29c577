"""The per-process state of child-process support: the session whose children are
attached, the tree's child listener, and how to announce a child on this session's
connection.

One ``ChildHooks`` is active at a time (``ACTIVE.hooks``); the hooks read it when they
run, so that turning support off, or a fork child taking over as a new session, needs
no re-patching. A thread-local flag marks the hooks' own work: a hook never rewrites
what another hook (or the machinery one calls, such as subprocess using posix_spawn)
starts on its behalf.
"""

from __future__ import annotations

import atexit
import os

from ..common.native import allocate_lock, local, made_once
from ..session.link import PARENT_SESSION_VARIABLE, SessionLink

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from .planning import Plan
    from .watcher import ExitWatcher

# DAPPER_* variables handed on to children as they are (the tracer a test forced, the
# pipe the engine captures: launcher/output_buffering.py).
_INHERITED_VARIABLES = ("DAPPER_TRACER", "DAPPER_INSTRUMENT", "DAPPER_CAPTURED_OUTPUT")
# Where the children of an attached program learn of the next debugger (its own children
# only: it is not handed on).
REATTACH_VARIABLE = "DAPPER_REATTACH_FILE"
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The os functions that have a stand-in (stand_ins.py), as they were: what the hooks
# call to do the work.
ORIGINALS: dict = {}


class ChildHooks:
    """Announcing children of one session and preparing their command and environment."""

    def __init__(self, link: SessionLink, debugger, ipc: str, ipc_port: int | None) -> None:
        self.link = link
        self.debugger = debugger
        self.ipc = ipc
        self.ipc_port = ipc_port
        self._counter = 0
        self._lock = allocate_lock()  # The counter's, and the watcher's making.
        # Made with the first child to watch (most sessions start none).
        self._watcher: ExitWatcher | None = None

    @property
    def watcher(self) -> ExitWatcher:
        watcher = self._watcher
        if watcher is None:
            watcher = made_once(self, "_watcher", self._lock, self._make_watcher)
        return watcher

    def _make_watcher(self) -> ExitWatcher:
        from .watcher import ExitWatcher

        return ExitWatcher(self._child_exited)

    def flush_watcher(self) -> None:
        """Report the children known to have ended (none without a watcher)."""
        if self._watcher is not None:
            self._watcher.flush()

    def connection_for_child(self) -> int | None:
        """A connection to the child listener made here for the next child, as its
        descriptor, to hand over to it (ipc/dial.py says why); None where it cannot be
        handed over (Windows) or made (the child then dials the listener itself, and
        says why it could not)."""
        if os.name != "posix":
            return None
        from ..ipc.dial import connect

        try:
            sock = connect(self.ipc)
        except (OSError, ValueError, ImportError):
            return None
        return sock.detach()

    def next_session_id(self) -> str:
        with self._lock:
            self._counter += 1
            return f"{self.link.session_id}.{self._counter}"

    def child_environment(self, base) -> dict:
        """``base`` (a mapping, or None for os.environ) plus what a child launcher needs:
        the package on PYTHONPATH (recorded so the child removes it again), the token and
        this session's id."""
        environment = dict(os.environ if base is None else base)
        if any(isinstance(key, bytes) for key in environment):
            environment = {os.fsdecode(k): os.fsdecode(v) for k, v in environment.items()}
        existing = environment.get("PYTHONPATH")
        environment["PYTHONPATH"] = (
            PACKAGE_DIR + os.pathsep + existing if existing else PACKAGE_DIR)
        environment.update(self.additions())
        return environment

    def additions(self) -> dict:
        """The DAPPER_* variables of a child (without PYTHONPATH)."""
        added = {
            "DAPPER_PYTHONPATH_ENTRY": PACKAGE_DIR,
            "DAPPER_SESSION_TOKEN": self.link.token,
            PARENT_SESSION_VARIABLE: self.link.session_id,
        }
        for name in _INHERITED_VARIABLES:
            if self.link.variables.get(name):
                added[name] = self.link.variables[name]
        if self.link.reattach_file is not None:
            added[REATTACH_VARIABLE] = self.link.reattach_file
        return added

    def _base_body(self, plan: Plan, pid: int, cwd: str | None) -> dict:
        return {
            "pid": pid,
            "name": plan.name,
            "ipcPort": self.ipc_port,
            "command": [os.fsdecode(word) for word in plan.command],
            "cwd": os.path.abspath(cwd) if cwd else os.getcwd(),
            "isPython": plan.is_python,
            "parentPid": os.getpid(),
            "parentSessionId": self.link.session_id,
        }

    def announce(self, plan: Plan, pid: int, session_id: str, cwd: str | None,
                 watch: bool = True) -> None:
        body = self._base_body(plan, pid, cwd)
        body["sessionId"] = session_id
        self._send("dapper/childProcess", body)
        if self.link.reattach_file is not None:
            self.link.live_children[pid] = (plan, session_id, cwd)
        if watch:
            self.watcher.track(pid, plan.name)

    def announce_again(self) -> None:
        """A new debugger attached to this program: its children still running, which
        reconnect by themselves (launcher/reattach.py), are announced to it again."""
        for pid, (plan, session_id, cwd) in list(self.link.live_children.items()):
            if _running(pid):
                self.announce(plan, pid, session_id, cwd, watch=False)
            else:
                self.link.live_children.pop(pid, None)

    def report_candidate(self, plan: Plan, pid: int | None, cwd: str | None) -> None:
        body = self._base_body(plan, pid, cwd)
        body["sessionId"] = None
        body["reason"] = plan.reason or "it cannot be attached"
        self._send("dapper/childProcessCandidate", body)

    def _send(self, event: str, body: dict) -> None:
        try:
            self.debugger.connection.send_event(event, body)
        except Exception:
            return

    def _child_exited(self, pid: int, name: str) -> None:
        self.link.live_children.pop(pid, None)
        self._send("dapper/childProcessExited", {"pid": pid, "name": name})


class _Active:
    """The hooks in force in this process (None: children are left alone)."""

    def __init__(self) -> None:
        self.hooks: ChildHooks | None = None
        self.local = local()

    def usable(self) -> ChildHooks | None:
        hooks = self.hooks
        if hooks is None or getattr(self.local, "busy", False):
            return None
        if hooks.debugger.detached:
            return None
        return hooks

    def busy(self) -> _Busy:
        """``with ACTIVE.busy():`` marks the calling thread's work as the hooks' own."""
        return _Busy(self.local)


class _Busy:
    """The context manager of ``_Active.busy`` (not contextlib.contextmanager: contextlib
    costs every debugged process)."""

    def __init__(self, local) -> None:
        self._local = local
        self._previous = False

    def __enter__(self) -> None:
        self._previous = getattr(self._local, "busy", False)
        self._local.busy = True

    def __exit__(self, *exc_info) -> None:
        self._local.busy = self._previous


ACTIVE = _Active()


def attach(link: SessionLink, debugger, ipc: str, ipc_port: int | None) -> ChildHooks:
    """Attach the children of ``debugger``'s session from now on (the hooks are
    installed by the caller, or were inherited by a fork child)."""
    hooks = ChildHooks(link, debugger, ipc, ipc_port)
    ACTIVE.hooks = hooks
    # Registered after the session's exit handler, so it runs before it: the children
    # that ended are reported before the session says it is exiting.
    atexit.register(_report_ended_children, hooks)
    return hooks


def _running(pid: int) -> bool:
    if os.name == "nt":
        return True  # os.kill(pid, 0) would end it there.
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _report_ended_children(hooks: ChildHooks) -> None:
    if ACTIVE.hooks is hooks:
        hooks.flush_watcher()
