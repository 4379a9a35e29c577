"""The program's ``threading``, which the debugger never imports itself.

A program that never imports ``threading`` runs without it, under the debugger too: the
debugger's own threads and locks come from ``_thread`` (common/native.py,
common/debugger_threads.py). Importing it for the program would cost every such process
(most children of a test suite: a ``-c`` one-liner imports neither it nor the
``functools`` and ``collections`` it imports before 3.13, about 5 ms a start on 3.12), and
the live instrumentation of its file when the session has a breakpoint there. It would
also be wrong before 3.13, where the first import of ``threading`` takes the thread that
imports it for the main thread, were that a debugger thread (the connection's reader).
A module a debugger thread imports for a request may import ``threading`` all the same
(tempfile does before 3.12): what ``threading`` then made of that thread is given back to
the main thread as the import ends (``_give_back_main_thread``).

So what the debugger does with threads asks here. Until the program has imported
``threading``, its only thread is the main one, shown as ``MAIN_BEFORE_THREADING``; once it
has, ``threading``'s own threads, the main one included (a thread registry gives it the
id it had: session/threads.py). What must be done to ``threading`` itself (hooks on its
threads' start and end, its ``settrace`` and ``excepthook``) is done by ``when_imported``
as the program's import of it finishes, before any thread of it can start.

That moment is seen without a finder in ``sys.meta_path``, which the program would see
(common/import_hooks.py has one, for modules it cannot know the loader of): the source
loader of the import system (``SourceFileLoader``, which loads threading.py) is given an
``exec_module`` of its own that calls the one it inherits, from the package's import
until ``threading`` is in. Should ``threading`` come through another loader (a frozen
application's, say), the first question asked here after its import finds it in
``sys.modules`` and does what was waiting then.
"""

from __future__ import annotations

import os
import sys
from _frozen_importlib_external import SourceFileLoader

from .debugger_threads import is_debugger_thread
from .native import allocate_lock, get_ident, main_thread_ident

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable

    Patch = Callable[[types.ModuleType], None]

# ``threading`` once its import finished; None before. Never a module still executing
# (``sys.modules`` has it from the start of its import, without its functions).
_threading: types.ModuleType | None = None
# The class of every thread, as the import left it: gevent's patching puts a subclass of
# its own in its place.
_thread_class: type | None = None
# What waits for the import, and the lock under which it is taken (once).
_waiting: list[Patch] = []
_lock = allocate_lock()


def _arrived(module: types.ModuleType) -> None:
    global _threading, _thread_class
    with _lock:
        if _threading is not None:
            return
        _unwatch()
        if sys.version_info < (3, 13):
            try:
                _give_back_main_thread(module)
            except Exception as error:  # Never the program's import's failure.
                print(f"dapper: could not give threading its main thread back: {error}",
                      file=sys.stderr)
        _thread_class = module.Thread
        _threading = module
        waiting = _waiting[:]
        _waiting.clear()
    for patch in waiting:
        try:
            patch(module)
        except Exception as error:  # A failed hook must never fail the program's import.
            print(f"dapper: could not hook threading: {error}", file=sys.stderr)


def _give_back_main_thread(threading: types.ModuleType) -> None:
    """Before 3.13, ``threading`` takes the thread that first imports it for the main one.
    Where that is a debugger thread (a module it imports for a request imports
    ``threading``: tempfile does before 3.12, through shutil and bz2), what ``threading``
    made of it is made the main thread's: the main thread's ident, and a thread-state
    lock held until ``threading``'s shutdown releases it (the debugger thread's own would
    make that shutdown wait for the debugger thread, which never ends first, and the
    process would never exit). These versions' ``threading`` changes no more."""
    main = threading._main_thread
    taken = main._ident
    right = main_thread_ident()
    if not is_debugger_thread(taken) or right is None:
        return
    with threading._active_limbo_lock:
        if threading._active.get(taken) is main:
            del threading._active[taken]
        main._ident = right
        threading._active[right] = main
    if hasattr(main, "_native_id"):
        # The main thread's is the process id on Linux; elsewhere it is not known here.
        main._native_id = os.getpid() if sys.platform.startswith("linux") else None
    held = allocate_lock()
    held.acquire()
    with threading._shutdown_locks_lock:
        threading._shutdown_locks.discard(main._tstate_lock)
        threading._shutdown_locks.add(held)
    main._tstate_lock = held


