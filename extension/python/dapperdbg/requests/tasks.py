"""asyncio tasks, as the client sees them (docs/async.md): the ``dapper/tasks`` request
(the tasks of each event loop, what each is doing and where), the call stacks of tasks
and of threads running a task (stackTrace), and tasks listed as threads
(asyncioTasksAsThreads).

Tasks have ids from the thread registry, so a task's id is a ``threadId``: stackTrace
answers for it in either mode, and when tasks are threads, the running task's id is the
thread that stops, steps and continues.
"""

from __future__ import annotations

import re
import sys

from ..inspection.async_snapshot import AsyncSnapshot, snapshot_loops
from ..inspection.async_stacks import FrameItem, render, shown_frames, task_items, thread_items
from ..inspection.async_tasks import RUNNING, asyncio_loaded, suspended_frames, task_name
from ..inspection.inspector import frame_name, visible_frames
from .handling import argument

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..session.debugger import Debugger
    from ..session.threads import StoppedThread


class _Snapshot(AsyncSnapshot):
    """A snapshot, with the stop it was read at (the stopped threads of that stop)."""

    stopped: list


def snapshot(debugger: Debugger) -> AsyncSnapshot | None:
    """What the program's event loops are doing; None when it never imported asyncio.
    Read once a stop (kept by the inspector until the threads resume); while the
    program runs, read anew each time."""
    if not asyncio_loaded():
        return None
    inspector = debugger.inspector
    stopped = debugger.stops.stopped_threads()
    cached = inspector.async_snapshot
    if (stopped and isinstance(cached, _Snapshot) and len(cached.stopped) == len(stopped)
            and all(a is b for a, b in zip(cached.stopped, stopped))):
        return cached
    by_id = {entry.thread_id: entry for entry in stopped}
    frames = sys._current_frames()
    threads = []
    for thread_id, thread in debugger.user_threads():
        # A thread that did not say which loop it runs (it did not stop itself: it is
        # blocked, in the loop's select or elsewhere) has it on its stack.
        entry = by_id.get(thread_id)
        threads.append((thread_id, thread.name, entry.loop if entry is not None else None,
                        frames.get(thread.ident)))
    result = _Snapshot(snapshot_loops(threads))
    result.stopped = stopped
    if stopped:
        inspector.async_snapshot = result
    return result


def stack_items(debugger: Debugger, thread_id: int
                ) -> tuple[int, list, StoppedThread | None] | None:
    """The call stack of ``thread_id`` as async_stacks items, with the thread whose
    frames they are and the stop it is (None for a task that waits); None when asyncio
    has nothing to add (the plain stack applies)."""
    tasks_snapshot = snapshot(debugger)
    if tasks_snapshot is None:
        return None
    inspector = debugger.inspector
    task = debugger.threads.task(thread_id)
    if task is not None and not tasks_snapshot.is_running(task):
        loop_thread = tasks_snapshot.thread_of_task(task)
        owner = loop_thread.thread_id if loop_thread is not None else thread_id
        if tasks_snapshot.eagerly_started(task) is not None:
            # Starting a task eagerly: its frames are on its thread's stack, below that
            # task's.
            stopped = next((entry for entry in debugger.stops.stopped_threads()
                            if entry.thread_id == owner), None)
            items = thread_items(inspector, tasks_snapshot, owner, stopped.frame,
                                 from_task=task) if stopped is not None else None
            if items:
                return owner, items, None
        return owner, task_items(tasks_snapshot, task, inspector.settings.just_my_code), None
    stopped = debugger.stops.stopped_thread(thread_id)
    exception = stopped.exception
    lines = exception.lines() if exception is not None else None
    items = thread_items(inspector, tasks_snapshot, stopped.thread_id, stopped.frame, lines)
    if items is None:
        if task is None:
            return None
        # A running task whose thread is outside its coroutine: the thread's stack.
        items = [FrameItem(frame, lines.get(id(frame)) if lines else None, index == 0)
                 for index, frame in enumerate(visible_frames(stopped.frame, inspector.paths,
                                                              lines))]
    return stopped.thread_id, items, stopped


