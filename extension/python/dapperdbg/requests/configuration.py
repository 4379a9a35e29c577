"""Request handlers that configure the session: dapper/configure (the client's
initialize arguments and the launch configuration) and configurationDone."""

from __future__ import annotations

from ..common.library_code import set_rules
from ..inspection.output_capture import OutputCapture
from .handling import NO_RESPONSE, RequestError, Then

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from ..session.debugger import Debugger


def configure(debugger: Debugger, arguments: dict):
    inherited = debugger.inherited
    if inherited is not None and inherited.confirmed("dapper/configure", arguments):
        # What the child runs on already (session/inheritance.py).
        return {}
    client = arguments.get("client")
    launch = arguments.get("launch")
    client = {} if client is None else client
    launch = {} if launch is None else launch
    if not isinstance(client, dict) or not isinstance(launch, dict):
        raise RequestError("dapper/configure needs 'client' and 'launch' objects")
    # Before the debugger's own settings: its justMyCode resets the tracer's verdicts.
    set_rules(launch.get("rules"))
    debugger.configure(client, launch)
    _configure_templates(debugger, launch)
    _configure_inspection(debugger, launch)
    return {}


def _configure_templates(debugger: Debugger, launch: dict) -> None:
    """Template breakpoints, only when asked for: the module is not loaded otherwise."""
    store = debugger.store
    if store.templates is None and not (launch.get("django") is True
                                        or launch.get("jinja") is True):
        return
    if store.templates is None:
        from ..breakpoints.templates import Templates
        from ..common.import_hooks import when_imported
        store.templates = Templates(store, when_imported)
    store.templates.configure(launch)


def _configure_inspection(debugger: Debugger, launch: dict) -> None:
    """Apply the launch configuration's inspection settings."""
    settings = debugger.inspection
    settings.show_return_value = launch.get("showReturnValue") is True
    settings.just_my_code = launch.get("justMyCode", True) is not False
    settings.tasks_as_threads = launch.get("asyncioTasksAsThreads") is True
    settings.gevent = launch.get("gevent") is True
    code = launch.get("code")
    if isinstance(code, str):
        settings.sources.remember_text("<string>", code)
    if launch.get("keepExecSources") is True and launch.get("noDebug") is not True:
        # Opt-in: the audit hook it takes slows every audited call of the program.
        settings.sources.capture_exec_sources()
    if settings.output is None:
        connection = debugger.connection
        settings.output = OutputCapture(
            lambda category, text: connection.send_event(
                "output", {"category": category, "output": text})
        )
    settings.output.configure(launch)


# How long configurationDone waits for a running program's tracing to start.
TRACING_WAIT_SECONDS = 10.0


def inherit(debugger: Debugger, arguments: dict):
    """dapper/inherit: the configuration and breakpoints a child runs on until its
    client's session configures it (session/inheritance.py); the program runs once they
    are applied. Not answered: the engine asked for nothing back. A request of them that
    fails is left to the client's own, which will say why."""
    requests = arguments.get("requests")
    if not isinstance(requests, list) or not all(isinstance(item, dict) for item in requests):
        raise RequestError("dapper/inherit needs 'requests', a list of requests")
    apply_requests(debugger, [request for request in requests
                              if request.get("command") in _INHERITABLE])
    debugger.run_on_inheritance(requests)
    return NO_RESPONSE


def apply_requests(debugger: Debugger, requests: list[dict]) -> None:
    """Apply requests whose answers were given already, or are not wanted: what a child
    inherited, and what a dormant child answered before its debugger was made
    (session/dormant.py). One that fails is skipped."""
    from ..common.errors import report_internal_error
    from .dispatch import handler_for

    for request in requests:
        command = request.get("command")
        handler = handler_for(command)
        arguments = request.get("arguments", {})
        if handler is None or not isinstance(arguments, dict):
            continue
        try:
            body = handler(debugger, arguments)
            if isinstance(body, Then):
                body.action()
        except RequestError:
            pass
        except Exception:
            report_internal_error(f"the {command} applied again")


# What a child is given to run on (by the engine, which sends nothing else this way).
_INHERITABLE = frozenset(("dapper/configure", "setBreakpoints", "setFunctionBreakpoints",
                          "setExceptionBreakpoints"))


def _drop_uninherited(debugger: Debugger) -> None:
    """The client's session is configured: what the child inherited that the client did
    not send again is not the client's, and goes."""
    from .breakpoints import (
        set_breakpoints,
        set_exception_breakpoints,
        set_function_breakpoints,
    )

    inherited = debugger.inherited
    if inherited is None:
        return
    for path in list(inherited.sources):
        set_breakpoints(debugger, {"source": {"path": path}, "breakpoints": []}).action()
    if inherited.functions is not None:
        set_function_breakpoints(debugger, {"breakpoints": []})
    if inherited.exceptions is not None:
        set_exception_breakpoints(debugger, {"filters": []})


def configuration_done(debugger: Debugger, arguments: dict):
    if debugger.inherited is not None:
        # The program runs already, on what it inherited: the client hears the answer,
        # then the events held for it.
        _drop_uninherited(debugger)
        return Then({}, debugger.client_configured)
    ready = debugger.tracing_ready
    if ready is None:
        # The main thread starts the program once this response is on its way.
        return Then({}, debugger.configuration_done.set)
    # A program that runs already (an attach by process id): its session thread starts
    # tracing now, and the client hears the answer once the breakpoints apply.
    debugger.configuration_done.set()
    ready.wait(TRACING_WAIT_SECONDS)
    return {}


def detach(debugger: Debugger, arguments: dict):
    """dapper/detach: the engine leaves the program running and closes the connection
    next; this only notes that the close is meant. Not answered."""
    debugger.detach_requested = True
    return NO_RESPONSE
