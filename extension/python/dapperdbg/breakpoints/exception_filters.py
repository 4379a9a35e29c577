"""Exception breakpoint filters: which exceptions stop the program, and the text that
describes an exception to the client (``exceptionInfo``).

Filters (the ids the client sends in ``setExceptionBreakpoints``):

- ``raised``: every exception, where it is first seen in the user's code;
- ``uncaught``: an exception nothing catches, before the thread or the program ends;
- ``userUnhandled``: an exception that leaves the user's code into library code (for
  example a callback of the user's that raises into a framework that catches it).

A filter's condition is a comma-separated list of exception type names (``ValueError,
KeyError`` or ``mypkg.errors.Failure``); the filter then applies only to exceptions of
those types or of their subclasses.
"""

from __future__ import annotations

from ..common.errors import RequestError
from ..common.records import Record
from ..common.stop_imports import import_at_first_stop

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

RAISED = "raised"
UNCAUGHT = "uncaught"
USER_UNHANDLED = "userUnhandled"
FILTER_IDS = (RAISED, UNCAUGHT, USER_UNHANDLED)

# What ``exceptionInfo.breakMode`` says for a stop caused by each filter.
# Not a filter: the program asked for the stop (dapperdbg.post_mortem), for an exception
# it may have caught, so the debugger breaks on it always.
POST_MORTEM = "postMortem"
BREAK_MODES = {RAISED: "always", UNCAUGHT: "unhandled", USER_UNHANDLED: "userUnhandled",
               POST_MORTEM: "always"}


class FilterError(RequestError):
    """A setExceptionBreakpoints request that cannot be applied."""


def parse_type_names(text: str) -> tuple[str, ...]:
    """``"ValueError, mod.Error"`` -> ("ValueError", "mod.Error"); raises FilterError for
    anything that is not a list of dotted identifiers."""
    names = tuple(part.strip() for part in text.split(","))
    if not any(names):
        return ()
    for name in names:
        if not name or not all(piece.isidentifier() for piece in name.split(".")):
            raise FilterError(
                f"Invalid exception filter condition {text!r}: expected exception type "
                "names separated by commas, such as 'ValueError, KeyError'"
            )
    return names


def full_type_name(exception_type: type) -> str:
    module = getattr(exception_type, "__module__", None)
    qualname = getattr(exception_type, "__qualname__", exception_type.__name__)
    if module in (None, "builtins", "__builtin__"):
        return qualname
    return f"{module}.{qualname}"


def type_matches(exception_type: type, names: tuple[str, ...]) -> bool:
    """Whether the type, or one of its base classes, is named in ``names`` (by its plain
    name, its qualified name or its module-qualified name)."""
    for klass in getattr(exception_type, "__mro__", (exception_type,)):
        spellings = {klass.__name__, getattr(klass, "__qualname__", klass.__name__),
                     full_type_name(klass)}
        if not spellings.isdisjoint(names):
            return True
    return False


class ExceptionFilters(Record, frozen=True):
    """The active filters: filter id -> the type names it is limited to (empty: all)."""

    active: dict

    def __contains__(self, filter_id: str) -> bool:
        return filter_id in self.active

    def applies(self, filter_id: str, exception: BaseException) -> bool:
        if filter_id not in self.active:
            return False
        names = self.active[filter_id]
        if names:
            return type_matches(type(exception), names)
        # The interpreter's own signalling (generators ending or being closed) is not an
        # error; it stops only when a condition names it.
        return not isinstance(exception, _CONTROL_FLOW)

    @property
    def watches_raising(self) -> bool:
        """Whether the tracer must watch exceptions as they are raised and unwind (the
        uncaught filter alone needs nothing from the tracer)."""
        return RAISED in self.active or USER_UNHANDLED in self.active


_CONTROL_FLOW = (GeneratorExit, StopIteration, StopAsyncIteration)

