"""A step in progress (stepIn, over, out, and the stops on entry, on pause and of parked
threads) and the rule that decides on which line it ends; the tracers (base.py) follow
steps with it."""

from __future__ import annotations

import sys

from ..common.code_flags import (
    CO_ASYNC_GENERATOR,
    CO_COROUTINE,
    CO_GENERATOR,
    CO_ITERABLE_COROUTINE,
)
from ..common.records import Record

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

# Step kinds. "entry" is the stop on the first line of the user's code (stopOnEntry),
# "pause" the stop on the next line a paused thread runs.
STEP_INTO = "into"
STEP_OVER = "over"
STEP_OUT = "out"
STEP_ENTRY = "entry"
STEP_PAUSE = "pause"
# "park": another thread stopped and all threads stop with it; this one parks quietly on
# the next line of user code it runs.
STEP_PARK = "park"
# "restart": a restarted function's new call stops on its first line.
STEP_RESTART = "restart"
# "raise": the next line of user code raises ``StepState.raises()`` (a frame restart
# the program's own ``except BaseException:`` caught on its way, tried again).
STEP_RAISE = "raise"
STEPS_ENTERING_CALLS = frozenset({STEP_INTO, STEP_ENTRY, STEP_PAUSE, STEP_PARK, STEP_RESTART,
                                  STEP_RAISE})

# How a frame was left, as the tracers tell it to the step that started in it.
FRAME_RETURNED = "returned"
# A generator gave a value to its consumer (an async generator's ``yield`` included).
FRAME_YIELDED = "yielded"
# A coroutine waits at an ``await`` (the event loop runs other work meanwhile); it goes
# on from there when it is resumed.
FRAME_SUSPENDED = "suspended"
FRAME_UNWOUND = "unwound"

_AWAITING_FLAGS = CO_COROUTINE | CO_ITERABLE_COROUTINE
# Code an asyncio task can run as its own coroutine.
TASK_FLAGS = _AWAITING_FLAGS
# Code whose frames can leave and come back (a return event may be a yield).
SUSPENDING_FLAGS = CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR


def yield_kind(code: types.CodeType, value) -> str:
    """What a yield of ``code``'s frame that gave ``value`` is: a coroutine waiting at an
    await (FRAME_SUSPENDED), or a value given to a generator's consumer (FRAME_YIELDED).
    An async generator's own ``yield`` hands the interpreter its value wrapped; its
    awaits hand over the awaited object as it is."""
    flags = code.co_flags
    if flags & _AWAITING_FLAGS:
        return FRAME_SUSPENDED
    if flags & CO_ASYNC_GENERATOR and type(value).__name__ != "async_generator_wrapped_value":
        return FRAME_SUSPENDED
    return FRAME_YIELDED


class StepState(Record):
    """One thread's step in progress. ``frame`` is the frame the step started in (over
    and out): the step ends on a line of that frame (over) or of a frame it returns to."""

    kind: str
    frame: types.FrameType | None = None
    # A stepIn to one call of the line (stepInTargets): the callee's name, and the line
    # the step started on (the step ends there if the line finishes without the call).
    target: str | None = None
    line: int = 0
    # The step's frame is a coroutine that waited at an ``await`` during the step: lines
    # of other frames run while it waits, and they do not end the step.
    suspended: bool = False
    # STEP_RAISE: makes the exception to raise.
    raises: object = None
    # The greenlet that steps (gevent): only its lines and returns are the step's, not
    # those of the thread's other greenlets that run while it waits.
    greenlet: object = None


class AfterTask(Record, frozen=True):
    """Where a step goes when the coroutine a task runs returns or unwinds into the event
    loop (TracerHost.task_coroutine_left). ``awaiter``: the frame where a task that
    awaits it waits, in which the step goes on once that task resumes; None: no task
    awaits it, and the thread runs on."""

    awaiter: types.FrameType | None = None


def in_stepping_greenlet(step: StepState) -> bool:
    """Whether the code that runs now is the step's: of the greenlet that steps, when
    greenlets are threads (gevent), else of any."""
    greenlet = step.greenlet
    return greenlet is None or sys.modules["greenlet"].getcurrent() is greenlet


def step_ends_here(step: StepState, frame: types.FrameType) -> bool:
    """Whether a line event in ``frame`` (already known to be user code) ends ``step``."""
    if step.greenlet is not None and not in_stepping_greenlet(step):
        return False  # Another greenlet of the thread runs while the stepping one waits.
    if step.target is not None and step.frame is not None:
        return _targeted_step_ends_here(step, frame)
    if step.kind in STEPS_ENTERING_CALLS or step.frame is None:
        return True
    if frame is step.frame:
        # A step over runs its line to its end: the line it started on, reported again
        # before any other, is not a new line. That is a loop on that one line jumping
        # back (3.12+ inlines comprehensions; sys.settrace reports each round,
        # sys.monitoring does not), or, on 3.13+, an await's line again when a throw (a
        # cancellation) resumes the coroutine.
        return step.kind == STEP_OVER and frame.f_lineno != step.line
    ancestor = frame.f_back
    while ancestor is not None:
        if ancestor is step.frame:
            # Deeper than the frame the step started in: a call being stepped over.
            return False
        ancestor = ancestor.f_back
    # The step's frame is not on the stack: it waits at an await (the step goes on when
    # it resumes), or it returned or unwound.
    return not step.suspended


def _targeted_step_ends_here(step: StepState, frame: types.FrameType) -> bool:
    if frame is step.frame:
        # Back in the starting frame: the line finished without entering the target.
        return frame.f_lineno != step.line
    from .step_targets import enters_target  # What it imports only stepping in needs.

    if enters_target(frame.f_code, step.target):
        return True
    ancestor = frame.f_back
    while ancestor is not None:
        if ancestor is step.frame:
            return False  # Inside another call of the line.
        ancestor = ancestor.f_back
    return True  # The starting frame returned: stop in its caller.
