"""Request handlers for breakpoints of every kind and for control of execution beyond
the basic steps: setExceptionBreakpoints, exceptionInfo, setFunctionBreakpoints,
breakpointLocations, gotoTargets, goto, stepInTargets and stepIn (with a target).

They follow requests.py's conventions (a handler returns the body, or a ``Then``, and
raises ValueError with a message for the client); requests.py registers HANDLERS.
"""

from __future__ import annotations

from .code_lines import SourceError, code_own_lines, resolve_line
from .debugger import Debugger
from .exception_filters import parse_filters
from .step_targets import call_targets
from .stopped_work import WorkRefused, WorkTimedOut, run_on_stopped_thread
from .tracing.base import STEP_INTO

# How long a jump may take on the stopped thread (it is one attribute assignment).
_GOTO_SECONDS = 2.0


def _int(arguments: dict, name: str, default: int | None = None) -> int:
    value = arguments.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"'{name}' must be an integer, got {value!r}")
    return value


def _source_path(arguments: dict, command: str) -> str:
    source = arguments.get("source")
    path = source.get("path") if isinstance(source, dict) else None
    if not isinstance(path, str) or not path:
        raise ValueError(f"{command} needs source.path (an absolute file path)")
    return path


def set_exception_breakpoints(debugger: Debugger, arguments: dict):
    filters = parse_filters(arguments)
    debugger.set_exception_filters(filters)
    count = len(arguments.get("filters") or []) + len(arguments.get("filterOptions") or [])
    return {"breakpoints": [{"verified": True} for _ in range(count)]}


def exception_info(debugger: Debugger, arguments: dict):
    thread_id = _int(arguments, "threadId")
    stopped = debugger.stopped_thread(thread_id)
    if stopped.exception is None:
        raise ValueError(f"Thread {thread_id} did not stop because of an exception")
    return stopped.exception.info()


def set_function_breakpoints(debugger: Debugger, arguments: dict):
    requested = arguments.get("breakpoints")
    if not isinstance(requested, list):
        raise ValueError("setFunctionBreakpoints 'breakpoints' must be an array")
    for item in requested:
        if not isinstance(item, dict):
            raise ValueError(f"a function breakpoint must be an object, got {item!r}")
    created = debugger.store.functions.set_breakpoints(requested)
    debugger.breakpoints_changed()
    return {"breakpoints": [bp.to_dap(debugger.line_offset) for bp in created]}


def _executable_lines(debugger: Debugger, path: str) -> tuple[int, ...]:
    try:
        return debugger.store.lines_cache.lines(path)
    except SourceError as error:
        raise ValueError(str(error)) from None


def breakpoint_locations(debugger: Debugger, arguments: dict):
    path = _source_path(arguments, "breakpointLocations")
    offset = debugger.line_offset
    first = _int(arguments, "line") + offset
    last = _int(arguments, "endLine", first - offset) + offset
    lines = _executable_lines(debugger, path)
    return {"breakpoints": [{"line": line - offset} for line in lines if first <= line <= last]}


def goto_targets(debugger: Debugger, arguments: dict):
    """The one target for a line: the line itself, or the next executable line. Its id is
    that (1-based) line number, so ``goto`` needs nothing else."""
    path = _source_path(arguments, "gotoTargets")
    offset = debugger.line_offset
    requested = _int(arguments, "line") + offset
    resolution = resolve_line(_executable_lines(debugger, path), requested)
    if not resolution.verified:
        return {"targets": []}
    line = resolution.line
    return {"targets": [{"id": line, "label": f"Line {line - offset}", "line": line - offset}]}


def goto(debugger: Debugger, arguments: dict):
    from .requests import Then  # requests.py imports this module

    thread_id = _int(arguments, "threadId")
    line = _int(arguments, "targetId")
    offset = debugger.line_offset
    stopped = debugger.stopped_thread(thread_id)
    if stopped.running:
        raise ValueError(f"Thread {thread_id} is not stopped at a line of Python code")
    frame = stopped.frame
    if line not in code_own_lines(frame.f_code):
        raise ValueError(
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
        raise ValueError(f"Cannot jump: {error}") from None
    except ValueError as error:
        raise ValueError(f"Cannot jump to line {line - offset}: {error}") from None
    return Then({}, lambda: debugger.announce_stop(stopped, "goto"))


HANDLERS = {
    "setExceptionBreakpoints": set_exception_breakpoints,
    "exceptionInfo": exception_info,
    "setFunctionBreakpoints": set_function_breakpoints,
    "breakpointLocations": breakpoint_locations,
    "gotoTargets": goto_targets,
    "goto": goto,
}


def step_in_targets(debugger: Debugger, arguments: dict):
    frame_id = _int(arguments, "frameId")
    entry = debugger.inspector.frame(frame_id)
    frame = entry.frame
    offset, column_offset = debugger.line_offset, debugger.inspector.column_offset
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


def step_in(debugger: Debugger, arguments: dict):
    """stepIn, also to one call of the line (``targetId`` from stepInTargets)."""
    from .requests import Then

    thread_id = _int(arguments, "threadId")
    stopped = debugger.stopped_thread(thread_id)
    target = None
    if arguments.get("targetId") is not None:
        found = debugger.step_in_targets.get(_int(arguments, "targetId"))
        if found is None or found[0] != thread_id or found[1] is not stopped.frame:
            raise ValueError(
                f"Unknown or expired step-in target {arguments['targetId']!r} for thread "
                f"{thread_id} (targets are given for its top frame, until it resumes)")
        target = found[2]
    return Then(None, lambda: debugger.resume_with_step(stopped, STEP_INTO, target))


HANDLERS.update({
    "stepInTargets": step_in_targets,
    # Replaces the plain stepIn of requests.py (registered after it) to add targetId.
    "stepIn": step_in,
})