# Until the client sends setExceptionBreakpoints no filter is on: a client that knows
# nothing of exception filters must not see a program hang at an exception. "uncaught
# is on by default" is the capability's `default: true`, which makes clients send it.
DEFAULT_FILTERS = ExceptionFilters({})


def parse_filters(arguments: dict) -> ExceptionFilters:
    """The filters of a setExceptionBreakpoints request (``filters`` and
    ``filterOptions``). Raises FilterError with a message for the client."""
    active: dict[str, tuple[str, ...]] = {}
    filters = arguments.get("filters", [])
    if not isinstance(filters, list):
        raise FilterError("setExceptionBreakpoints 'filters' must be an array")
    for filter_id in filters:
        _check_id(filter_id)
        active[filter_id] = ()
    options = arguments.get("filterOptions") or []
    if not isinstance(options, list):
        raise FilterError("setExceptionBreakpoints 'filterOptions' must be an array")
    for option in options:
        if not isinstance(option, dict):
            raise FilterError(f"an exception filter option must be an object, got {option!r}")
        filter_id = option.get("filterId")
        _check_id(filter_id)
        condition = option.get("condition") or ""
        if not isinstance(condition, str):
            raise FilterError(f"the condition of filter {filter_id!r} must be a string")
        active[filter_id] = parse_type_names(condition)
    return ExceptionFilters(active)


def _check_id(filter_id) -> None:
    if filter_id not in FILTER_IDS:
        raise FilterError(
            f"Unknown exception filter {filter_id!r} (expected one of {', '.join(FILTER_IDS)})"
        )


def exception_message(exception: BaseException) -> str:
    try:
        return str(exception)
    except Exception as error:  # A broken __str__ must not break the stop.
        return f"<str() failed: {type(error).__name__}>"


def describe(exception: BaseException) -> str:
    """``ValueError: bad value`` (the last line Python prints for it)."""
    message = exception_message(exception)
    name = full_type_name(type(exception))
    return f"{name}: {message}" if message else name


# Used while threads are stopped (exceptionInfo), by the IPC thread.
import_at_first_stop("traceback")


def traceback_text(exception: BaseException, tb: types.TracebackType | None,
                   hidden=None) -> str:
    """The full traceback as Python prints it, chained exceptions included, without the
    entries whose file ``hidden(filename)`` says are not the program's (the debugger's
    own frames, which ran the program)."""
    try:
        import traceback

        summary = traceback.TracebackException(type(exception), exception, tb)
        if hidden is not None:
            _drop_entries(summary, hidden, set())
        return "".join(summary.format())
    except Exception as error:
        return f"{describe(exception)}\n(the traceback could not be formatted: {error})\n"


def _drop_entries(summary, hidden, seen: set[int]) -> None:
    """Remove hidden entries from ``summary`` and every exception chained to it or
    grouped in it (each once: chains can loop)."""
    if summary is None or id(summary) in seen:
        return
    seen.add(id(summary))
    import traceback

    kept = [entry for entry in summary.stack if not hidden(entry.filename)]
    if len(kept) != len(summary.stack):
        summary.stack = traceback.StackSummary.from_list(kept)
    _drop_entries(summary.__cause__, hidden, seen)
    _drop_entries(summary.__context__, hidden, seen)
    for grouped in getattr(summary, "exceptions", None) or ():
        _drop_entries(grouped, hidden, seen)


def chained_exceptions(exception: BaseException) -> list[tuple[str, BaseException]]:
    """The exceptions behind ``exception``, nearest first, each with how it is linked:
    "cause" (``raise X from Y``) or "context" (raised while handling it), as Python's
    traceback prints them (a suppressed context is left out; a loop ends the chain)."""
    chain = []
    seen = {id(exception)}
    current = exception
    while True:
        if current.__cause__ is not None:
            linked, relation = current.__cause__, "cause"
        elif current.__context__ is not None and not current.__suppress_context__:
            linked, relation = current.__context__, "context"
        else:
            return chain
        if id(linked) in seen:
            return chain
        seen.add(id(linked))
        chain.append((relation, linked))
        current = linked
