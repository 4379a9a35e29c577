"""asyncio as a paused program shows it: the event loops its threads run, their tasks,
what each task waits on, and which task awaits it.

Nothing here imports asyncio: a program that never imported it has no loop to show, and
``sys.modules`` says whether it did. Nothing here runs the program's code either: it
reads what the tasks record about themselves (their name, coroutine, the future they
wait on, their done-callbacks), so the IPC thread may read it while the loop's thread is
stopped, and a program that is never paused pays nothing.

Which task awaits a task. Python 3.14 records it (``asyncio.capture_call_graph``, fed by
``await``, ``gather``, ``TaskGroup`` and the rest). Before 3.14 it is reconstructed from
what links the futures: a task waits on the future in its ``_fut_waiter``, and a future
that completes another does it through a done-callback (gather's ``_done_callback``
completes the gathering future, wait_for's ``_release_waiter`` the waiter its caller
awaits, shield's callback the outer future, TaskGroup's ``_on_task_done`` wakes the task
that entered the group), so a callback's bound object, partial arguments and closure
cells name the next future up the chain.
"""

from __future__ import annotations

import gc
import os
import sys
import types

from ..instrumentation.restarts import is_parked

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

# Python 3.14 records which futures await which (``capture_call_graph``).
RECORDED_AWAITERS = sys.version_info >= (3, 14)
# How far a chain of awaits is followed: through futures that complete each other, and
# from a coroutine to the one it awaits (a longer chain is cut there, not an error).
MAX_FUTURE_LINKS = 16
_MAX_CHAIN = 1000

# The done-callbacks by which asyncio's combinators link a task to the future its awaiter
# waits on, by qualified name: what the "awaited by" label says the link is.
_LINKS = {
    "gather.<locals>._done_callback": "asyncio.gather",
    "_gather.<locals>._done_callback": "asyncio.gather",  # 3.9
    "_release_waiter": "asyncio.wait_for",
    "_wait.<locals>._on_completion": "asyncio.wait",
    "as_completed.<locals>._on_completion": "asyncio.as_completed",
    "_AsCompletedIterator._handle_completion": "asyncio.as_completed",
    "shield.<locals>._inner_done_callback": "asyncio.shield",
    "TaskGroup._on_task_done": "TaskGroup",
}
# asyncio's coroutines an awaiter can be suspended in while it waits for a task, for the
# links no callback names (3.12+ wait_for awaits the task itself; 3.14's TaskGroup).
LINK_FRAMES = {
    "wait_for": "asyncio.wait_for",
    "TaskGroup.__aexit__": "TaskGroup",
    "TaskGroup._aexit": "TaskGroup",
    "staggered_race": "asyncio.staggered_race",
}
# Objects that stand between an awaiter and the coroutine it awaits without a frame of
# their own: ``coro.__await__()``, and an async generator's ``__anext__()`` and
# ``athrow()``. The coroutine or generator behind them is one of their referents.
_WRAPPER_TYPES = frozenset({"coroutine_wrapper", "async_generator_asend",
                            "async_generator_athrow"})
_SUSPENDABLE = (types.CoroutineType, types.GeneratorType, types.AsyncGeneratorType)
# The code flags of what a task can run: a coroutine, or a generator made one by
# types.coroutine (inspect.CO_COROUTINE, CO_ITERABLE_COROUTINE).
COROUTINE_FLAGS = 0x80 | 0x100

# Task states, as the tasks request gives them.
RUNNING = "running"
WAITING = "waiting"
READY = "ready"
NOT_STARTED = "notStarted"
DONE = "done"
CANCELLED = "cancelled"
FAILED = "failed"


def asyncio_loaded() -> bool:
    return "asyncio.tasks" in sys.modules


def running_loop():
    """The event loop running in the calling thread, if the program uses asyncio (the
    thread that stops asks: the loop is per thread)."""
    events = sys.modules.get("asyncio.events")
    if events is None:
        return None
    try:
        return events._get_running_loop()
    except Exception:  # A broken or replaced asyncio: no loop to show.
        return None


