"""The program's standard streams: which consoles put them where the host cannot read
them, and how the debugger leaves them at an end."""

from __future__ import annotations

import sys

# The consoles whose terminal has the program's streams, which the host does not read:
# the output tees (inspection/output_capture.py) report what is written there.
TERMINAL_CONSOLES = ("integratedTerminal", "externalTerminal")


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
