"""The asyncio state of a paused program, read once a stop (``AsyncSnapshot``): the event
loops its threads run, their tasks and their states, and for each task the tasks that
await it and by what. async_tasks.py has the facts it is read from, which read nothing
but what the tasks record about themselves.
"""

from __future__ import annotations

import sys
import types

from .async_tasks import (
    CANCELLED,
    COROUTINE_FLAGS,
    DONE,
    FAILED,
    LINK_FRAMES,
    MAX_FUTURE_LINKS,
    NOT_STARTED,
    READY,
    RECORDED_AWAITERS,
    RUNNING,
    WAITING,
    all_tasks,
    callbacks_of,
    current_task,
    futures_fed_by,
    is_asyncio_code,
    is_executing,
    is_not_started,
    is_task,
    link_of_callback,
    loop_of_frames,
    qualified_name,
    root_frame,
    running_loop,
    suspended_frames,
    task_coroutine,
    task_name,
)


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
        found = self._recorded_awaiters(task) if RECORDED_AWAITERS else []
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
        via = next(filter(None, map(link_of_callback, callbacks_of(task))), None)
        found = []
        pending = [(parent, 0) for parent in (graph.awaited_by if graph is not None else ())]
        while pending:
            parent, depth = pending.pop(0)
            if is_task(parent.future):
                found.append(Awaiter(parent.future, via))
            elif depth < MAX_FUTURE_LINKS:
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
        if depth >= MAX_FUTURE_LINKS:
            return found
        for callback in callbacks_of(future):
            via = link_of_callback(callback)
            for fed in futures_fed_by(callback):
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
            if name in LINK_FRAMES and is_asyncio_code(frame.f_code):
                return LINK_FRAMES[name]
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
        while frame is not None and not frame.f_code.co_flags & COROUTINE_FLAGS:
            frame = frame.f_back
        if frame is None:
            return None
        return self._eager_links()[0].get(id(task))

    def eagerly_started(self, task):
        """The task that ``task`` is starting eagerly now, or None."""
        if not is_executing(task_coroutine(task)):
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
                             if is_executing(task_coroutine(task))]
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
        if is_not_started(coroutine):
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
                    for callback in callbacks_of(task):
                        via = link_of_callback(callback)
                        for fed in futures_fed_by(callback):
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


def awaiting_frame(task, is_user_frame) -> types.FrameType | None:
    """The innermost frame that ``is_user_frame`` accepts of the first task that awaits
    ``task`` (where it waits), following awaiters up through tasks with no such frame;
    None when no task awaits it. Asked on the loop's thread, as ``task`` ends."""
    loop = running_loop()
    snapshot = AsyncSnapshot([LoopOnThread(loop, 0, "")])
    seen = {id(task)}
    for _ in range(MAX_FUTURE_LINKS):
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