def _asyncio_directory() -> str:
    module = sys.modules.get("asyncio")
    path = getattr(module, "__file__", None)
    return os.path.dirname(path) + os.sep if path else "\0"


def is_asyncio_code(code: types.CodeType) -> bool:
    """Whether ``code`` is asyncio's own (its event loop, tasks and combinators)."""
    return code.co_filename.startswith(_asyncio_directory())


def qualified_name(frame: types.FrameType) -> str:
    """The frame's function as its class names it ("Event.wait"), also before 3.11,
    whose code objects have no qualified name: a method's class is its ``self``'s."""
    code = frame.f_code
    name = getattr(code, "co_qualname", None)
    if name is not None:
        return name
    if code.co_argcount and code.co_varnames[0] == "self":
        owner = frame.f_locals.get("self")
        if owner is not None:
            return f"{type(owner).__name__}.{code.co_name}"
    return code.co_name


def loop_of_frames(frame: types.FrameType | None):
    """The asyncio event loop a thread runs, found on its stack (the loop's run_forever
    frame): for a thread that did not stop itself, such as one blocked in the loop's
    select, whose running loop only that thread can ask for."""
    directory = _asyncio_directory()
    while frame is not None:
        code = frame.f_code
        if code.co_name in ("run_forever", "_run_once") and code.co_filename.startswith(directory):
            loop = frame.f_locals.get("self")
            if loop is not None:
                return loop
        frame = frame.f_back
    return None


def current_task(loop):
    """The task ``loop`` runs now (None between tasks, or in a plain callback). Asked from
    any thread: the loop's thread is stopped."""
    tasks = sys.modules.get("asyncio.tasks")
    if tasks is None or loop is None:
        return None
    try:
        return tasks.current_task(loop)
    except Exception:
        return None


def all_tasks(loop) -> list:
    """The tasks of ``loop`` that are not done."""
    tasks = sys.modules.get("asyncio.tasks")
    if tasks is None or loop is None:
        return []
    try:
        return list(tasks.all_tasks(loop))
    except Exception:
        return []


def is_task(value) -> bool:
    return callable(getattr(type(value), "get_coro", None)) and is_future(value)


def is_future(value) -> bool:
    # asyncio.isfuture's own test, without importing asyncio.
    return getattr(type(value), "_asyncio_future_blocking", None) is not None


def task_name(task) -> str:
    try:
        name = task.get_name()
    except Exception:
        name = None
    return name if isinstance(name, str) else f"<{type(task).__name__}>"


def task_coroutine(task):
    try:
        return task.get_coro()
    except Exception:
        return getattr(task, "_coro", None)


def root_frame(task) -> types.FrameType | None:
    """The frame of the coroutine the task runs (the outermost of its frames)."""
    return _frame_of(task_coroutine(task))


def _frame_of(awaitable) -> types.FrameType | None:
    for attribute in ("cr_frame", "gi_frame", "ag_frame"):
        frame = getattr(awaitable, attribute, None)
        if frame is not None:
            return frame
    return None


def _awaited_by_coroutine(awaitable):
    """What a suspended coroutine, generator or async generator is waiting on."""
    for attribute in ("cr_await", "gi_yieldfrom", "ag_await"):
        inner = getattr(awaitable, attribute, None)
        if inner is not None:
            return inner
    if type(awaitable).__name__ in _WRAPPER_TYPES:
        return next((item for item in gc.get_referents(awaitable)
                     if isinstance(item, _SUSPENDABLE)), None)
    return None


