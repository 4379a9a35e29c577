"""Request handlers for breakpoints of every kind: setBreakpoints,
setFunctionBreakpoints, setExceptionBreakpoints and breakpointLocations."""

from __future__ import annotations

from ..breakpoints.exception_filters import parse_filters
from ..common.code_lines import SourceError
from .handling import RequestError, Then, argument, source_path

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from ..session.debugger import Debugger


def set_breakpoints(debugger: Debugger, arguments: dict):
    source_path(arguments, "setBreakpoints")
    source = arguments["source"]
    inherited = debugger.inherited
    if inherited is not None and inherited.confirmed("setBreakpoints", arguments):
        # What the child inherited for the file, in place already (session/inheritance.py).
        offset = debugger.line_offset
        return {"breakpoints": debugger.store.describe(
            debugger.store.file_breakpoints(source["path"]), offset)}
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
        spec["line"] = argument(item, "line", int) + offset
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


def set_function_breakpoints(debugger: Debugger, arguments: dict):
    if debugger.inherited is not None:
        debugger.inherited.confirmed("setFunctionBreakpoints", arguments)
    requested = arguments.get("breakpoints")
    if not isinstance(requested, list):
        raise RequestError("setFunctionBreakpoints 'breakpoints' must be an array")
    for item in requested:
        if not isinstance(item, dict):
            raise RequestError(f"a function breakpoint must be an object, got {item!r}")
    created = debugger.store.function_breakpoints().set_breakpoints(requested)
    debugger.breakpoints_changed()
    return {"breakpoints": [bp.to_dap(debugger.line_offset) for bp in created]}


def set_exception_breakpoints(debugger: Debugger, arguments: dict):
    if debugger.inherited is not None:
        debugger.inherited.confirmed("setExceptionBreakpoints", arguments)
    filters = parse_filters(arguments)
    debugger.set_exception_filters(filters)
    count = len(arguments.get("filters") or []) + len(arguments.get("filterOptions") or [])
    return {"breakpoints": [{"verified": True} for _ in range(count)]}


def executable_lines(debugger: Debugger, path: str) -> tuple[int, ...]:
    """The lines of the file that hold code (RequestError if it cannot be read)."""
    try:
        return debugger.store.lines_cache.lines(path)
    except SourceError as error:
        raise RequestError(str(error)) from None


def breakpoint_locations(debugger: Debugger, arguments: dict):
    path = source_path(arguments, "breakpointLocations")
    offset = debugger.line_offset
    first = argument(arguments, "line", int) + offset
    last = argument(arguments, "endLine", int, first - offset) + offset
    lines = executable_lines(debugger, path)
    return {"breakpoints": [{"line": line - offset} for line in lines if first <= line <= last]}
