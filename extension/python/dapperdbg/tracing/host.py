"""What the tracer calls when something may stop a thread: the Debugger, to the tracer
(base.py) and its parts (probe_stops.py, data_stops.py), which all name it from here."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from typing import Protocol as _Protocol

    from .steps import AfterTask, StepState
else:
    _Protocol = object


class TracerHost(_Protocol):
    """What the tracer calls when something may stop a thread (the Debugger)."""

    def breakpoints_reached(self, frame: types.FrameType, breakpoints: tuple) -> bool:
        """Evaluate the breakpoints at this line; stop if one says so. True if stopped."""

    def step_ended(self, frame: types.FrameType, step: StepState,
                   mid_line: bool = False) -> None:
        """The thread's step ended at this line: stop it. ``mid_line``: in ``frame``
        where a call it made returns, its line not finished (no line event: no jump)."""

    def function_entered(self, frame: types.FrameType, breakpoints: tuple) -> bool:
        """The first line of a call of a function that has function breakpoints."""

    def exception_raised(self, frame: types.FrameType, exception: BaseException) -> None:
        """An exception was raised in, or propagated into, ``frame`` (while watched)."""

    def exception_unwound(self, frame: types.FrameType, exception: BaseException) -> None:
        """``frame`` exits because of ``exception`` (while watched)."""

    def file_loaded(self, canonical: str) -> None:
        """The first code object of a file with pending line breakpoints is about to
        run on this thread: announce them verified before it does."""

    def module_compiled_elsewhere(self, canonical: str, code: types.CodeType) -> None:
        """The module code of ``canonical``, a file with line breakpoints, is about to
        run, and it is no copy of ours: someone else compiled it (another loader, an
        ``exec`` of the file's text)."""

    def tracing_started(self) -> None:
        """The tracer is installed: the program is about to run under the debugger."""

    def data_changed(self, frame: types.FrameType, hits: list) -> bool:
        """Watched values changed (``(breakpoint, old, new)`` each) by the line ``frame``
        just ran: stop if a breakpoint says so. True if stopped."""

    def data_frames_ended(self, breakpoints: list) -> None:
        """The frames of these data breakpoints' locals returned: tell the client."""

    def task_coroutine_left(self, frame: types.FrameType) -> AfterTask | None:
        """A step's coroutine ``frame`` returns or unwinds into code that is not the
        user's: if it is the coroutine an asyncio task runs, where the step goes on
        (the task that awaits it, or nowhere); None when the usual rule applies (no
        task's, or one that a ``run_until_complete`` under the loop waits for)."""
