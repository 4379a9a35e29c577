"""The interpreter's own threads, locks, sleep and select, as they were before the program
could replace them, for the debugger's own use.

gevent's monkey-patching (``gevent.monkey.patch_all()``, which gunicorn's gevent workers
run) replaces ``_thread``'s and ``threading``'s functions, ``time.sleep`` and
``select.select`` with versions that switch greenlets. The debugger cannot use those: a
thread of its own started through them would be a greenlet that runs only when the
program's greenlets let it (never, while the program is stopped), and a stopped thread
waiting on a patched lock would hand its thread to gevent's hub, which would run the
other greenlets on: a stop must hold the whole thread. So the debugger takes them from
here, kept when the package is imported, which is before the program runs when Dapper
starts it. Imported later (an attach, ``dapperdbg.listen()`` called after the program
patched), gevent's own record of what it replaced gives them.

``Event`` and ``Condition`` are built on these locks: ``threading``'s take their locks
from ``threading`` at each call, patched by then.
"""

from __future__ import annotations

import _thread
import os
import sys
import time as _time

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Callable


def _original(module_name: str, name: str, current):
    """``current`` unless gevent replaced it, else what gevent replaced."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is None:
        return current
    try:
        return monkey.get_original(module_name, name)
    except Exception:  # Not patched, or an older gevent: what the module has is the original.
        return current


get_ident: Callable[[], int] = _original("_thread", "get_ident", _thread.get_ident)
allocate_lock = _original("_thread", "allocate_lock", _thread.allocate_lock)
RLock = _original("_thread", "RLock", _thread.RLock)
start_new_thread = _original("_thread", "start_new_thread", _thread.start_new_thread)
local = _original("_thread", "_local", _thread._local)
sleep: Callable[[float], None] = _original("time", "sleep", _time.sleep)
_original_select = None


def made_once(owner, name: str, lock, make: Callable[[], object]):
    """``owner``'s attribute ``name``, made by ``make()`` under ``lock`` unless another
    thread made it first. For a part made at its first use: the caller reads the
    attribute without the lock on every use, and comes here only while it is None."""
    with lock:
        value = getattr(owner, name)
        if value is None:
            value = make()
            setattr(owner, name, value)
    return value


def select(readers, writers, errors, timeout=None):
    """``select.select``, the interpreter's: ``select`` is imported at the first call (a
    shared library that only the watcher of child processes needs), and gevent's record
    gives the original if it patched the module meanwhile."""
    global _original_select
    original = _original_select
    if original is None:
        import select as module

        original = _original_select = _original("select", "select", module.select)
    return original(readers, writers, errors, timeout)


def _main_thread_ident() -> int | None:
    known = getattr(_thread, "_get_main_thread_ident", None)  # 3.13+
    if known is not None:
        return known()
    threading = sys.modules.get("threading")
    if threading is None:
        # Nothing has imported threading, so nothing can have patched it, and the
        # package is imported on the main thread: the launcher's start, or an attach
        # into a program that has no threading, hence most likely no other thread.
        # Importing threading to ask would cost every process that never uses it
        # (common/program_threading.py).
        return _thread.get_ident()
    if "gevent.monkey" not in sys.modules:
        return threading.main_thread().ident
    # Imported after the patching (an attach): only the main thread's main greenlet
    # can tell, by the ident gevent gave it.
    return get_ident() if _thread.get_ident() == threading.main_thread().ident else None


# The main thread's ident: gevent's patching gives ``threading``'s main thread the ident of
# its main greenlet instead (None: imported after the patching elsewhere, unknown).
_main_ident = _main_thread_ident()


def main_thread_ident() -> int | None:
    """The ident of the main thread of the operating system."""
    return _main_ident


def _forked() -> None:
    global _main_ident
    # The thread that forked is the child's only thread, and its main one.
    _main_ident = get_ident()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def os_ident(thread, running: dict | None = None) -> int | None:
    """The ident of the thread of the operating system that runs ``thread`` (a
    ``threading.Thread``): None for a thread that gevent's patching made a greenlet, or
    one that does not run. ``running``: ``sys._current_frames()``, when the caller has it."""
    # Before the program imports threading, its main thread is the only one the debugger
    # knows (common/program_threading.py).
    main_thread = getattr(sys.modules.get("threading"), "main_thread", None)
    if (main_thread is None or thread is main_thread()) and _main_ident is not None:
        return _main_ident
    ident = thread.ident
    return ident if ident in (sys._current_frames() if running is None else running) else None


class Condition:
    """A condition variable whose waits block the thread (``threading.Condition`` makes
    each waiter's lock with ``threading``'s, patched or not). ``lock``: a lock or an
    RLock of this module; a new RLock by default."""

    def __init__(self, lock=None) -> None:
        self._lock = RLock() if lock is None else lock
        self.acquire = self._lock.acquire
        self.release = self._lock.release
        self._waiters: list = []

    def __enter__(self):
        return self._lock.__enter__()

    def __exit__(self, *exception) -> None:
        self._lock.__exit__(*exception)

    def wait(self, timeout: float | None = None) -> bool:
        """Called with the lock held: release it (all of an RLock's levels), wait for a
        notify or ``timeout`` seconds, take it back. False when the time ran out."""
        waiter = allocate_lock()
        waiter.acquire()
        self._waiters.append(waiter)
        release_save = getattr(self._lock, "_release_save", None)
        saved = release_save() if release_save is not None else self._lock.release()
        notified = False
        try:
            if timeout is None:
                notified = waiter.acquire()
            elif timeout > 0:
                notified = waiter.acquire(True, timeout)
            else:
                notified = waiter.acquire(False)
            return notified
        finally:
            if release_save is not None:
                self._lock._acquire_restore(saved)
            else:
                self._lock.acquire()
            if not notified:
                try:
                    self._waiters.remove(waiter)
                except ValueError:  # Notified after the time ran out.
                    pass

    def notify_all(self) -> None:
        """Called with the lock held: wake every waiter."""
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            waiter.release()


class Event:
    """``threading.Event`` on this module's locks."""

    def __init__(self) -> None:
        self._condition = Condition(allocate_lock())
        self._flag = False

    def is_set(self) -> bool:
        return self._flag

    def set(self) -> None:
        with self._condition:
            self._flag = True
            self._condition.notify_all()

    def clear(self) -> None:
        with self._condition:
            self._flag = False

    def wait(self, timeout: float | None = None) -> bool:
        with self._condition:
            if not self._flag:
                end = None if timeout is None else _time.monotonic() + timeout
                while not self._flag:
                    remaining = None if end is None else end - _time.monotonic()
                    if remaining is not None and remaining <= 0:
                        break
                    self._condition.wait(remaining)
            return self._flag
