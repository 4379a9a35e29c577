"""What the debug console is told, once per session, when a fast path cannot serve
this Python: ``sys.monitoring`` (3.12+, else the slower ``sys.settrace``) and the
instrumented code copies that run breakpoints without tracing. A slower session is
never a silent one; a path the user turned off (DAPPER_TRACER, DAPPER_INSTRUMENT) is
their choice and is not reported."""

from __future__ import annotations

import sys

_VERSION = f"{sys.version_info[0]}.{sys.version_info[1]}"


def tracer_notice(backend: str, requested: str | None, fallback: str | None) -> str | None:
    """The notice for tracing with ``backend`` when ``requested`` was asked for (None:
    the default) and ``fallback`` says why ``sys.monitoring`` could not be used."""
    if backend != "settrace":
        return None
    if fallback is not None:
        why = f"sys.monitoring cannot be used ({fallback})"
    elif requested is None:
        why = f"Python {_VERSION} has no sys.monitoring (3.12 and newer do)"
    else:
        return None
    return (f"Dapper: {why}; tracing with sys.settrace instead, which slows the program "
            f"while breakpoints, stepping or exception filters need tracing.\n")


def copies_notice(reason: str) -> str:
    """The notice for instrumented code copies that do not work here, for ``reason``."""
    return (f"Dapper: instrumented code copies do not work on Python {_VERSION} "
            f"({reason}); line breakpoints are found by tracing instead, which is "
            f"slower.\n")
