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
_RECORDED_AWAITERS = sys.version_info >= (3, 14)
# How far a chain of awaits is followed: through futures that complete each other, and
# from a coroutine to the one it awaits (a longer chain is cut there, not an error).
_MAX_FUTURE_LINKS = 16
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
_LINK_FRAMES = {
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
_COROUTINE_FLAGS = 0x80 | 0x100

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


def _not_started(coroutine) -> bool:
    if getattr(coroutine, "cr_running", False):
        return False
    suspended = getattr(coroutine, "cr_suspended", getattr(coroutine, "gi_suspended", None))
    frame = _frame_of(coroutine)
    if frame is None:
        return False
    if suspended is not None:  # 3.11+
        return not suspended
    return frame.f_lasti < 0


def _executing(coroutine) -> bool:
    """Whether the coroutine's code runs now (on some thread's stack), not suspended."""
    return bool(getattr(coroutine, "cr_running", False)
                or getattr(coroutine, "gi_running", False))


def _callbacks(future) -> list:
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


def _futures_fed_by(callback) -> Iterator:
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


class Awaiter:
    """A task that awaits another, and by what (``via``: "asyncio.gather", "TaskGroup",
    ..., or None for a plain ``await``)."""

    __slots__ = ("task", "via")

    def __init__(self, task, via: str | None) -> None:
        self.task = task
        self.via = via


class LoopOnThread:
    """An event loop and the DAP thread that runs it."""

    __slots__ = ("loop", "thread_id", "thread_name")

    def __init__(self, loop, thread_id: int, thread_name: str) -> None:
        self.loop = loop
        self.thread_id = thread_id
        self.thread_name = thread_name


class AsyncSnapshot:
    """The asyncio state of a paused program, read once a stop and kept until it resumes
    (what is read lazily is cached: a call stack asked for again is not rebuilt)."""

    def __init__(self, loops: list[LoopOnThread]) -> None:
        self.loops = loops
        self._tasks: dict[int, list] = {}
        self._current: dict[int, object] = {}
        # id(future) -> the tasks whose _fut_waiter it is (reconstruction before 3.14).
        self._waiting_on: dict[int, list] | None = None
        # id(future) -> (task, link) for the tasks whose callbacks complete it.
        self._fed_by: dict[int, list] | None = None
        # id(task) -> the task starting it eagerly, and the reverse (eager_starter).
        self._eager: tuple[dict, dict] | None = None

    def loop_of_thread(self, thread_id: int):
        return next((entry.loop for entry in self.loops if entry.thread_id == thread_id), None)

    def thread_of_loop(self, loop) -> LoopOnThread | None:
        return next((entry for entry in self.loops if entry.loop is loop), None)

    def thread_of_task(self, task) -> LoopOnThread | None:
        try:
            loop = task.get_loop()
        except Exception:
            loop = getattr(task, "_loop", None)
        return self.thread_of_loop(loop)

    def tasks(self, loop) -> list:
        found = self._tasks.get(id(loop))
        if found is None:
            found = all_tasks(loop)
            current = self.current_task(loop)
            if current is not None and current not in found:
                found.append(current)  # Done already, still running its last step.
            self._tasks[id(loop)] = found
        return found

    def current_task(self, loop):
        key = id(loop)
        if key not in self._current:
            self._current[key] = current_task(loop)
        return self._current[key]

    def is_running(self, task) -> bool:
        entry = self.thread_of_task(task)
        return entry is not None and self.current_task(entry.loop) is task

    # Who awaits whom.

    def awaiters(self, task) -> list[Awaiter]:
        """The tasks that await ``task``, each once, with what links them."""
        # What 3.14 records covers asyncio's own ways to await; a library's combinator that
        # does not record its links is still found through them.
        found = self._recorded_awaiters(task) if _RECORDED_AWAITERS else []
        if not found:
            found = self._reconstructed_awaiters(task, 0)
        unique: list[Awaiter] = []
        for awaiter in found:
            if awaiter.task is task:
                continue
            same = next((known for known in unique if known.task is awaiter.task), None)
            if same is None:
                unique.append(awaiter)
            elif same.via is None:
                same.via = awaiter.via
        for awaiter in unique:
            if awaiter.via is None:
                awaiter.via = self._link_of_frames(awaiter.task)
        return unique

    def _recorded_awaiters(self, task) -> list[Awaiter]:
        capture = getattr(sys.modules.get("asyncio"), "capture_call_graph", None)
        if capture is None:
            return []
        try:
            graph = capture(task, limit=0)
        except Exception:
            return []
        via = next(filter(None, map(link_of_callback, _callbacks(task))), None)
        found = []
        pending = [(parent, 0) for parent in (graph.awaited_by if graph is not None else ())]
        while pending:
            parent, depth = pending.pop(0)
            if is_task(parent.future):
                found.append(Awaiter(parent.future, via))
            elif depth < _MAX_FUTURE_LINKS:
                # A plain future between them (shield's outer future): who awaits it.
                pending.extend((grand, depth + 1) for grand in parent.awaited_by)
        return found

    def _waiting_tasks(self, future) -> list:
        if self._waiting_on is None:
            waiting: dict[int, list] = {}
            for entry in self.loops:
                for task in self.tasks(entry.loop):
                    waiter = getattr(task, "_fut_waiter", None)
                    if waiter is not None:
                        waiting.setdefault(id(waiter), []).append(task)
            self._waiting_on = waiting
        return self._waiting_on.get(id(future), [])

    def _reconstructed_awaiters(self, future, depth: int) -> list[Awaiter]:
        found = [Awaiter(task, None) for task in self._waiting_tasks(future)]
        if depth >= _MAX_FUTURE_LINKS:
            return found
        for callback in _callbacks(future):
            via = link_of_callback(callback)
            for fed in _futures_fed_by(callback):
                if fed is future:
                    continue
                if is_task(fed):
                    found.append(Awaiter(fed, via))
                    continue
                for awaiter in self._reconstructed_awaiters(fed, depth + 1):
                    found.append(Awaiter(awaiter.task, via or awaiter.via))
        return found

    def _link_of_frames(self, awaiter) -> str | None:
        """What links an awaiter to the task it awaits when no callback says: the asyncio
        coroutine it waits in (wait_for, TaskGroup's __aexit__)."""
        for frame in suspended_frames(awaiter)[:3]:
            name = qualified_name(frame)
            if name in _LINK_FRAMES and is_asyncio_code(frame.f_code):
                return _LINK_FRAMES[name]
        return None

    # Tasks started eagerly (3.12+): ``asyncio.Task(coro, eager_start=True)``, or any
    # task of a loop whose task factory is ``asyncio.eager_task_factory``, runs its first
    # step at once, inside the code that creates it (aiohttp starts each request's
    # handler so). While it does, the task that creates it is in the middle of its own
    # step, further down the same thread's stack.

    def eager_starter(self, task):
        """The task that is starting ``task`` eagerly (whose frames are below its own on
        the thread's stack), or None."""
        frame = root_frame(task)
        frame = frame.f_back if frame is not None else None
        # Cheap for the usual stack, where only the loop's plain functions are below.
        while frame is not None and not frame.f_code.co_flags & _COROUTINE_FLAGS:
            frame = frame.f_back
        if frame is None:
            return None
        return self._eager_links()[0].get(id(task))

    def eagerly_started(self, task):
        """The task that ``task`` is starting eagerly now, or None."""
        if not _executing(task_coroutine(task)):
            return None
        return self._eager_links()[1].get(id(task))

    def _eager_links(self) -> tuple[dict, dict]:
        if self._eager is None:
            starter_of: dict[int, object] = {}
            started_by: dict[int, object] = {}
            for entry in self.loops:
                # The tasks whose coroutine executes: the one the loop runs, and each
                # that is starting the one above it on the stack.
                executing = [task for task in self.tasks(entry.loop)
                             if _executing(task_coroutine(task))]
                if len(executing) < 2:
                    continue
                roots = {id(root_frame(task)): task for task in executing}
                for task in executing:
                    frame = root_frame(task)
                    frame = frame.f_back if frame is not None else None
                    while frame is not None and id(frame) not in roots:
                        frame = frame.f_back
                    if frame is not None:
                        starter = roots[id(frame)]
                        starter_of[id(task)] = starter
                        started_by[id(starter)] = task
            self._eager = (starter_of, started_by)
        return self._eager

    # What a task is doing.

    def state(self, task) -> tuple[str, str]:
        """(state, description) of ``task``: one of the state names above, and the
        words for it ("waiting on Task 'fetch-2'")."""
        try:
            if task.done():
                if task.cancelled():
                    return CANCELLED, "cancelled"
                error = task.exception()
                if error is not None:
                    return FAILED, f"failed: {type(error).__name__}"
                return DONE, "done"
        except Exception:
            return DONE, "done"
        if self.is_running(task):
            return RUNNING, "running"
        started = self.eagerly_started(task)
        if started is not None:
            return RUNNING, f"starting Task '{task_name(started)}' eagerly"
        coroutine = task_coroutine(task)
        if _not_started(coroutine):
            return NOT_STARTED, "not started"
        waiter = getattr(task, "_fut_waiter", None)
        if waiter is None:
            return READY, "ready to run"
        return WAITING, "waiting " + self._waiting_for(task, waiter)

    def _waiting_for(self, task, waiter) -> str:
        if is_task(waiter):
            via = self._link_of_frames(task)
            return f"on Task '{task_name(waiter)}'" + (f" ({via})" if via else "")
        children = getattr(waiter, "_children", None)
        if isinstance(children, list):
            return f"on asyncio.gather ({len(children)} awaitables)"
        feeders = self._feeders(waiter)
        if feeders:
            via = next((via for _, via in feeders if via), None)
            what = (f"Task '{task_name(feeders[0][0])}'" if len(feeders) == 1
                    else f"{len(feeders)} tasks")
            return f"on {what}" + (f" ({via})" if via else "")
        frames = suspended_frames(task)
        if frames:
            name = qualified_name(frames[0])
            return f"in asyncio.{name}" if is_asyncio_code(frames[0].f_code) else f"in {name}"
        return "on a future"

    def _feeders(self, future) -> list[tuple[object, str | None]]:
        """The tasks whose done-callbacks complete ``future`` (the waiter of wait_for,
        asyncio.wait, shield), with what links them."""
        if self._fed_by is None:
            fed_by: dict[int, list] = {}
            for entry in self.loops:
                for task in self.tasks(entry.loop):
                    for callback in _callbacks(task):
                        via = link_of_callback(callback)
                        for fed in _futures_fed_by(callback):
                            if not is_task(fed):
                                fed_by.setdefault(id(fed), []).append((task, via))
            self._fed_by = fed_by
        return self._fed_by.get(id(future), [])

    def gathered_done_tasks(self, loop) -> list:
        """Tasks that are done while a gather of the loop still waits for their
        siblings: they are part of what the loop is doing, though asyncio no longer
        lists them."""
        found = []
        listed = {id(task) for task in self.tasks(loop)}
        for task in self.tasks(loop):
            children = getattr(getattr(task, "_fut_waiter", None), "_children", None)
            if not isinstance(children, list):
                continue
            for child in children:
                if is_task(child) and id(child) not in listed and child.done():
                    listed.add(id(child))
                    found.append(child)
        return found


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
               for callback in _callbacks(task))