def stack_trace(debugger: Debugger, thread_id: int, start: int, levels: int,
                chained) -> dict | None:
    """The stackTrace body of a task, or of a thread whose event loop runs a task; None
    for the plain stack. ``chained(thread_id, stopped)`` gives the frames of the
    exceptions chained to the one the thread stopped at, which follow its own."""
    found = stack_items(debugger, thread_id)
    if found is None:
        return None
    owner, items, stopped = found
    inspector = debugger.inspector
    if stopped is None or stopped.exception is None:
        return render(inspector, owner, items, start, levels)
    frames = render(inspector, owner, items, 0, 0)["stackFrames"] + chained(owner, stopped)
    page = frames[start:start + levels] if levels > 0 else frames[start:]
    return {"stackFrames": page, "totalFrames": len(frames)}


def _natural(name: str) -> list:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _listed_tasks(tasks_snapshot: AsyncSnapshot, loop) -> list:
    """The tasks of ``loop`` in a stable order: by name, numbers as numbers (Task-2
    before Task-10)."""
    found = tasks_snapshot.tasks(loop) + tasks_snapshot.gathered_done_tasks(loop)
    found.sort(key=lambda task: _natural(task_name(task)))
    return found


def task_threads(debugger: Debugger) -> list[dict]:
    """The tasks as DAP threads: ``Task 'name' (state)``."""
    tasks_snapshot = snapshot(debugger)
    if tasks_snapshot is None:
        return []
    threads = []
    for entry in tasks_snapshot.loops:
        for task in _listed_tasks(tasks_snapshot, entry.loop):
            threads.append({"id": debugger.threads.id_for_task(task),
                            "name": f"Task '{task_name(task)}' ({tasks_snapshot.state(task)[1]})"})
    return threads


def tasks(debugger: Debugger, arguments: dict):
    """dapper/tasks: each event loop of the program, with the thread that runs it and
    its tasks. ``threadId`` (optional) keeps the loop of that thread only."""
    wanted = argument(arguments, "threadId", int, None)
    tasks_snapshot = snapshot(debugger)
    loops = []
    for entry in tasks_snapshot.loops if tasks_snapshot is not None else ():
        if wanted is not None and entry.thread_id != wanted:
            continue
        listed = [_task_body(debugger, tasks_snapshot, task, entry.thread_id)
                  for task in _listed_tasks(tasks_snapshot, entry.loop)]
        loops.append({"threadId": entry.thread_id, "threadName": entry.thread_name,
                      "tasks": listed})
    return {"loops": loops}


def _task_body(debugger: Debugger, tasks_snapshot: AsyncSnapshot, task,
               thread_id: int) -> dict:
    state, description = tasks_snapshot.state(task)
    body = {"id": debugger.threads.id_for_task(task), "name": task_name(task),
            "state": state, "description": description}
    awaiters = tasks_snapshot.awaiters(task) if state not in ("done", "cancelled", "failed") \
        else []
    if awaiters:
        body["awaitedBy"] = [
            {"id": debugger.threads.id_for_task(awaiter.task), "name": task_name(awaiter.task),
             **({"via": awaiter.via} if awaiter.via else {})}
            for awaiter in awaiters]
    settings = debugger.inspection
    frame = None
    if state == RUNNING and tasks_snapshot.is_running(task):
        stopped = next((entry for entry in debugger.stops.stopped_threads()
                        if entry.thread_id == thread_id), None)
        frame = stopped.frame if stopped is not None else None
    elif state == RUNNING:
        # Starting a task eagerly: where its own stack begins, on its thread's.
        found = stack_items(debugger, body["id"])
        frame = next((item.frame for item in found[1] if type(item) is FrameItem),
                     None) if found is not None else None
    else:
        # Where its stack shows it (under justMyCode, not in asyncio's sleep).
        frames = shown_frames(suspended_frames(task), settings.just_my_code)
        frame = frames[0] if frames else None
    if frame is not None:
        body["location"] = {
            "name": frame_name(frame.f_code),
            "source": settings.sources.source_for_code(frame.f_code),
            "line": (frame.f_lineno or frame.f_code.co_firstlineno) - settings.line_offset,
        }
    return body
