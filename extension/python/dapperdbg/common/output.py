"""The program's standard streams, as the debugger leaves them at an end."""

from __future__ import annotations

import contextlib
import sys


def flush_output() -> None:
    """Flush the program's stdout and stderr before the engine hears of its end."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
