"""The program's standard streams, as the debugger leaves them at an end."""

from __future__ import annotations

import sys


def flush_output() -> None:
    """Flush the program's stdout and stderr before the engine hears of its end, through
    their types' ``flush``: a ``flush`` the program put on the stream object itself is
    the program's, for the interpreter to call at finalization, not for the debugger to
    call ahead of it (CPython's test_threading replaces sys.stderr.flush to run code
    while the interpreter finalizes)."""
    for stream in (sys.stdout, sys.stderr):
        flush = getattr(type(stream), "flush", None)
        try:
            if flush is not None:
                flush(stream)
            else:
                stream.flush()
        except Exception:
            continue
