"""Call stacks of asyncio code as it is written (docs/async.md): a coroutine's frames,
then, under a label naming the task that awaits it ("awaited by Task 'main'
(asyncio.gather)"), the frames of that task where it waits, and so on up to the task
that started the chain; then the frames that run the event loop. Under justMyCode,
asyncio's own frames are left out (the loop's, and those a task waits in: the labels and
the task's state name them).

A stack is built as items first (a frame with the line to show it at, or a label with
the frame that selecting it shows), and only the page the client asks for becomes DAP
stack frames, each with an id.
"""

from __future__ import annotations

import types

from .async_snapshot import AsyncSnapshot
from .async_tasks import is_asyncio_code, root_frame, suspended_frames, task_name
from .inspector import Inspector, visible_frames

# Where a chain of "awaited by" links is cut (a longer one is shown that far).
_MAX_AWAITERS = 200
# The asyncio functions that run an event loop, by qualified name, as the label over the
# frames that run it names them.
_LOOP_ENTRIES = {
    "run": "asyncio.run",
    "Runner.run": "asyncio.Runner.run",
    "BaseEventLoop.run_until_complete": "run_until_complete",
    "BaseEventLoop.run_forever": "run_forever",
}


class FrameItem:
    """A frame of a stack; ``on_stack``: of the thread's own stack (a waiting task's
    frames are not, and cannot be restarted)."""

    __slots__ = ("frame", "line", "is_top", "on_stack")

    def __init__(self, frame: types.FrameType, line: int | None = None,
                 is_top: bool = False, on_stack: bool = True) -> None:
        self.frame = frame
        self.line = line
        self.is_top = is_top
        self.on_stack = on_stack


class LabelItem:
    __slots__ = ("text", "frame")

    def __init__(self, text: str, frame: types.FrameType) -> None:
        self.text = text
        self.frame = frame


def render(inspector: Inspector, thread_id: int, items: list, start: int,
           levels: int) -> dict:
    """The stackTrace body of a page of ``items``."""
    page = items[start:start + levels] if levels > 0 else items[start:]
    frames = [inspector.frame_body(thread_id, item.frame, item.line, item.is_top, item.on_stack)
              if type(item) is FrameItem else inspector.label_body(thread_id, item.text, item.frame)
              for item in page]
    return {"stackFrames": frames, "totalFrames": len(items)}


def thread_items(inspector: Inspector, snapshot: AsyncSnapshot, thread_id: int,
                 top: types.FrameType, lines: dict[int, int] | None = None,
                 from_task=None) -> list | None:
    """The items of the stack of a thread stopped in ``top`` while its event loop runs a
    task; None when it runs none (its stack is the plain one). ``from_task``: a task that
    is starting the running one eagerly (its frames are on this stack, further down):
    the items from its frames on; None if it is not."""
    loop = snapshot.loop_of_thread(thread_id)
    task = snapshot.current_task(loop) if loop is not None else None
    if task is None:
        return None
    # The tasks whose frames are on the stack, innermost first: the running one, then
    # each that is starting the one before it eagerly.
    chain = [task]
    while len(chain) < _MAX_AWAITERS:
        starter = snapshot.eager_starter(chain[-1])
        if starter is None or any(starter is known for known in chain):
            break
        chain.append(starter)
    # Which of them each frame is of: a task's frames go down to the coroutine it runs;
    # below the last are the frames that run the loop (or, for a task started eagerly
    # by no task, the code that created it).
    owner: dict[int, int] = {}
    frame: types.FrameType | None = top
    index = 0
    while frame is not None and index < len(chain):
        owner[id(frame)] = index
        if frame is root_frame(chain[index]):
            index += 1
        frame = frame.f_back
    if index == 0:
        return None  # Not inside the task's coroutine (a callback it runs synchronously).
    if index < len(chain):  # A starter's coroutine not found: its frames are the loop's.
        owner = {key: value for key, value in owner.items() if value < index}
        chain = chain[:index]
    first = 0
    if from_task is not None:
        first = next((i for i, known in enumerate(chain) if known is from_task), -1)
        if first <= 0:
            return None
    frames = visible_frames(top, inspector.paths, lines)
    hide = inspector.settings.just_my_code
    items: list = []
    for index in range(first, len(chain)):
        # A starter's frames cannot be restarted: the restart's exception would end the
        # task it starts, never reaching them.
        own = [FrameItem(frame, lines.get(id(frame)) if lines else None, position == 0,
                         index == 0)
               for position, frame in enumerate(frames)
               if owner.get(id(frame)) == index
               and not (hide and position and is_asyncio_code(frame.f_code))]
        if index > first and own:
            items.append(LabelItem(f"started eagerly by Task '{task_name(chain[index])}'",
                                   own[0].frame))
        items.extend(own)
        items.extend(awaiter_items(snapshot, chain[index], hide))
    below = [frame for frame in frames if id(frame) not in owner]
    label = _below_label(below)
    if hide:
        below = [frame for frame in below if not is_asyncio_code(frame.f_code)]
    if below:
        items.append(LabelItem(label, below[0]))
        items.extend(FrameItem(frame, lines.get(id(frame)) if lines else None)
                     for frame in below)
    return items


