"""What restartable code and the debugger agree on, without the restart machinery itself
(restarts.py): the package that restartable code calls, made callable here before any of
it runs; the constant that marks its functions; and which sources have a function to
restart at all.

A process loads this with the user's first module loaded restartable, a child that runs
dormant included; restarts.py (the exception that restarts a frame, and what shows and
restarts frames) only with a session's tracer, or once something restarts a frame.
"""

from __future__ import annotations

import sys

from ..common.interpreter_types import ModuleType

# The package's top module, which restartable code calls; the argument of the call that
# gives the new call (a constant of every restartable function's code and of no other
# code: it tells restartable code apart); the prefix of the locals its handler adds.
PACKAGE = __name__.partition(".")[0]
CALL_NAME = "__dapper_call__"
LOCAL_PREFIX = "__dapper_"


# The restart machinery's module, looked up when a handler calls: until something
# imported it, no RestartFrame was ever raised.
_RESTARTS = f"{__package__}.restarts"


class _CallablePackage(ModuleType):
    """The class of the package's top module once restartable code may run."""

    def __call__(self, what: str | None = None):
        restarts = sys.modules.get(_RESTARTS)
        if restarts is None:
            # The GeneratorExit the handler holds is the program's (None: not accepted).
            return None
        if what is None:
            return restarts.RestartFrame.accepted_here(sys._getframe(1))
        return restarts.RestartFrame.take_call()


def install_restart_exception() -> None:
    """Make the handler's calls resolve (idempotent); before any restartable code runs."""
    package = sys.modules[PACKAGE]
    if type(package) is not _CallablePackage:
        package.__class__ = _CallablePackage


def may_define_functions(source: bytes | str) -> bool:
    """False when the module's ``source`` defines no function, so that its restartable
    code is its plain code: ``def`` is nowhere in its text."""
    return (b"def" if isinstance(source, bytes) else "def") in source
