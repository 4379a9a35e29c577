"""The debugger's own threads (its connection's reader, the child watcher, a listener…),
started with ``_thread`` rather than ``threading`` so that the program does not see them
(the interpreter's own, as common/native.py keeps them, so that they stay threads when
gevent patches ``_thread``):
``threading.enumerate()``, ``active_count()`` and the thread start and exit
notifications hold the program's threads only, as they do when it runs plain (CPython's
own test_threading counts them); and, once ``hide_from_program`` ran,
``sys._current_frames()`` and ``sys._current_exceptions()`` leave them out too.

Such a thread must not call ``threading.current_thread()``, which would register it
with ``threading`` as a dummy thread; nothing the debugger runs on them does.

They also block every signal, from their first instruction (a thread starts with its
creator's signal mask, so they are created with everything blocked): a signal sent to
the process goes to one of the program's threads, as it does plain, never to a
debugger thread where a program that blocks it in all its threads to ``sigwait`` for it
would lose it (CPython's test_signal).
"""

from __future__ import annotations

import _signal
import os
import sys

from .native import allocate_lock, get_ident, start_new_thread

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Callable


class DebuggerThread:
    """A running (or ended) debugger thread: its name and ident, and whether it runs."""

    __slots__ = ("name", "ident", "ended")

    def __init__(self, name: str) -> None:
        self.name = name
        self.ident: int | None = None
        self.ended = False

    def is_alive(self) -> bool:
        """Whether it runs in this process (a fork child has none of its parent's)."""
        return self.ident is not None and running.get(self.ident) is self


# Ident -> the debugger thread running with it, in this process: an ident is here exactly
# while its thread runs (a program thread may get it later: the C library reuses the
# stacks of ended threads). The tracer reads it to leave the debugger's threads alone.
running: dict[int, DebuggerThread] = {}


def start_debugger_thread(name: str, target: Callable[..., object], *args) -> DebuggerThread:
    """Run ``target(*args)`` on a new debugger thread, in ``running`` from the moment it
    exists. Returns without waiting for it to run: waiting would hand the interpreter
    lock to the new thread and back, 1-2 ms on a busy machine, which a program would
    pay for every child process it starts (each gets the children's watcher anew when
    the last one has ended). An exception that escapes ``target`` is printed as a
    debugger bug, never raised into the program."""
    thread = DebuggerThread(name)

    def run() -> None:
        # The thread enters itself in ``running`` before anything else, and so does its
        # creator once the thread exists, whichever runs first: the creator need not get
        # the interpreter back before the thread runs, nor the thread wait for its
        # creator (a wait that costs each start a handover of the interpreter lock and
        # back, as much as the thread's start itself). An ended thread is never entered.
        _register(thread, get_ident())
        try:
            target(*args)
        except BaseException:
            # Imported for the bug it reports: every process starts debugger threads,
            # few ever have one fail.
            from .errors import report_internal_error

            report_internal_error(f"the debugger's thread {name}")
        finally:
            with _registry_lock:
                thread.ended = True
                ident = thread.ident
                if ident is not None and running.get(ident) is thread:
                    del running[ident]

    _register(thread, _start_with_signals_blocked(run))
    return thread


def _register(thread: DebuggerThread, ident: int) -> None:
    with _registry_lock:
        if not thread.ended:
            thread.ident = ident
            running[ident] = thread


# Taken only to enter a thread in ``running`` or take an ended one out.
_registry_lock = allocate_lock()


# Every signal a thread can block (none where threads have no signal masks: Windows).
_BLOCKABLE = _signal.valid_signals() if hasattr(_signal, "pthread_sigmask") else None


def _start_with_signals_blocked(run: Callable[[], None]) -> int:
    if _BLOCKABLE is None:
        return start_new_thread(run, ())
    previous = _signal.pthread_sigmask(_signal.SIG_BLOCK, _BLOCKABLE)
    try:
        return start_new_thread(run, ())
    finally:
        _signal.pthread_sigmask(_signal.SIG_SETMASK, previous)


def is_debugger_thread(ident: int | None) -> bool:
    return ident in running


# The sys functions that list every thread, as the interpreter has them.
_LISTINGS = {name: getattr(sys, name) for name in ("_current_frames", "_current_exceptions")
             if hasattr(sys, name)}


def _without_debugger_threads(listing: Callable[[], dict]) -> Callable[[], dict]:
    def program_listing() -> dict:
        found = listing()
        for ident in list(running):
            found.pop(ident, None)
        if listing is _current_frames:
            # The calling thread runs this function: its frame is the caller's.
            me = get_ident()
            frame = found.get(me)
            if frame is not None and frame.f_code is program_listing.__code__:
                found[me] = frame.f_back
        return found

    program_listing.__doc__ = listing.__doc__
    program_listing.__name__ = listing.__name__
    return program_listing


_current_frames = _LISTINGS.get("_current_frames")


def hide_from_program() -> None:
    """Leave the debugger's threads out of the sys functions that list threads."""
    for name, listing in _LISTINGS.items():
        if getattr(sys, name) is listing:
            setattr(sys, name, _without_debugger_threads(listing))


def show_to_program() -> None:
    """Undo ``hide_from_program`` (a detach that takes the debugger out of the process)."""
    for name, listing in _LISTINGS.items():
        setattr(sys, name, listing)


def _forget_after_fork() -> None:
    # A fork child has only the thread that forked: the parent's debugger threads are
    # not in it (and the lock may have been held by one of them).
    global _registry_lock
    _registry_lock = allocate_lock()
    running.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
