"""Request handlers for inspecting a program: threads, stackTrace, scopes,
exceptionInfo, variables, evaluate, setVariable, setExpression, completions, source,
modules and loadedSources.

Handlers that run user code hand it to the stopped thread that owns the frame
(stopped_work), with a deadline, so the IPC thread is never stuck in a ``__repr__`` or
an expression, and thread-locals read as the program sees them.
"""

from __future__ import annotations

import collections.abc
import sys
import types
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..inspection.async_tasks import asyncio_loaded
from ..inspection.completions import complete, split_reference
from ..inspection.evaluation import (
    NO_RESULT,
    EvaluationError,
    FrameNamespace,
    assign_expression,
    evaluate_name_for,
    hover_refusal,
    parse_format,
    run_code,
)
from ..inspection.exception_frames import chained_stack_frames
from ..inspection.inspector import RETURN_VALUE_PREFIX, Container
from ..inspection.rendering import (
    MAX_VALUE_LENGTH,
    TRUNCATION_MARKER,
    Group,
    member_expression,
    safe_repr,
)
from ..inspection.sources import SourceError, loaded_sources_body, modules_body, read_source_file
from ..inspection.stopped_work import (
    InspectionWorker,
    ResumeSignal,
    WorkRefused,
    WorkTimedOut,
    run_on_stopped_thread,
)
from .handling import RequestError, argument
from .tasks import stack_trace as async_stack_trace

if TYPE_CHECKING:
    from ..session.debugger import Debugger

# Deadlines for the work handed to a stopped thread. The debug console gets longer:
# the user may call a slow function on purpose.
RENDER_SECONDS = 5.0
REPL_SECONDS = 10.0
# What the debug console shows of a value: the user typed it to see it, so much more than
# a variable's line (debugpy shows 65,536 characters of a string).
REPL_VALUE_LENGTH = 100_000
# Ends a value cut in the debug console, saying how to see all of it.
REPL_TRUNCATION_MARKER = ("… (truncated at 100,000 characters: print() it, or Copy Value in "
                          "the Variables or Watch view, for all of it)")


def _on_stopped_thread(debugger: Debugger, thread_id: int, work: Callable[[], dict],
                       seconds: float):
    stopped = debugger.stops.stopped_thread(thread_id)
    signal = stopped.resume
    try:
        if getattr(stopped, "running", False) or not isinstance(signal, ResumeSignal):
            # The thread is blocked outside Python code (shown where it is while the
            # others are stopped) and cannot take work: a debugger thread does it.
            return _worker(debugger).run(work, seconds)
        return run_on_stopped_thread(signal, work, seconds)
    except (WorkRefused, WorkTimedOut) as error:
        raise RequestError(str(error)) from None


def _worker(debugger: Debugger) -> InspectionWorker:
    inspector = debugger.inspector
    if inspector.worker is None:
        inspector.worker = InspectionWorker()
    return inspector.worker


def stack_trace(debugger: Debugger, arguments: dict):
    thread_id = argument(arguments, "threadId", int)
    start = argument(arguments, "startFrame", int, 0)
    levels = argument(arguments, "levels", int, 0)
    if "greenlet" in sys.modules:
        from .greenlets import stack_trace as greenlet_stack_trace

        # A greenlet that waits (gevent): its stack from where it switched away.
        body = greenlet_stack_trace(debugger, thread_id, max(start, 0), levels)
        if body is not None:
            return body
    if asyncio_loaded():
        # A task, or a thread whose event loop runs one: its awaiters follow its frames.
        body = async_stack_trace(
            debugger, thread_id, max(start, 0), levels,
            lambda owner, stopped: chained_stack_frames(debugger.inspector, owner,
                                                        stopped.exception, stopped.frame))
        if body is not None:
            return body
    stopped = debugger.stops.stopped_thread(thread_id)
    exception = stopped.exception
    if exception is None:
        return debugger.inspector.stack_trace(thread_id, stopped.frame, max(start, 0), levels)
    body = debugger.inspector.stack_trace(thread_id, stopped.frame, 0, 0, exception.lines())
    # The exceptions it was raised from follow the thread's own frames.
    frames = body["stackFrames"] + chained_stack_frames(debugger.inspector, thread_id,
                                                         exception, stopped.frame)
    start = max(start, 0)
    page = frames[start:start + levels] if levels > 0 else frames[start:]
    return {"stackFrames": page, "totalFrames": len(frames)}


def scopes(debugger: Debugger, arguments: dict):
    return debugger.inspector.scopes(argument(arguments, "frameId", int))


