"""Output the engine captures (``console: internalConsole``) is line-buffered, as it
would be on the terminal the user runs the program in, so that it reaches the client by
lines and the processes of a tree, which share the pipe, never cut each other's lines
(each line is one write, and a pipe keeps a short write whole).

The engine says so with DAPPER_CAPTURED_OUTPUT=1 instead of forcing PYTHONUNBUFFERED on
every process: the user's own choice (-u, PYTHONUNBUFFERED) is kept, and the program's
environment is its own. A child is told which pipe that is (its device and inode), and
line-buffers its stdout only when it writes to the same one: a child whose output its
parent reads through a pipe of its own keeps Python's default buffering.
"""

from __future__ import annotations

import os
import sys

VARIABLE = "DAPPER_CAPTURED_OUTPUT"


def _identity(stream) -> str | None:
    try:
        status = os.fstat(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return None
    return f"{status.st_dev}:{status.st_ino}"


def apply(variables: dict) -> None:
    """Line-buffer sys.stdout if it is the captured output. ``variables`` are this
    process's DAPPER_* variables, which its children inherit."""
    captured = variables.get(VARIABLE)
    if not captured:
        return
    stream = sys.stdout
    identity = _identity(stream)
    if identity is None or captured not in ("1", identity):
        return
    variables[VARIABLE] = identity
    if (getattr(stream, "line_buffering", True) or getattr(stream, "write_through", False)
            or stream.isatty()):
        return
    try:  # Not contextlib.suppress: this runs before the hello (launch.py says why).
        stream.reconfigure(line_buffering=True)
    except (AttributeError, ValueError, OSError):
        return
