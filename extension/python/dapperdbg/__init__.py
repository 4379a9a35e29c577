"""Dapper's debuggee side: the launcher, the tracer and the IPC client that run inside
the program being debugged. Standard library only. The packages and their roles are
listed in extension/python/README.md.

The functions below are the in-code API, as debugpy's: a program makes itself
debuggable while it runs. Importing the package starts nothing and loads none of the
debugger; the first call of ``listen`` or ``connect`` does (launcher/api.py).
"""

import sys as _sys

__version__ = "0.1.0"

__all__ = [
    "breakpoint", "connect", "is_client_connected", "listen", "post_mortem", "wait_for_client",
]

# The package's own modules are compiled once and their bytecode cached beside them, even
# where the user's environment sets PYTHONDONTWRITEBYTECODE (common/package.py says why,
# and gives the setting back before the user's code runs). It is set here, where every
# entry point begins, without another module of the package: the launcher's next ones
# come from the start bundle (common/start_bundle.py), and two more imports through the
# import system would cost every debugged process ~0.3 ms before its first line.
_users_bytecode_setting = _sys.dont_write_bytecode
_sys.dont_write_bytecode = False


def __getattr__(name):
    if name == "PROTOCOL_VERSION":  # The IPC protocol this package speaks.
        from .common.package import PROTOCOL_VERSION

        return PROTOCOL_VERSION
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def listen(address):
    """Listen for a debugger (an attach configuration with ``"connect"``) at ``address``:
    a port (on 127.0.0.1), ``(host, port)`` or ``"host:port"``; port 0 takes a free one.
    Returns the (host, port) really bound. The program runs on; a debugger may attach,
    detach and attach again for the rest of the run, one at a time."""
    from .launcher import api

    return api.listen(address)


def connect(address):
    """Connect to a debugger that listens at ``address`` (an attach configuration with
    ``"listen"``): a port (on 127.0.0.1), ``(host, port)`` or ``"host:port"``. Returns
    once the debugger has set its breakpoints (or left before that), so that they apply
    from the next line, as under ``python -m dapperdbg --connect``. Raises OSError when
    nothing listens there."""
    from .launcher import api

    api.connect(address)


def wait_for_client():
    """Block until a debugger has attached and finished configuring (its breakpoints are
    set); after ``listen`` or ``connect``."""
    api = _api()
    if api is None:
        raise RuntimeError("dapperdbg.wait_for_client(): call dapperdbg.listen() or "
                           "dapperdbg.connect() first")
    api.wait_for_client()


def is_client_connected():
    """Whether a debugger is attached and configured."""
    api = _api()
    return api is not None and api.is_client_connected()


def breakpoint():
    """Stop here, in the caller's frame, when a debugger is attached; else do nothing."""
    api = _api()
    if api is not None:
        api.breakpoint(_sys._getframe(1))


def post_mortem(exception=None):
    """Stop where ``exception`` was raised, when a debugger is attached (else do nothing),
    as ``pdb.post_mortem`` does: for an exception the program caught (and logged, say),
    after the fact. The debugger shows the frames of its traceback, innermost first,
    then the callers of the frame that caught it, with their variables as they were;
    continuing goes on after this call. ``exception`` defaults to the one being handled
    (in an ``except`` block), else the last uncaught one (``sys.last_value``). Raises
    ValueError when there is none, or when it was never raised (no traceback)."""
    if exception is None:
        exception = _sys.exc_info()[1] or getattr(_sys, "last_value", None)
        if exception is None:
            raise ValueError("dapperdbg.post_mortem(): no exception given, and none is "
                             "being handled")
    elif not isinstance(exception, BaseException):
        raise TypeError("dapperdbg.post_mortem() takes an exception, not "
                        f"{type(exception).__name__}")
    if exception.__traceback__ is None:
        raise ValueError(f"dapperdbg.post_mortem(): {exception!r} was never raised, so it "
                         "has no traceback to show")
    api = _api()
    if api is not None:
        api.post_mortem(exception)


def _api():
    """launcher/api.py once something debugs this process: a first listen() or connect(),
    or Dapper's launcher (the program was started under the debugger); else None, and
    nothing is loaded."""
    api = _sys.modules.get("dapperdbg.launcher.api")
    if api is None and "dapperdbg.session.breakpoint_hook" in _sys.modules:
        from .launcher import api
    return api