def task_items(snapshot: AsyncSnapshot, task, hide: bool) -> list:
    """The items of the stack of a task that is not running: where it waits, then the
    tasks that await it. ``hide``: leave asyncio's own frames out (justMyCode)."""
    frames = shown_frames(suspended_frames(task), hide)
    items: list = [FrameItem(frame, None, index == 0, False) for index, frame in enumerate(frames)]
    items.extend(awaiter_items(snapshot, task, hide))
    return items


def shown_frames(frames: list[types.FrameType], hide: bool) -> list[types.FrameType]:
    """A waiting task's frames as shown: under justMyCode without asyncio's own (the
    sleep, Event.wait or wait_for it waits in: its state and the labels name them),
    unless that leaves none."""
    if not hide:
        return frames
    return [frame for frame in frames if not is_asyncio_code(frame.f_code)] or frames


def awaiter_items(snapshot: AsyncSnapshot, task, hide: bool) -> list:
    """For each task up the chain that awaits ``task``: a label naming it and how it
    awaits, then its frames where it waits."""
    items: list = []
    seen = {id(task)}
    for _ in range(_MAX_AWAITERS):
        awaiters = snapshot.awaiters(task)
        if not awaiters:
            break
        awaiter = awaiters[0]
        if id(awaiter.task) in seen:
            break  # A cycle: each task is shown once.
        seen.add(id(awaiter.task))
        frames = shown_frames(suspended_frames(awaiter.task), hide)
        if not frames:
            break
        text = f"awaited by Task '{task_name(awaiter.task)}'"
        if awaiter.via:
            text += f" ({awaiter.via})"
        if len(awaiters) > 1:
            others = len(awaiters) - 1
            text += f" and {others} other task{'s' if others > 1 else ''}"
        items.append(LabelItem(text, frames[0]))
        items.extend(FrameItem(frame, on_stack=False) for frame in frames)
        task = awaiter.task
    return items


def _below_label(below: list[types.FrameType]) -> str:
    """The label over the frames below a task's: the event loop, named by the call that
    runs it (the outermost one: asyncio.run calls Runner.run, which calls
    run_until_complete)."""
    for frame in reversed(below):
        code = frame.f_code
        if not is_asyncio_code(code):
            continue
        name = getattr(code, "co_qualname", None)
        if name is None:
            # Before 3.11: a method is the event loop's, named after the class that
            # defines it (qualified_name would give the loop's own subclass).
            method = code.co_argcount and code.co_varnames[0] == "self"
            name = f"BaseEventLoop.{code.co_name}" if method else code.co_name
        entry = _LOOP_ENTRIES.get(name)
        if entry is not None:
            return f"event loop ({entry})"
    return "started by"
