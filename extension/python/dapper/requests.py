"""Request handlers: one function per DAP (or dapper/*) command, run on the IPC thread.

A handler returns the response body (or None) and raises to fail the request; the
dispatcher turns the exception text into an error response, so a failing handler never
takes the debuggee down and an unknown command never goes unanswered.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from .control_requests import HANDLERS as CONTROL_HANDLERS
from .debugger import Debugger
from .inspection_requests import INSPECTION_HANDLERS, configure_inspection
from .tracing.base import STEP_INTO, STEP_OUT, STEP_OVER


class RequestError(Exception):
    """A request that cannot be served; the message goes back to the client."""


@dataclass
class Then:
    """A handler's result whose ``action`` must run after the response is sent: resuming
    a thread first could let the program exit (and the connection close) before the
    response is out, and DAP wants the response before the events it causes."""

    body: dict | None
    action: Callable[[], None]


def _int_argument(arguments: dict, name: str, default: int | None = None) -> int:
    value = arguments.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"'{name}' must be an integer, got {value!r}")
    return value


def configure(debugger: Debugger, arguments: dict):
    client = arguments.get("client")
    launch = arguments.get("launch")
    client = {} if client is None else client
    launch = {} if launch is None else launch
    if not isinstance(client, dict) or not isinstance(launch, dict):
        raise RequestError("dapper/configure needs 'client' and 'launch' objects")
    debugger.configure(client, launch)
    configure_inspection(debugger, launch)
    return {}


def set_breakpoints(debugger: Debugger, arguments: dict):
    source = arguments.get("source")
    if not isinstance(source, dict) or not isinstance(source.get("path"), str):
        raise RequestError("setBreakpoints needs source.path")
    requested = arguments.get("breakpoints")
    if requested is None:
        # The deprecated form: a bare list of lines.
        requested = [{"line": line} for line in arguments.get("lines") or []]
    if not isinstance(requested, list):
        raise RequestError("setBreakpoints 'breakpoints' must be an array")
    offset = debugger.line_offset
    specs = []
    for item in requested:
        if not isinstance(item, dict):
            raise RequestError(f"a source breakpoint must be an object, got {item!r}")
        spec = dict(item)
        spec["line"] = _int_argument(item, "line") + offset
        specs.append(spec)
    store = debugger.store
    created = store.set_file_breakpoints(source, specs)
    try:
        debugger.breakpoints_changed()
        body = {"breakpoints": store.describe(created, offset)}
    except BaseException:
        # Threads loading the file must not wait for a response that will not come.
        store.answered(created)
        raise
    # Once the response is out, breakpoints pending on their module's import may be
    # announced verified (and those verified while it was on its way are, now).
    return Then(body, lambda: debugger.announce_verified(store.answered(created)))


def configuration_done(debugger: Debugger, arguments: dict):
    # The main thread starts the program once this response is on its way.
    return Then({}, debugger.configuration_done.set)


def threads(debugger: Debugger, arguments: dict):
    found = debugger.threads.user_threads(debugger.tracer._debugger_threads)
    return {"threads": [{"id": thread_id, "name": thread.name} for thread_id, thread in found]}


def stack_trace(debugger: Debugger, arguments: dict):
    thread_id = _int_argument(arguments, "threadId")
    start = _int_argument(arguments, "startFrame", 0)
    levels = _int_argument(arguments, "levels", 0)
    stopped = _stopped(debugger, thread_id)
    return debugger.inspector.stack_trace(thread_id, stopped.frame, max(start, 0), levels)


def scopes(debugger: Debugger, arguments: dict):
    return debugger.inspector.scopes(_int_argument(arguments, "frameId"))


def continue_(debugger: Debugger, arguments: dict):
    return Then({"allThreadsContinued": True}, debugger.resume_all)


def _step(kind: str):
    def handler(debugger: Debugger, arguments: dict):
        thread_id = _int_argument(arguments, "threadId")
        stopped = _stopped(debugger, thread_id)
        return Then(None, lambda: debugger.resume_with_step(stopped, kind))

    return handler


def pause(debugger: Debugger, arguments: dict):
    thread_ident = debugger.thread_to_pause(_int_argument(arguments, "threadId"))
    if thread_ident is None:
        return None
    return Then(None, lambda: debugger.pause(thread_ident))


def _stopped(debugger: Debugger, thread_id: int):
    try:
        return debugger.stopped_thread(thread_id)
    except ValueError as error:
        raise RequestError(str(error)) from None


HANDLERS: dict[str, Callable[[Debugger, dict], dict | Then | None]] = {
    "dapper/configure": configure,
    "setBreakpoints": set_breakpoints,
    "configurationDone": configuration_done,
    "threads": threads,
    "stackTrace": stack_trace,
    "scopes": scopes,
    "continue": continue_,
    "next": _step(STEP_OVER),
    "stepIn": _step(STEP_INTO),
    "stepOut": _step(STEP_OUT),
    "pause": pause,
    # variables, evaluate, setVariable, completions, source, modules…: inspection_requests.
    **INSPECTION_HANDLERS,
    # Exception, function breakpoints, breakpointLocations, goto: control_requests.
    **CONTROL_HANDLERS,
}


def dispatch(debugger: Debugger, message: dict) -> None:
    """Answer one message from the engine. Never raises."""
    if message.get("type") != "request":
        # Responses to reverse requests and events are not expected yet; ignore them
        # rather than fail the connection.
        return
    command = message.get("command")
    arguments = message.get("arguments") or {}
    handler = HANDLERS.get(command) if isinstance(command, str) else None
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
        if not isinstance(error, (RequestError, ValueError)):
            # An unexpected failure is a bug in the debuggee: leave a trace for the log.
            traceback.print_exc(file=sys.stderr)
        debugger.connection.send_response(message, error=f"{command} failed: {error}")
        return
    if isinstance(body, Then):
        try:
            debugger.connection.send_response(message, body=body.body)
        finally:
            body.action()
    else:
        debugger.connection.send_response(message, body=body)
