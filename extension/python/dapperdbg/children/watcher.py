"""Noticing that a tracked child ended, without reaping it (the program, or
multiprocessing, waits for its own children and must still get their status).

On Linux one daemon thread waits on a pidfd per child, which becomes readable when the
process exits. Elsewhere the same thread checks each pid twice a second with
``waitid(WNOWAIT)``, which sees an ended child without reaping it. Either way there is
one thread for all children, and only while there are some: it ends with the last one
(test suites count the process's threads around each test, the debugger's included) and
the next child starts another.
"""

from __future__ import annotations

import os

from ..common.debugger_threads import DebuggerThread, start_debugger_thread
from ..common.native import RLock, allocate_lock
from ..common.native import select as native_select

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Callable

THREAD_NAME = "dapper.children"
_POLL_SECONDS = 0.5


class ExitWatcher:
    def __init__(self, on_exit: Callable[[int, str], None]) -> None:
        self._on_exit = on_exit
        self._lock = allocate_lock()
        # Held while a child is reported, and by flush() throughout: when flush() returns,
        # every ended child has been reported, including one the watcher thread was
        # reporting at that moment; and no pidfd flush() selects on is closed meanwhile.
        self._reporting = RLock()
        self._children: dict[int, tuple[str, int | None]] = {}  # pid -> (name, pidfd)
        self._thread: DebuggerThread | None = None
        self._wake_read, self._wake_write = None, None

    def track(self, pid: int, name: str) -> None:
        pidfd = None
        if hasattr(os, "pidfd_open"):
            try:
                pidfd = os.pidfd_open(pid)
            except OSError:
                pidfd = None  # Already gone and reaped, or pidfds not supported.
        with self._lock:
            self._children[pid] = (name, pidfd)
            started = self._ensure_thread()
        if not started:  # A thread that starts now reads the children as it begins.
            self._wake()

    def exited(self, pid: int) -> None:
        """Report ``pid`` as ended now, once (whoever notices first)."""
        with self._reporting:
            with self._lock:
                entry = self._children.pop(pid, None)
            if entry is None:
                return
            if entry[1] is not None:
                try:
                    os.close(entry[1])
                except OSError:
                    pass
            self._on_exit(pid, entry[0])

    def flush(self) -> None:
        """Report, now and on the calling thread, every watched child that has ended (the
        session is about to end: the watcher thread may not get its turn)."""
        with self._reporting:
            with self._lock:
                children = dict(self._children)
            pidfds = [fd for _, fd in children.values() if fd is not None]
            readable: list[int] = []
            if pidfds:
                try:
                    readable, _, _ = native_select(pidfds, [], [], 0)
                except (OSError, ValueError):
                    readable = []
            for pid, (_, fd) in children.items():
                if (fd is not None and fd in readable) or (fd is None and _ended(pid)):
                    self.exited(pid)

    def _ensure_thread(self) -> bool:
        """Start the thread unless it runs (under the lock); whether it started now."""
        if self._thread is not None and self._thread.is_alive():
            return False
        self._wake_read, self._wake_write = os.pipe()
        try:
            self._thread = start_debugger_thread(THREAD_NAME, self._run)
        except RuntimeError:
            # No new thread at interpreter shutdown (3.12+): a child forked or started
            # as the program ends goes unwatched; its session reports its end. The
            # program's own call (os.fork, Popen) must not fail for it.
            self._close_wake_pipe()
            return False
        return True

    def _close_wake_pipe(self) -> None:
        for fd in (self._wake_read, self._wake_write):
            try:
                os.close(fd)
            except OSError:
                continue
        self._wake_read = self._wake_write = None

    def _wake(self) -> None:
        # Under the lock: the thread closes the pipe when it ends.
        with self._lock:
            if self._wake_write is not None:
                try:
                    os.write(self._wake_write, b"x")
                except OSError:
                    return

    def _end_thread_if_idle(self) -> bool:
        """With no child left, the thread ends (True) and its pipe is closed; ``track``
        starts a new one for the next child."""
        with self._lock:
            if self._children:
                return False
            self._thread = None
            self._close_wake_pipe()
            return True

    def _run(self) -> None:
        while True:
            with self._lock:
                children = dict(self._children)
            pidfds = {fd: pid for pid, (_, fd) in children.items() if fd is not None}
            polled = [pid for pid, (_, fd) in children.items() if fd is None]
            timeout = _POLL_SECONDS if polled else None
            try:
                readable, _, _ = native_select([self._wake_read, *pidfds], [], [], timeout)
            except (OSError, ValueError):
                readable = []
            if self._wake_read in readable:
                try:
                    os.read(self._wake_read, 512)
                except OSError:
                    pass
            for fd in readable:
                if fd in pidfds:
                    self.exited(pidfds[fd])
            for pid in polled:
                if _ended(pid):
                    self.exited(pid)
            if self._end_thread_if_idle():
                return


def _ended(pid: int) -> bool:
    """Whether ``pid`` has exited, without reaping it: waitid with WNOWAIT sees a child
    that ended and leaves it waitable; a pid that is not (or no longer) our child is
    checked by signal 0."""
    if hasattr(os, "waitid"):
        try:
            return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            pass  # Reaped already, or not our child.
        except OSError:
            pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # It exists but belongs to someone else (EPERM).
    return False