def awaiting_chain(awaitable) -> list:
    """The coroutines (generators, async generators) from ``awaitable`` down to the one
    that waits, outermost first; what they wait on last, when it is something else (a
    future). The frames of a coroutine parked under its restart are left out
    (instrumentation/restartable.py)."""
    chain = []
    seen = set()
    while awaitable is not None and id(awaitable) not in seen and len(chain) < _MAX_CHAIN:
        seen.add(id(awaitable))
        if type(awaitable).__name__ in _WRAPPER_TYPES:
            awaitable = _awaited_by_coroutine(awaitable)
            continue
        chain.append(awaitable)
        if _frame_of(awaitable) is None:
            break
        awaitable = _awaited_by_coroutine(awaitable)
    return chain


def suspended_frames(task) -> list[types.FrameType]:
    """The frames of a task that is not running, innermost first: where it waits, then
    each coroutine that awaits that one, up to the task's own coroutine."""
    frames = []
    for awaitable in awaiting_chain(task_coroutine(task)):
        frame = _frame_of(awaitable)
        if frame is not None and not is_parked(frame):
            frames.append(frame)
    frames.reverse()
    return frames


def is_not_started(coroutine) -> bool:
    if getattr(coroutine, "cr_running", False):
        return False
    suspended = getattr(coroutine, "cr_suspended", getattr(coroutine, "gi_suspended", None))
    frame = _frame_of(coroutine)
    if frame is None:
        return False
    if suspended is not None:  # 3.11+
        return not suspended
    return frame.f_lasti < 0


def is_executing(coroutine) -> bool:
    """Whether the coroutine's code runs now (on some thread's stack), not suspended."""
    return bool(getattr(coroutine, "cr_running", False)
                or getattr(coroutine, "gi_running", False))


def callbacks_of(future) -> list:
    try:
        callbacks = future._callbacks
    except Exception:
        return []
    if not callbacks:
        return []
    # (callback, context) pairs; 3.9's C futures may hand over the bare callback.
    return [entry[0] if isinstance(entry, tuple) else entry for entry in list(callbacks)]


def _qualified_name(callback) -> str:
    function = getattr(callback, "func", None) if type(callback).__name__ == "partial" else None
    target = function if function is not None else callback
    return getattr(target, "__qualname__", "") or ""


def link_of_callback(callback) -> str | None:
    return _LINKS.get(_qualified_name(callback))


def futures_fed_by(callback) -> Iterator:
    """The futures (tasks included) a done-callback completes or wakes."""
    owner = getattr(callback, "__self__", None)
    if owner is not None:
        if is_future(owner):
            yield owner
            return
        # TaskGroup wakes the task that entered it; as_completed's iterator (3.13+) puts
        # the task in its queue.
        yield from _futures_in(getattr(owner, "_parent_task", None))
        yield from _futures_in(getattr(owner, "_done", None))
        return
    if type(callback).__name__ == "partial":
        for value in (*callback.args, *callback.keywords.values()):
            yield from _futures_in(value)
        callback = callback.func
    for cell in getattr(callback, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # An empty cell.
            continue
        yield from _futures_in(value)


def _futures_in(value) -> Iterator:
    """``value`` if it is a future; for an asyncio queue (as_completed's before 3.13),
    the futures of the tasks waiting to get from it."""
    if value is None:
        return
    if is_future(value):
        yield value
        return
    getters = getattr(value, "_getters", None)
    if getters is not None and type(getters).__name__ == "deque":
        yield from (getter for getter in list(getters) if is_future(getter))


def task_of_returning_coroutine(frame: types.FrameType):
    """The task whose own coroutine ``frame`` is, while it returns (or unwinds) on this
    thread, its loop's current task; None for a coroutine no task runs that way."""
    task = current_task(running_loop())
    if task is None or root_frame(task) is not frame:
        return None
    return task


def awaited_by_loop(task) -> bool:
    """Whether a ``run_until_complete`` waits for ``task`` (the task ``asyncio.run``
    runs): the code under the loop on the thread's stack goes on when it ends."""
    return any(_qualified_name(callback) == "_run_until_complete_cb"
               for callback in callbacks_of(task))
