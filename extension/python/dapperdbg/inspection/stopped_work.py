"""Work handed to a stopped thread, with deadlines that cannot hang the IPC thread.

Evaluation and rendering run user code (``__repr__``, properties, the expressions typed
in the debug console). They run on the thread that is stopped, so thread-locals and
anything else tied to that thread look as the program sees them: while it waits to be
resumed, a stopped thread executes the work items the IPC thread hands it.

The IPC thread waits for each item with a deadline. When user code overruns, it is
interrupted with an asynchronous exception (``PyThreadState_SetAsyncExc``), which
stops any Python-level loop; code stuck inside C (a long ``time.sleep``) cannot be
interrupted, so the IPC thread gives up waiting, answers with a time-out, and refuses
further work for that thread until the stuck item ends.
"""

from __future__ import annotations

import time

from ..common.debugger_threads import start_debugger_thread
from ..common.native import Condition, Event, allocate_lock, get_ident, local
from ..common.stop_imports import import_at_first_stop

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Callable

# ctypes, for interrupting user code, is imported at the first stop, where the IPC
# thread may need it: a process that never stops never loads it.
import_at_first_stop("ctypes")


def _set_async_exc(ident: int, exception) -> None:
    """Raise ``exception`` in the thread ``ident`` when it next runs Python code (not
    on an interpreter without ctypes)."""
    try:
        import ctypes

        function = ctypes.pythonapi.PyThreadState_SetAsyncExc
    except Exception:  # pragma: no cover - interpreters without ctypes
        return
    function.restype = ctypes.c_int
    function(ctypes.c_ulong(ident), ctypes.py_object(exception))


# The share of an item's time that user code inside it may take; the rest is for
# rendering what is left without it.
USER_CODE_SHARE = 0.8
# How often the waiting IPC thread checks the deadlines of the item it waits for.
_POLL_SECONDS = 0.01
# How long to wait for interrupted code to give up before answering without it.
_GRACE_SECONDS = 0.5


class WorkRefused(RuntimeError):
    """The thread cannot take the work: it was resumed, or it is stuck in earlier work."""


class WorkTimedOut(RuntimeError):
    """The work did not finish within its deadline."""


class Interrupted(BaseException):
    """Raised inside user code whose time ran out. A BaseException, so that user code's
    ``except Exception`` does not swallow it."""


class _Item:
    def __init__(self, function: Callable[[], object]) -> None:
        self.function = function
        self.done = Event()
        self.result: object = None
        self.error: BaseException | None = None
        self.ident: int | None = None
        # Guards the fields below: an interruption is only ever sent while a deadline
        # is active, and a sent one is cleared when the code it targeted already ended.
        self.lock = allocate_lock()
        self.section_deadline: float | None = None
        self.interrupt_sent = False
        # When the time for user code (reprs, properties) inside this item runs out,
        # a little before its own deadline: from then on call_with_time_limit does not
        # start user code, so the item still ends in time, with what it has.
        self.user_code_until: float | None = None


_current = local()


def _interrupt(item: _Item) -> None:
    """Raise Interrupted in the item's thread, if the item is still inside a deadline."""
    with item.lock:
        if item.section_deadline is None or item.interrupt_sent or item.ident is None:
            return
        item.interrupt_sent = True
        _set_async_exc(item.ident, Interrupted)


def _close_section(item: _Item) -> None:
    """End the active deadline and consume an interruption that was sent but not yet
    delivered. An interruption can be delivered at any bytecode boundary, even while
    this runs, so the loop catches it and tries again; once the deadline is cleared
    under the lock no new one can be sent."""
    while True:
        try:
            with item.lock:
                item.section_deadline = None
                pending = item.interrupt_sent
                item.interrupt_sent = False
            if pending:
                _let_pending_interruption_arrive()
            return
        except Interrupted:
            continue


def _let_pending_interruption_arrive() -> None:
    # A pending asynchronous exception is raised at the next check the interpreter
    # makes (every call makes one), so a few calls deliver it here, where it is
    # expected. (Clearing it with PyThreadState_SetAsyncExc(id, NULL) instead leaves
    # the interpreter's "pending" flag set for good on 3.11, which makes it spin.)
    for _ in range(100):
        _nothing()


def _nothing() -> None:
    pass


def user_code_time_spent() -> bool:
    """Whether the current work item's time for user code has run out (so that what
    was skipped can say so)."""
    item = getattr(_current, "item", None)
    until = item.user_code_until if item is not None else None
    return until is not None and time.monotonic() >= until


