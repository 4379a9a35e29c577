"""Request handlers that control execution: continue, next, stepIn (also into one call
of the line, with a target from stepInTargets), stepOut, pause, stepInTargets,
gotoTargets and goto."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..common.code_lines import code_own_lines, resolve_line
from ..inspection.stopped_work import WorkRefused, WorkTimedOut, run_on_stopped_thread
from ..tracing.step_targets import call_targets
from ..tracing.steps import STEP_INTO, STEP_OUT, STEP_OVER
from .breakpoints import executable_lines
from .handling import RequestError, Then, argument, source_path

if TYPE_CHECKING:
    from ..session.debugger import Debugger

# How long a jump may take on the stopped thread (it is one attribute assignment).
_GOTO_SECONDS = 2.0


def continue_(debugger: Debugger, arguments: dict):
    # Every thread resumes whichever one is named (allThreadsContinued), but a request
    # that names none properly is refused rather than taken for another.
    argument(arguments, "threadId", int)
    return Then({"allThreadsContinued": True}, debugger.stops.resume_all)


def _step(kind: str):
    def handler(debugger: Debugger, arguments: dict):
        stopped = debugger.stops.stopped_thread(argument(arguments, "threadId", int))
        return Then(None, lambda: debugger.stops.resume_with_step(stopped, kind))

    return handler


next_ = _step(STEP_OVER)
step_out = _step(STEP_OUT)


def step_in(debugger: Debugger, arguments: dict):
    """stepIn, also to one call of the line (``targetId`` from stepInTargets)."""
    thread_id = argument(arguments, "threadId", int)
    stopped = debugger.stops.stopped_thread(thread_id)
    target = None
    target_id = argument(arguments, "targetId", int, None)
    if target_id is not None:
        found = debugger.step_in_targets.get(target_id)
        if found is None or found[0] != thread_id or found[1] is not stopped.frame:
            raise RequestError(
                f"Unknown or expired step-in target {target_id!r} for thread "
                f"{thread_id} (targets are given for its top frame, until it resumes)")
        target = found[2]
    return Then(None, lambda: debugger.stops.resume_with_step(stopped, STEP_INTO, target))


def step_in_targets(debugger: Debugger, arguments: dict):
    entry = debugger.inspector.frame(argument(arguments, "frameId", int))
    frame = entry.frame
    offset, column_offset = debugger.line_offset, debugger.inspection.column_offset
    targets = []
    for call in call_targets(frame.f_code.co_filename, frame.f_lineno):
        target_id = len(debugger.step_in_targets) + 1
        debugger.step_in_targets[target_id] = (entry.thread_id, frame, call.name)
        targets.append({
            "id": target_id,
            "label": call.label,
            "line": call.line - offset,
            "column": call.column + 1 - column_offset,
            "endColumn": call.end_column + 1 - column_offset,
        })
    return {"targets": targets}


def pause(debugger: Debugger, arguments: dict):
    thread_ident = debugger.stops.thread_to_pause(argument(arguments, "threadId", int))
    if thread_ident is None:
        return None
    return Then(None, lambda: debugger.stops.pause(thread_ident))


def goto_targets(debugger: Debugger, arguments: dict):
    """The one target for a line: the line itself, or the next executable line. Its id is
    that (1-based) line number, so ``goto`` needs nothing else."""
    path = source_path(arguments, "gotoTargets")
    offset = debugger.line_offset
    requested = argument(arguments, "line", int) + offset
    resolution = resolve_line(executable_lines(debugger, path), requested)
    if not resolution.verified:
        return {"targets": []}
    line = resolution.line
    return {"targets": [{"id": line, "label": f"Line {line - offset}", "line": line - offset}]}


def goto(debugger: Debugger, arguments: dict):
    thread_id = argument(arguments, "threadId", int)
    line = argument(arguments, "targetId", int)
    offset = debugger.line_offset
    stopped = debugger.stops.stopped_thread(thread_id)
    if stopped.running:
        raise RequestError(f"Thread {thread_id} is not stopped at a line of Python code")
    frame = stopped.frame
    if stopped.mid_line:
        raise RequestError(
            f"Cannot jump: thread {thread_id} is stopped in the middle of line "
            f"{frame.f_lineno - offset}, where a call returned; step to the next line "
            f"first (Python moves a frame only at the start of a line)")
    if line not in code_own_lines(frame.f_code):
        raise RequestError(
            f"Cannot jump to line {line - offset}: it is not a line of "
            f"{frame.f_code.co_name}, the function thread {thread_id} is stopped in"
        )

    def jump() -> None:
        # CPython allows the assignment only on the frame's own thread, inside a line
        # event (or a similar one); it raises ValueError for jumps into or out of
        # blocks such as loops and try statements.
        frame.f_lineno = line
        # Execution goes on at the line's first instruction without a line event, so
        # its breakpoints do not stop there; nor may its probe, if the line has one.
        debugger.tracer.note_probe_handled(stopped.ident, frame, line)

    try:
        run_on_stopped_thread(stopped.resume, jump, _GOTO_SECONDS)
    except (WorkRefused, WorkTimedOut) as error:
        raise RequestError(f"Cannot jump: {error}") from None
    except ValueError as error:
        raise RequestError(f"Cannot jump to line {line - offset}: {error}") from None
    return Then({}, lambda: debugger.stops.announce_stop(stopped, "goto"))