def awaiting_frame(task, is_user_frame) -> types.FrameType | None:
    """The innermost frame that ``is_user_frame`` accepts of the first task that awaits
    ``task`` (where it waits), following awaiters up through tasks with no such frame;
    None when no task awaits it. Asked on the loop's thread, as ``task`` ends."""
    loop = running_loop()
    snapshot = AsyncSnapshot([LoopOnThread(loop, 0, "")])
    seen = {id(task)}
    for _ in range(_MAX_FUTURE_LINKS):
        awaiters = snapshot.awaiters(task)
        if not awaiters:
            return None
        task = awaiters[0].task
        if id(task) in seen:
            return None
        seen.add(id(task))
        frame = next((frame for frame in suspended_frames(task) if is_user_frame(frame)), None)
        if frame is not None:
            return frame
    return None


def snapshot_loops(stopped: list[tuple[int, str, object, types.FrameType | None]]
                   ) -> list[LoopOnThread]:
    """The loops of the program's threads: ``stopped`` lists (DAP thread id, thread
    name, the loop the thread said it runs or None, its innermost frame), a loop found
    on the thread's stack when it did not say."""
    loops: list[LoopOnThread] = []
    for thread_id, name, loop, frame in stopped:
        if loop is None:
            loop = loop_of_frames(frame)
        if loop is not None and not any(entry.loop is loop for entry in loops):
            loops.append(LoopOnThread(loop, thread_id, name))
    return loops