def call_with_time_limit(function: Callable[[], object], seconds: float,
                         on_timeout: Callable[[], object]):
    """Run ``function`` with a deadline when called inside a work item (otherwise just
    run it). Returns ``on_timeout()`` when the deadline interrupted it, or at once when
    the item's time for user code is spent: a thousand slow reprs, each within its own
    limit, cannot keep the thread past the request's deadline. Deadlines do not nest:
    an inner one replaces the outer one while it runs."""
    item = getattr(_current, "item", None)
    if item is None:
        return function()
    now = time.monotonic()
    until = item.user_code_until
    if until is not None and now >= until:
        return on_timeout()
    with item.lock:
        outer = item.section_deadline
        item.section_deadline = now + seconds if until is None else min(now + seconds, until)
    timed_out = False
    try:
        try:
            return function()
        except Interrupted:
            timed_out = True
        finally:
            _close_section(item)
    except Interrupted:
        # Delivered while the section was closing: the function did finish, but its
        # result is lost; report the time-out rather than guess.
        _close_section(item)
        timed_out = True
    finally:
        if outer is not None:
            with item.lock:
                item.section_deadline = outer
    assert timed_out
    return on_timeout()


class ResumeSignal:
    """A drop-in for the ``threading.Event`` a stopped thread waits on to be resumed,
    whose ``wait`` also runs the work items handed to the thread meanwhile."""

    def __init__(self) -> None:
        self._condition = Condition()
        self._set = False
        # A list, not a deque: it holds an item or two, and collections costs every
        # debugged process.
        self._items: list[_Item] = []
        self._running: _Item | None = None

    def set(self) -> None:
        with self._condition:
            self._set = True
            self._condition.notify_all()

    def is_set(self) -> bool:
        return self._set

    def wait(self, timeout: float | None = None) -> bool:
        """Block until set, running work items. Only the stopped thread calls this."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._condition:
                while not self._set and not self._items:
                    remaining = None if end is None else end - time.monotonic()
                    if remaining is not None and remaining <= 0:
                        return False
                    self._condition.wait(remaining)
                if self._set:
                    self._fail_queued()
                    return True
                item = self._items.pop(0)
                self._running = item
            _run(item)
            with self._condition:
                self._running = None

    def _fail_queued(self) -> None:
        while self._items:
            item = self._items.pop(0)
            item.error = WorkRefused("the thread was resumed before it could run this")
            item.done.set()

    def submit(self, function: Callable[[], object], timeout: float) -> _Item:
        with self._condition:
            if self._set:
                raise WorkRefused("the thread is no longer stopped")
            if self._running is not None:
                raise WorkRefused(
                    "the thread is still busy with an earlier evaluation that did not "
                    "finish in time"
                )
            item = _Item(function)
            # The whole item is one deadline; reprs inside it set shorter ones, and stop
            # being started a little before it.
            now = time.monotonic()
            item.section_deadline = now + timeout
            item.user_code_until = now + timeout * USER_CODE_SHARE
            self._items.append(item)
            self._condition.notify_all()
            return item


def _run(item: _Item) -> None:
    item.ident = get_ident()
    _current.item = item
    try:
        try:
            item.result = item.function()
        except Interrupted:
            item.error = WorkTimedOut("the evaluation took too long and was interrupted")
        except BaseException as error:
            item.error = error
        finally:
            _close_section(item)
    except Interrupted:
        _close_section(item)
        if item.error is None:
            item.error = WorkTimedOut("the evaluation took too long and was interrupted")
    finally:
        _current.item = None
        item.done.set()


def run_on_stopped_thread(signal: ResumeSignal, function: Callable[[], object],
                          timeout: float):
    """Run ``function`` on the thread waiting on ``signal`` and return its result (or
    raise its exception). Raises WorkRefused or WorkTimedOut; never waits much longer
    than ``timeout`` plus a short grace period."""
    item = signal.submit(function, timeout)
    hard_end = time.monotonic() + timeout + _GRACE_SECONDS
    while not item.done.wait(_POLL_SECONDS):
        now = time.monotonic()
        with item.lock:
            deadline = item.section_deadline
        if deadline is not None and now >= deadline:
            _interrupt(item)
        if now >= hard_end:
            raise WorkTimedOut(
                f"the evaluation did not finish within {timeout:g} s and could not be "
                "interrupted (it may be blocked in native code); the thread stays busy "
                "until it ends"
            )
    if item.error is not None:
        raise item.error
    return item.result



class InspectionWorker:
    """A debugger thread that runs work for threads that cannot run it themselves (a
    thread blocked in native code while the others are stopped): its values can still
    be shown, with the same deadlines. A worker stuck in native code is abandoned for a
    fresh one, so the next request does not wait behind it."""

    THREAD_NAME = "dapper.inspect"

    def __init__(self) -> None:
        self._lock = allocate_lock()
        self._signal: ResumeSignal | None = None

    def _start(self) -> ResumeSignal:
        signal = ResumeSignal()
        start_debugger_thread(self.THREAD_NAME, signal.wait)
        return signal

    def run(self, function: Callable[[], object], timeout: float):
        with self._lock:
            if self._signal is None:
                self._signal = self._start()
            signal = self._signal
        try:
            return run_on_stopped_thread(signal, function, timeout)
        except WorkRefused:
            # Busy with work that overran: let that thread finish on its own.
            with self._lock:
                if self._signal is signal:
                    signal.set()
                    self._signal = self._start()
                signal = self._signal
            return run_on_stopped_thread(signal, function, timeout)
