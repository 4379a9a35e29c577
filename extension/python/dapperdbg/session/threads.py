"""Thread ids for DAP, the parking place of stopped threads, and thread start/exit
notifications.

DAP thread ids are small integers handed out in the order threads are first seen, the
main thread first. They are keyed by the ``threading.Thread`` object (weakly), not by
the OS ident, because idents are reused after a thread ends. Before the program imports
``threading``, the main thread is a stand-in (common/program_threading.py); ``threading``'s
main thread takes its id once it is imported.
"""

from __future__ import annotations

from _weakref import ref  # weakref's own module: not imported before the program on 3.13+

from ..common import program_threading
from ..common.native import allocate_lock
from ..common.program_threading import MAIN_BEFORE_THREADING
from ..common.stop_imports import import_at_first_stop

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import threading
    import types
    from collections.abc import Callable

    from ..inspection.stopped_work import ResumeSignal

# The work a stopped thread runs for requests (a stopped thread's resume signal is its
# queue): a process that never stops does not import it.
import_at_first_stop(f"{__package__.rpartition('.')[0]}.inspection.stopped_work")

# Threads the debugger starts for itself are named with this prefix; they are neither
# announced nor listed.
DEBUGGER_THREAD_PREFIX = "dapper."


# Threads that ended are forgotten once the registry holds this many, or twice as many as
# are alive at the last sweep.
_FIRST_SWEEP = 64


class ThreadRegistry:
    def __init__(self) -> None:
        self._lock = allocate_lock()
        # id(thread) -> (weak reference, DAP id), and DAP id -> weak reference: an entry
        # whose reference died belongs to a thread that ended (its id() may be reused).
        self._ids: dict[int, tuple[ref, int]] = {}
        self._threads: dict[int, ref] = {}
        self._sweep_at = _FIRST_SWEEP
        self._next = program_threading.MAIN_THREAD_ID
        # DAP id of a thread that gevent's patching made a greenlet -> that greenlet.
        self._greenlets: dict[int, ref] = {}
        self.id_for(program_threading.main_thread())

    def id_for(self, thread: threading.Thread) -> int:
        return self._id_for(thread)

    def id_for_task(self, task) -> int:
        """The DAP thread id of an asyncio task: tasks are shown as threads (with
        asyncioTasksAsThreads) and their stacks asked for by these ids, which never
        collide with a thread's."""
        return self._id_for(task)

    def id_for_greenlet(self, greenlet, thread: threading.Thread | None = None) -> int:
        """The DAP thread id of a greenlet (gevent, inspection/greenlets.py): the id of
        the ``threading.Thread`` it runs (``thread``) when gevent's patching made that
        thread a greenlet, else its own."""
        thread_id = self._id_for(greenlet if thread is None else thread)
        if thread is not None:
            with self._lock:
                self._greenlets[thread_id] = ref(greenlet)
        return thread_id

    def _id_for(self, item) -> int:
        with self._lock:
            entry = self._ids.get(id(item))
            if entry is not None and entry[0]() is item:
                return entry[1]
            thread_id = self._main_thread_id(item)
            if thread_id is not None:
                return thread_id
            thread_id = self._next
            self._next += 1
            reference = ref(item)
            self._ids[id(item)] = (reference, thread_id)
            self._threads[thread_id] = reference
            if len(self._threads) >= self._sweep_at:
                self._forget_ended()
            return thread_id

    def _main_thread_id(self, item) -> int | None:
        """Under the lock: the id of the stand-in for the main thread, given to ``item``
        if it is ``threading``'s main thread, which the program imported since."""
        entry = self._ids.get(id(MAIN_BEFORE_THREADING))
        if (entry is None or entry[0]() is not MAIN_BEFORE_THREADING
                or item is not program_threading.main_thread()):
            return None
        del self._ids[id(MAIN_BEFORE_THREADING)]
        thread_id = entry[1]
        reference = ref(item)
        self._ids[id(item)] = (reference, thread_id)
        self._threads[thread_id] = reference
        return thread_id

    def _forget_ended(self) -> None:
        # Under the lock. Amortized: a program that starts threads forever keeps the
        # registry at most about twice the size of its live threads.
        self._threads = {key: reference for key, reference in self._threads.items()
                         if reference() is not None}
        self._ids = {key: entry for key, entry in self._ids.items() if entry[0]() is not None}
        self._greenlets = {key: reference for key, reference in self._greenlets.items()
                           if reference() is not None}
        self._sweep_at = max(_FIRST_SWEEP, 2 * len(self._threads))

    def thread(self, thread_id: int) -> threading.Thread | None:
        item = self._item(thread_id)
        if item is MAIN_BEFORE_THREADING:
            # The program may have imported threading since.
            item = program_threading.main_thread()
            self._id_for(item)
        return item if program_threading.is_thread(item) else None

    def task(self, thread_id: int):
        """The asyncio task ``thread_id`` names, if it names one that is still alive."""
        item = self._item(thread_id)
        return item if callable(getattr(type(item), "get_coro", None)) else None

    def greenlet(self, thread_id: int):
        """The greenlet ``thread_id`` names (its own id, or the id of the thread it
        runs), if it names one that is still alive."""
        with self._lock:
            reference = self._greenlets.get(thread_id)
        item = reference() if reference is not None else self._item(thread_id)
        return item if hasattr(type(item), "gr_frame") and not item.dead else None

    def _item(self, thread_id) -> object:
        with self._lock:
            reference = self._threads.get(thread_id)
        return reference() if reference is not None else None

    def user_threads(self, is_ignored: Callable[[int], bool]) -> list[tuple[int, threading.Thread]]:
        """(id, thread) for live threads that are not the debugger's, by id."""
        found = [
            (self.id_for(thread), thread)
            for thread in program_threading.threads()
            if not (thread.ident is not None and is_ignored(thread.ident))
            and not thread.name.startswith(DEBUGGER_THREAD_PREFIX)
        ]
        return sorted(found, key=lambda pair: pair[0])


