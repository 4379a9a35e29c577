"""The two kinds of failure: a request the client cannot have (``RequestError``), and a
bug of the debugger's own (``report_internal_error``)."""

from __future__ import annotations

import sys


class RequestError(ValueError):
    """A request that cannot be served as asked: a bad argument, an unknown or expired
    id, a thread that is not stopped, an expression that does not compile. The message
    goes back to the client as the request's error, with no traceback: it is not a bug
    of the debugger. Raised by the request handlers (requests/), and by the parts below
    them that check what a request names (subclasses say which part).

    Any other exception out of a handler is a bug: it is answered too, and its
    traceback goes to stderr for the log."""


def describe_exception(error: BaseException) -> str:
    """``Type: message``, or the type alone when the message is empty (a MemoryError
    has none), so that no error is ever answered with an empty reason."""
    try:
        detail = str(error)
    except Exception:
        detail = "<unprintable>"
    return f"{type(error).__name__}: {detail}" if detail else type(error).__name__


def report_internal_error(where: str) -> None:
    """Print a debugger bug (the exception being handled) to stderr, which the host shows,
    without raising: a bug in the debugger must not become an exception in the program."""
    try:
        import traceback

        print(f"dapper: internal error while handling {where}:", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
    except Exception:
        pass
