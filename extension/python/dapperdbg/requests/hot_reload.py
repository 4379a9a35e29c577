"""The ``dapper/hotReload`` request: reload a loaded file's definitions in place
(``Debugger.hot_reload``: session/hot_reload.py, hotreload/); and ``restartFrame``,
which re-enters the function a thread is stopped in from its first line."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..hotreload import COMPILE_ERROR, ReloadError, RestartRefusal, plan_restart
from ..inspection.stopped_work import WorkRefused, WorkTimedOut, run_on_stopped_thread
from ..instrumentation.restarts import can_restart
from .handling import RequestError, Then, argument, source_path

if TYPE_CHECKING:
    from ..session.debugger import Debugger

# How long the restart's jump may take on the stopped thread.
_RESTART_SECONDS = 2.0


def hot_reload(debugger: Debugger, arguments: dict):
    path = source_path(arguments, "dapper/hotReload")
    while_running = argument(arguments, "whileRunning", bool, False)
    new_source = argument(arguments, "content", str, None)
    if not while_running and not debugger.stops.stopped_threads():
        raise RequestError("The program is running: pause it first, or ask for whileRunning")
    try:
        body = debugger.hot_reload(path, new_source, while_running)
    except ReloadError as error:
        raise RequestError(_error_message(error)) from None

    def announce() -> None:
        debugger.connection.send_event("dapper/hotReloadResult", body)
        if debugger.client_arguments.get("supportsInvalidatedEvent") is True:
            debugger.connection.send_event("invalidated", {"areas": ["stacks"]})

    return Then(body, announce)


def _error_message(error: ReloadError) -> str:
    """The message the client shows; a compile error names its place as "line N, column
    M" (the VS Code side offers to open it)."""
    if error.kind != COMPILE_ERROR or error.line is None:
        return error.message
    where = f"line {error.line}" + (f", column {error.column}" if error.column else "")
    message = error.message.rsplit(f" (line {error.line})", 1)[0]
    return f"{error.path}, {where}: {message} (nothing was reloaded)"


def restart_frame(debugger: Debugger, arguments: dict):
    """Restart a frame of a stopped thread with its function's current code, from its
    first line, with its original arguments (session/frame_restart.py). A frame that
    runs no restartable copy (code loaded before the session, or by another loader) can
    still be restarted when it is the top frame and its function was not reloaded: it
    jumps back to its first line (hotreload/restart.py)."""
    entry = debugger.inspector.frame(argument(arguments, "frameId", int))
    stopped = debugger.stops.stopped_thread(entry.thread_id)
    frame = entry.frame
    name = getattr(frame.f_code, "co_qualname", frame.f_code.co_name)
    if not _on_stack_of(stopped, frame):
        # A frame of an asyncio task that waits (the call stack shows the tasks that await
        # the running one): the restart's exception could never reach it.
        raise RequestError(f"Cannot restart {name}: it is not on its thread's stack (a "
                           "waiting asyncio task's frame); restart a frame of the running "
                           "task")
    if can_restart(frame):
        notes, go = debugger.restart_frame(stopped, frame)
        for note in notes:
            debugger.send_output(f"Restarting {name}: {note}.\n")
        return Then({"reboundFrames": 1, "runsOldCode": False, "notes": notes}, go)
    reason = debugger.restart_refusal(frame)
    if stopped.running or frame is not stopped.frame or stopped.mid_line:
        raise RequestError(f"Cannot restart {name}: {reason or 'its thread is not stopped on it'}")
    return _restart_by_jump(debugger, stopped, frame, name, reason)


def _on_stack_of(stopped, frame) -> bool:
    current = stopped.frame
    while current is not None:
        if current is frame:
            return True
        current = current.f_back
    return False


def _restart_by_jump(debugger: Debugger, stopped, frame, name: str, reason: str | None):
    # Writes to f_locals from a sys.monitoring callback are lost before 3.13.
    writable = debugger.tracer.name != "monitoring" or sys.version_info >= (3, 13)
    plan = plan_restart(frame, locals_writable=writable)
    if isinstance(plan, RestartRefusal):
        raise RequestError(f"Cannot restart {name}: {plan.reason}")
    if plan.runs_old_code:
        # Only the old code could run again: the new code would not, and that is what
        # Restart Frame after a reload is for.
        raise RequestError(f"Cannot restart {name} with its new code: {reason}")

    def jump() -> None:
        plan.apply()
        # Execution goes on at the first line without a line event: its breakpoint (and
        # probe) must not stop there again.
        debugger.tracer.note_probe_handled(stopped.ident, frame, plan.line)

    try:
        run_on_stopped_thread(stopped.resume, jump, _RESTART_SECONDS)
    except (WorkRefused, WorkTimedOut) as error:
        raise RequestError(f"Cannot restart {name}: {error}") from None
    except ValueError as error:
        raise RequestError(f"Cannot restart {name}: {error}") from None
    body = {"reboundFrames": 1, "runsOldCode": False, "notes": plan.notes}
    return Then(body, lambda: debugger.stops.announce_stop(stopped, "restart"))
