"""The table of request handlers, and the dispatcher that runs them on the IPC thread.

A handler is a function ``handler(debugger, arguments)``: ``debugger`` is the
session's ``Debugger`` (session/debugger.py: its connection, breakpoint store, tracer,
inspector, instrumented copies and stopped threads), ``arguments`` the request's
arguments (always a dict). It returns the response body (a dict, or None for none), or
a ``Then`` whose action runs once the response is sent, and raises ``RequestError``
(requests/handling.py) to fail the request with a message for the client. Any other
exception is a bug: the request fails too and the traceback goes to stderr. A failing
handler never takes the debuggee down, and an unknown command is answered.

To add a request: write its handler in the module of its kind (or a new module beside
them) and add one line to ``HANDLERS``, as "module.function". Each command appears
there once (ruff's F601 refuses a repeated key, and a test checks the table).
"""

from __future__ import annotations

import sys

from ..common.errors import describe_exception
from ..common.stop_imports import at_first_stop
from .handling import NO_RESPONSE, RequestError, Then

TYPE_CHECKING = False  # typing's own costs every debugged process to import.
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Union

    from ..session.debugger import Debugger

    Handler = Callable[[Debugger, dict], Union[dict, Then, None]]

# Command -> "module.function" in this package. A module is imported when one of its
# requests first comes (or at the first stop, common/stop_imports.py): a process that
# never stops never loads what only a stopped session needs.
HANDLERS: dict[str, str] = {
    # The session.
    "dapper/configure": "configuration.configure",
    "configurationDone": "configuration.configuration_done",
    "dapper/inherit": "configuration.inherit",
    # Breakpoints.
    "setBreakpoints": "breakpoints.set_breakpoints",
    "setFunctionBreakpoints": "breakpoints.set_function_breakpoints",
    "setExceptionBreakpoints": "breakpoints.set_exception_breakpoints",
    "breakpointLocations": "breakpoints.breakpoint_locations",
    "dataBreakpointInfo": "data_breakpoints.data_breakpoint_info",
    "setDataBreakpoints": "data_breakpoints.set_data_breakpoints",
    # Execution.
    "continue": "execution.continue_",
    "next": "execution.next_",
    "stepIn": "execution.step_in",
    "stepOut": "execution.step_out",
    "stepInTargets": "execution.step_in_targets",
    "pause": "execution.pause",
    "gotoTargets": "execution.goto_targets",
    "goto": "execution.goto",
    "restartFrame": "hot_reload.restart_frame",
    # Inspection.
    "threads": "threads.threads",
    "stackTrace": "inspection.stack_trace",
    "scopes": "inspection.scopes",
    "exceptionInfo": "inspection.exception_info",
    "variables": "inspection.variables",
    "evaluate": "inspection.evaluate",
    "setExpression": "inspection.set_expression",
    "setVariable": "inspection.set_variable",
    "completions": "inspection.completions",
    "source": "inspection.source",
    "modules": "inspection.modules",
    "loadedSources": "inspection.loaded_sources",
    "dapper/tasks": "tasks.tasks",
    # Hot reload.
    "dapper/hotReload": "hot_reload.hot_reload",
    # The engine's own.
    "dapper/detach": "configuration.detach",
    "dapper/terminate": "termination.terminate",
}

_resolved: dict[str, Handler] = {}


def handler_for(command: str) -> Handler | None:
    """The handler of ``command`` (its module imported now if it was not); None when
    there is none."""
    handler = _resolved.get(command)
    if handler is None:
        name = HANDLERS.get(command)
        if name is None:
            return None
        module, function = name.rsplit(".", 1)
        qualified = f"{__package__}.{module}"
        __import__(qualified)  # Not importlib: importing it costs every start.
        handler = getattr(sys.modules[qualified], function)
        _resolved[command] = handler
    return handler


@at_first_stop
def import_all_handlers() -> None:
    """Every handler, imported by the thread that stops first (common/stop_imports.py)."""
    for command in HANDLERS:
        handler_for(command)


def dispatch(debugger: Debugger, message: dict) -> None:
    """Answer one message from the engine. Never raises."""
    if message.get("type") != "request":
        # Responses to reverse requests and events are not expected yet; ignore them
        # rather than fail the connection.
        return
    command = message.get("command")
    arguments = message.get("arguments") or {}
    handler = handler_for(command) if isinstance(command, str) else None
    if handler is None:
        debugger.connection.send_response(
            message, error=f"The request {command!r} is not supported by this debuggee yet."
        )
        return
    if not isinstance(arguments, dict):
        debugger.connection.send_response(message, error=f"{command}: arguments must be an object")
        return
    try:
        body = handler(debugger, arguments)
    except Exception as error:
        if isinstance(error, RequestError):
            reason = str(error) or type(error).__name__
        else:
            # An unexpected failure is a bug in the debuggee (or the machine ran out of
            # memory): leave a trace for the log, and name it in the answer.
            import traceback

            traceback.print_exc(file=sys.stderr)
            reason = describe_exception(error)
        debugger.connection.send_response(message, error=f"{command} failed: {reason}")
        return
    if body is NO_RESPONSE:
        return
    if isinstance(body, Then):
        try:
            debugger.connection.send_response(message, body=body.body)
        finally:
            body.action()
    else:
        debugger.connection.send_response(message, body=body)