def exception_info(debugger: Debugger, arguments: dict):
    thread_id = argument(arguments, "threadId", int)
    stopped = debugger.stops.stopped_thread(thread_id)
    if stopped.exception is None:
        raise RequestError(f"Thread {thread_id} did not stop because of an exception")
    return stopped.exception.info()


def variables(debugger: Debugger, arguments: dict):
    inspector = debugger.inspector
    reference = argument(arguments, "variablesReference", int)
    filter_kind = arguments.get("filter")
    if filter_kind not in (None, "indexed", "named"):
        raise RequestError(f"unknown variables filter {filter_kind!r}")
    start = max(argument(arguments, "start", int, 0), 0)
    count = max(argument(arguments, "count", int, 0), 0)
    fmt = parse_format(arguments, MAX_VALUE_LENGTH)
    container = inspector.container(reference)
    return _on_stopped_thread(
        debugger, container.thread_id,
        lambda: inspector.variables(reference, filter_kind, start, count, fmt, encoded=True),
        RENDER_SECONDS,
    )


def evaluate(debugger: Debugger, arguments: dict):
    inspector = debugger.inspector
    expression = argument(arguments, "expression", str)
    context = arguments.get("context") or "repl"
    frame_id = arguments.get("frameId")
    if frame_id is None:
        raise RequestError(
            "Evaluation needs a stopped frame: pause the program or stop at a breakpoint"
        )
    entry = inspector.frame(frame_id)
    if not expression.strip():
        raise RequestError("there is nothing to evaluate")
    if context == "hover":
        refusal = hover_refusal(expression)
        if refusal is not None:
            raise RequestError(f"not evaluated on hover: {refusal}")
    is_repl = context == "repl"
    limit = None if context == "clipboard" else REPL_VALUE_LENGTH if is_repl else MAX_VALUE_LENGTH
    # The console and the clipboard show a value as its own repr (a DataFrame as its
    # table), the other contexts as the Variables view does.
    fmt = parse_format(arguments, limit, own_repr=context in ("repl", "clipboard"))

    def work():
        if is_repl and debugger.inspection.output is not None:
            with debugger.inspection.output.capturing():
                value = run_code(entry.frame, expression, allow_statements=True,
                                 echo_none=False)
        else:
            value = run_code(entry.frame, expression, allow_statements=is_repl,
                             echo_none=not is_repl)
        if value is NO_RESULT:
            return {"result": "", "variablesReference": 0}
        body = inspector.describe("", value, evaluate_name_for(expression), entry.thread_id,
                                  entry.frame, fmt, value_key="result")
        del body["name"]
        body.pop("evaluateName", None)
        if is_repl and body["result"].endswith(TRUNCATION_MARKER):
            body["result"] = body["result"][:-len(TRUNCATION_MARKER)] + REPL_TRUNCATION_MARKER
        return body

    return _on_stopped_thread(debugger, entry.thread_id, work,
                              REPL_SECONDS if is_repl else RENDER_SECONDS)


def set_expression(debugger: Debugger, arguments: dict):
    inspector = debugger.inspector
    expression = argument(arguments, "expression", str)
    value_text = argument(arguments, "value", str)
    frame_id = arguments.get("frameId")
    if frame_id is None:
        raise RequestError("setExpression needs a stopped frame")
    entry = inspector.frame(frame_id)
    fmt = parse_format(arguments, MAX_VALUE_LENGTH)

    def work():
        value = assign_expression(entry.frame, expression, value_text)
        body = inspector.describe("", value, evaluate_name_for(expression), entry.thread_id,
                                  entry.frame, fmt)
        del body["name"]
        body.pop("evaluateName", None)
        return body

    return _on_stopped_thread(debugger, entry.thread_id, work, RENDER_SECONDS)


def set_variable(debugger: Debugger, arguments: dict):
    inspector = debugger.inspector
    reference = argument(arguments, "variablesReference", int)
    name = argument(arguments, "name", str)
    value_text = argument(arguments, "value", str)
    fmt = parse_format(arguments, MAX_VALUE_LENGTH)
    container = inspector.container(reference)
    if name.startswith(RETURN_VALUE_PREFIX):
        raise RequestError("a return value cannot be changed")

    def work():
        value = run_code(container.frame, value_text, allow_statements=False)
        evaluate_name = assign_child(container, name, value)
        body = inspector.describe(name, value, evaluate_name, container.thread_id,
                                  container.frame, fmt)
        del body["name"]
        body.pop("evaluateName", None)
        return body

    return _on_stopped_thread(debugger, container.thread_id, work, RENDER_SECONDS)