def _exec_module(loader, module) -> None:
    _inherited_exec_module(loader, module)
    if module.__name__ == "threading":
        _arrived(module)


_inherited_exec_module = SourceFileLoader.exec_module
# Its code says it is the import system's: the interpreter takes the import system's
# frames out of the traceback of an exception that a module's code raises (plain, it
# starts at the module's own line), and this frame must go with them.
_exec_module.__code__ = _exec_module.__code__.replace(
    co_filename=_inherited_exec_module.__code__.co_filename)


def _watch() -> None:
    if SourceFileLoader.__dict__.get("exec_module") is None:
        SourceFileLoader.exec_module = _exec_module  # type: ignore[method-assign]


def _unwatch() -> None:
    if SourceFileLoader.__dict__.get("exec_module") is _exec_module:
        del SourceFileLoader.exec_module


def loaded() -> types.ModuleType | None:
    """``threading``, if the program's import of it finished; else None."""
    threading = _threading
    if threading is None:
        module = sys.modules.get("threading")
        if module is not None and not getattr(getattr(module, "__spec__", None),
                                              "_initializing", False):
            # Imported past the source loader: what waited for it is done now.
            _arrived(module)
            threading = module
    return threading


def when_imported(patch: Patch) -> None:
    """``patch(threading)`` at once if the program imported it, else as its import ends."""
    threading = loaded()
    if threading is None:
        with _lock:
            if _threading is None:
                _waiting.append(patch)
                _watch()  # Again, if the debugger left since (``forget``).
                return
        threading = _threading
    patch(threading)


def forget() -> None:
    """Nothing waits for ``threading`` any more, and the source loader is as it was (the
    debugger leaves the process)."""
    with _lock:
        _waiting.clear()
        _unwatch()


class MainThreadBeforeThreading:
    """The main thread of a program that has not imported ``threading``: what the
    debugger shows and stops, with what it reads of a ``threading.Thread``."""

    __slots__ = ("__weakref__",)
    name = "MainThread"
    daemon = False

    @property
    def ident(self) -> int | None:
        return main_thread_ident()

    def is_alive(self) -> bool:
        return True


MAIN_BEFORE_THREADING = MainThreadBeforeThreading()
# The DAP thread id of the main thread: the first a debugger's thread registry gives
# (session/threads.py), which a child without its debugger answers for too
# (session/dormant.py).
MAIN_THREAD_ID = 1


def main_thread():
    """The program's main thread: ``threading``'s once imported."""
    threading = loaded()
    return MAIN_BEFORE_THREADING if threading is None else threading.main_thread()


def threads() -> list:
    """The program's live threads (``threading.enumerate()``, once it is imported)."""
    threading = loaded()
    return [MAIN_BEFORE_THREADING] if threading is None else threading.enumerate()


def current_thread():
    """The calling program thread. Before the program imported ``threading``: the main
    thread, or (a thread of ``_thread``'s, in a program that started one without
    ``threading``) what ``threading`` makes of it, imported then; before 3.13 that
    import takes that thread for the main one, as the program's own import would."""
    threading = loaded()
    if threading is None:
        if get_ident() == main_thread_ident():
            return MAIN_BEFORE_THREADING
        import threading
    return threading.current_thread()


def is_thread(item: object) -> bool:
    """Whether ``item`` is one of the program's threads (not a task or a greenlet)."""
    return item is MAIN_BEFORE_THREADING or (
        _thread_class is not None and isinstance(item, _thread_class))


# Watched from the package's import on: a debugger thread's import may come first.
if loaded() is None:
    _watch()
