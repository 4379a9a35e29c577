"""Reporting the debugger's own bugs without disturbing the program."""

from __future__ import annotations

import sys


def report_internal_error(where: str) -> None:
    """Print a debugger bug (the exception being handled) to stderr, which the host shows,
    without raising: a bug in the debugger must not become an exception in the program."""
    try:
        import traceback

        print(f"dapper: internal error while handling {where}:", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
    except Exception:
        pass