def _assign_in_scope(frame: types.FrameType, scope: str, name: str, value) -> None:
    if scope == "globals":
        frame.f_globals[name] = value
        return
    namespace = FrameNamespace(frame)
    namespace.namespace[name] = value
    namespace.write_back()


def assign_child(container: Container, name: str, value) -> str | None:
    """Set the child ``name`` (as the Variables view shows it) of ``container``; returns
    the child's evaluate name."""
    if container.kind in ("locals", "globals"):
        _assign_in_scope(container.frame, container.kind, name, value)
        return name
    if container.kind == "group":
        group = container.target
        assert isinstance(group, Group)
        if group.owner is None:
            _assign_in_scope(container.frame, container.scope or "locals", name, value)
            return name
        _set_attribute(group.owner, name, value)
        return None
    target = container.target
    parent_name = container.evaluate_name
    if isinstance(target, (dict, collections.abc.MutableMapping)):
        for key in list(target.keys()):
            if safe_repr(key, 200) == name:
                target[key] = value
                return f"{parent_name}[{name}]" if parent_name else None
        raise EvaluationError(f"no key {name} in this mapping")
    if isinstance(target, collections.abc.MutableSequence):
        try:
            index = int(name)
        except ValueError:
            index = None
        if index is not None:
            try:
                target[index] = value
            except Exception as error:
                raise EvaluationError(f"cannot set item {index}: {error}") from None
            return f"{parent_name}[{index}]" if parent_name else None
    if isinstance(target, (tuple, frozenset, set, str, bytes)):
        raise EvaluationError(f"the items of a {type(target).__name__} cannot be changed")
    _set_attribute(target, name, value)
    return member_expression(parent_name, name)


def _set_attribute(target, name: str, value) -> None:
    try:
        setattr(target, name, value)
    except Exception as error:
        raise EvaluationError(f"cannot set {name}: {type(error).__name__}: {error}") from None


def completions(debugger: Debugger, arguments: dict):
    inspector = debugger.inspector
    text = argument(arguments, "text", str)
    column = argument(arguments, "column", int)
    line = argument(arguments, "line", int, None)
    frame_id = arguments.get("frameId")
    if frame_id is None:
        return {"targets": []}
    entry = inspector.frame(frame_id)
    lines = text.split("\n")
    line_index = 0 if line is None else line - 1 + debugger.inspection.line_offset
    if not 0 <= line_index < len(lines):
        raise RequestError(f"line {line} is outside the text")
    position = column - 1 + debugger.inspection.column_offset
    prefix = lines[line_index][:max(position, 0)]
    _, partial = split_reference(prefix)
    if debugger.client_arguments.get("clientID") == "vscode":
        # VS Code reads start as a 0-based index into the whole text (its debug console
        # filters with text.substring(start, start + length) + label), whatever its
        # columnsStartAt1 says; a 1-based start made "os.pa" filter by "apath".
        start = sum(len(text) + 1 for text in lines[:line_index]) + len(prefix) - len(partial)
    else:
        # The protocol's reading: a column of the line, counted as the client counts.
        start = column - len(partial)

    def work():
        targets = complete(entry.frame, prefix)
        for target in targets:
            target["start"] = start
            target["length"] = len(partial)
        return {"targets": targets}

    return _on_stopped_thread(debugger, entry.thread_id, work, RENDER_SECONDS)


def source(debugger: Debugger, arguments: dict):
    registry = debugger.inspection.sources
    source_argument = arguments.get("source")
    if source_argument is not None and not isinstance(source_argument, dict):
        raise RequestError("'source' must be an object")
    reference = (source_argument or {}).get("sourceReference") or arguments.get(
        "sourceReference") or 0
    if isinstance(reference, bool) or not isinstance(reference, int):
        raise RequestError(f"'sourceReference' must be an integer, got {reference!r}")
    try:
        if reference > 0:
            content = registry.content(reference)
        elif source_argument and isinstance(source_argument.get("path"), str):
            content = read_source_file(source_argument["path"])
        else:
            raise RequestError("source needs a sourceReference or a source path")
    except SourceError as error:
        raise RequestError(str(error)) from None
    return {"content": content, "mimeType": "text/x-python"}


def modules(debugger: Debugger, arguments: dict):
    start = max(argument(arguments, "startModule", int, 0), 0)
    count = max(argument(arguments, "moduleCount", int, 0), 0)
    return modules_body(start, count)


def loaded_sources(debugger: Debugger, arguments: dict):
    return loaded_sources_body(debugger.inspection.sources)