class StoppedThread:
    """A thread blocked in the debugger until ``resume`` is set (it runs work handed to
    it meanwhile, see inspection/stopped_work.py). A step it should take once released is
    registered with the tracer before ``resume`` is set.

    ``exception`` is set for stops caused by exception breakpoints. ``running`` marks a
    thread that did not reach a line to park on yet while all threads are stopped: it
    is shown where it is, but it cannot run work. ``mid_line`` marks a thread stopped
    where a call returned to ``frame`` (after a step out), with the rest of the line to
    run: it is inside the callee's return event, so ``frame`` cannot jump (goto)."""

    __slots__ = ("thread_id", "ident", "frame", "reason", "exception", "running", "resume",
                 "mid_line", "raise_on_resume", "loop", "greenlet")

    def __init__(self, thread_id: int, ident: int, frame: types.FrameType, reason: str,
                 exception: object = None, running: bool = False,
                 resume: ResumeSignal | None = None, mid_line: bool = False) -> None:
        self.thread_id = thread_id
        self.ident = ident
        self.frame = frame
        self.reason = reason
        self.exception = exception
        self.running = running
        if resume is None:
            from ..inspection.stopped_work import ResumeSignal

            resume = ResumeSignal()
        self.resume = resume
        self.mid_line = mid_line
        # An exception the thread raises into the program once it resumes (a restart).
        self.raise_on_resume: BaseException | None = None
        # The asyncio event loop the thread runs, if any (a thread can only ask for its
        # own): docs/async.md.
        self.loop = None
        # The greenlet that stopped, when gevent's greenlets are threads (docs/gevent.md):
        # its steps go on in it.
        self.greenlet = None


def install_thread_events(
    on_started: Callable[[threading.Thread], None],
    on_exited: Callable[[threading.Thread], None],
) -> None:
    """Call ``on_started``/``on_exited`` on every ``threading`` thread that starts from
    now on, on that thread, before its target runs and after it ended. Done by wrapping
    ``Thread._bootstrap_inner``, the method every thread of the threading module runs
    (3.9 to 3.13), so that subclasses overriding ``run`` are covered too; once the program
    imports threading, if it has not yet."""
    global _thread_events
    _thread_events = (on_started, on_exited)
    program_threading.when_imported(_wrap_thread_start)


# What install_thread_events was given, until uninstall_thread_events.
_thread_events: tuple[Callable[[threading.Thread], None],
                      Callable[[threading.Thread], None]] | None = None


def _wrap_thread_start(threading: types.ModuleType) -> None:
    if _thread_events is None:
        return  # Uninstalled before the program imported threading.
    on_started, on_exited = _thread_events
    original = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]
    if getattr(original, "_dapper_wrapped", False):
        return

    def bootstrap_inner(thread: threading.Thread) -> None:
        announced = not thread.name.startswith(DEBUGGER_THREAD_PREFIX)
        if announced:
            _call_quietly(on_started, thread)
        try:
            original(thread)
        finally:
            if announced:
                _call_quietly(on_exited, thread)

    bootstrap_inner._dapper_wrapped = True  # type: ignore[attr-defined]
    bootstrap_inner._dapper_original = original  # type: ignore[attr-defined]
    threading.Thread._bootstrap_inner = bootstrap_inner  # type: ignore[attr-defined]


def uninstall_thread_events() -> None:
    """Undo ``install_thread_events`` (threads already started keep the wrapper they ran)."""
    global _thread_events
    _thread_events = None
    threading = program_threading.loaded()
    if threading is None:
        return
    wrapped = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]
    original = getattr(wrapped, "_dapper_original", None)
    if original is not None:
        threading.Thread._bootstrap_inner = original  # type: ignore[attr-defined]


def _call_quietly(function, thread) -> None:
    # A notification must never break the user's thread.
    try:
        function(thread)
    except Exception:
        return
