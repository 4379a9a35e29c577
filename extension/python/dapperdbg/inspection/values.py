"""The pieces every view of a value is made of: the children a variables response lists,
how a value expands, and the guard around each call of the program's code. Shared by
rendering (the general rules) and presenters (the views chosen by type), so that
neither imports the other's internals."""

from __future__ import annotations

import time

from .stopped_work import call_with_time_limit, user_code_time_spent

MAX_VALUE_LENGTH = 1000
MAX_CHILDREN = 1000
# How long one ``__repr__``, ``__len__`` or attribute read may take.
USER_CODE_SECONDS = 1.0
# Appended to a value cut at the length limit, so a cut value is never mistaken for a
# whole one (Copy Value with the clipboard context gives the whole text).
TRUNCATION_MARKER = "… (truncated)"

def describe_error(prefix: str, error: BaseException) -> str:
    try:
        detail = str(error)
    except Exception:
        detail = "<unprintable>"
    name = type(error).__name__
    return f"<{prefix} raised {name}: {detail}>" if detail else f"<{prefix} raised {name}>"


def _timed_out(what: str, started: float, spent_before: bool) -> str:
    if spent_before:
        return f"<{what} not run: this request's time for the program's code ran out>"
    elapsed = time.monotonic() - started
    if elapsed > USER_CODE_SECONDS + _LATE_SECONDS:
        # The interruption is only delivered when the code runs Python again: code
        # blocked in C (a sleep, a lock, a socket) ends when it ends. Say so, with the
        # time it actually took, rather than a limit the wait did not keep to.
        return (f"<{what} interrupted after {elapsed:.1f} s: it was in native code that "
                f"could not be interrupted at the {USER_CODE_SECONDS:g} s limit>")
    if elapsed < USER_CODE_SECONDS - _LATE_SECONDS:
        return f"<{what} interrupted: this request's time for the program's code ran out>"
    return f"<{what} timed out after {USER_CODE_SECONDS:g} s>"


# How much later than its limit an interruption may land and still be "on time".
_LATE_SECONDS = 0.25


def guarded(function, what: str):
    """``(result, None)`` from ``function()``, or ``(None, message)`` when it raised or
    ran out of time."""
    started = time.monotonic()
    spent_before = user_code_time_spent()
    try:
        return call_with_time_limit(
            lambda: (function(), None), USER_CODE_SECONDS,
            lambda: (None, _timed_out(what, started, spent_before)),
        )
    except Exception as error:
        return None, describe_error(what, error)


class Shape:
    """How a value expands: whether it has children and how many of each kind (None
    when counting them would mean running a lot of user code)."""

    __slots__ = ("expandable", "indexed", "named")

    def __init__(self, expandable: bool, indexed: int = 0, named: int = 0) -> None:
        self.expandable = expandable
        self.indexed = indexed
        self.named = named


class Group:
    """A sub-group of members ("special variables", …) of an object or a scope.
    ``owner`` is what the members belong to, for setVariable: an object (its
    attributes), or None for a scope (the Container of the group knows which)."""

    __slots__ = ("kind", "members", "owner")

    def __init__(self, kind: str, members: list[tuple[str, object, str | None]],
                 owner: object = None) -> None:
        self.kind = kind
        self.members = members
        self.owner = owner


class Child:
    """One entry of a variables response. A child that stands for "more not shown" or a
    failure carries its text in ``note`` instead of a value; a group's, its ``group``."""

    __slots__ = ("name", "value", "evaluate_name", "note", "group")

    def __init__(self, name: str, value: object, evaluate_name: str | None,
                 note: str | None = None, group: Group | None = None) -> None:
        self.name = name
        self.value = value
        self.evaluate_name = evaluate_name
        self.note = note
        self.group = group


def note_more(result: list[Child], total: int, start: int, count: int) -> list[Child]:
    if count <= 0 and start + len(result) < total:
        missing = total - start - len(result)
        result.append(Child("…", None, None, note=f"{missing} more not shown"))
    return result


def member_expression(evaluate_name: str | None, name: str) -> str | None:
    if evaluate_name is None:
        return None
    if name.isidentifier():
        return f"{evaluate_name}.{name}"
    return f"getattr({evaluate_name}, {name!r})"


class Failed:
    """Stands for an attribute whose read failed; rendered as the failure text."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __repr__(self) -> str:
        return self.message
