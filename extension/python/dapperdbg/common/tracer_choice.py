"""Which tracer backend a session uses: ``sys.monitoring`` on 3.12+, ``sys.settrace``
before, or the one ``DAPPER_TRACER`` names; free-threaded builds are refused. Apart from
the tracers themselves (tracing/), which are heavy to import: the launcher checks this
before it connects."""

from __future__ import annotations

import sys

BACKENDS = ("monitoring", "settrace")


def is_free_threaded() -> bool:
    """Whether this is a free-threaded build (3.13t and newer), whatever PYTHON_GIL says
    at run time. Windows has no ``sys.abiflags`` before 3.14: there sysconfig tells."""
    abiflags = getattr(sys, "abiflags", None)
    if abiflags is not None:
        return "t" in abiflags
    import sysconfig

    return bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def choose_backend_name(requested: str | None) -> str:
    """The backend to use. Raises ValueError for an unknown or unavailable request, and
    on a free-threaded build, which no backend supports yet."""
    if is_free_threaded():
        version = f"{sys.version_info[0]}.{sys.version_info[1]}"
        raise ValueError(
            f"{sys.executable} is a free-threaded build of Python ({version}t), which "
            f"Dapper does not support yet: its tracer and breakpoints rely on the global "
            f"interpreter lock. Debug with a standard build of Python {version}.")
    available = hasattr(sys, "monitoring")
    if requested:
        if requested not in BACKENDS:
            raise ValueError(
                f"DAPPER_TRACER={requested!r} is not a tracer backend "
                f"(expected one of {', '.join(BACKENDS)})"
            )
        if requested == "monitoring" and not available:
            raise ValueError("DAPPER_TRACER=monitoring needs Python 3.12 or newer")
        return requested
    return "monitoring" if available else "settrace"


# Whether ctypes is there for tracing/remote.py (3.9-3.11 only): known without importing
# ctypes, which costs every start 1-2 ms and is needed only once a program runs other
# threads.
_REMOTE_EXPECTED: bool | None = None


def remote_expected() -> bool:
    """Whether tracing/remote.py's ``RemoteTrace`` should work here, which gives running
    threads a trace function from another thread: CPython 3.9-3.11 with ctypes."""
    global _REMOTE_EXPECTED
    if _REMOTE_EXPECTED is None:
        from _frozen_importlib_external import PathFinder

        _REMOTE_EXPECTED = (
            sys.implementation.name == "cpython" and (3, 9) <= sys.version_info < (3, 12)
            and ("_ctypes" in sys.builtin_module_names
                 or PathFinder.find_spec("_ctypes") is not None))
    return _REMOTE_EXPECTED
