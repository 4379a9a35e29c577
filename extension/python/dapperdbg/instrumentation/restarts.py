"""The exception that restarts a frame (restartable.py has the handler it meets), and the
facts about frames that run a restartable function.

Restartable code matches the class as a GeneratorExit and, once it holds one, calls
this package's top module: ``__import__(PACKAGE)()`` asks whether the frame is the
target (``accepted_here``), ``__import__(PACKAGE)(CALL_NAME)`` gives the new call
(``take_call``). The module is made callable before any restartable code runs (its class
set to a subclass of the module type, never set back: restart_contract.py, which a
process loads without this module), so that neither ``builtins`` nor the program's
globals gain a name; a call of the module is also the shortest code that reaches it (an
attribute's lookup has nine inline cache units on 3.12+, a call has three), and the
handler is in every function of the user's code.
"""

from __future__ import annotations

import sys
from _thread import get_ident as _get_ident

from .restart_contract import CALL_NAME, LOCAL_PREFIX

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable

_CO_NEWLOCALS = 0x0002
# Generators, iterable coroutines and async generators: never restarted.
GENERATOR_FLAGS = 0x0020 | 0x0100 | 0x0200


class RestartFrame(GeneratorExit):
    """Raised by the debugger in a stopped thread to restart ``target``, a frame of that
    thread running a restartable function; ``call`` makes the new call (the function,
    its current code, the original arguments bound). ``on_accept(frame)`` runs in the
    thread when the target's handler takes it; ``on_lost(self)`` when the exception
    dies without reaching it (the program's ``except BaseException:`` swallowed it).
    A GeneratorExit, so that the handler matches it by a builtin's name
    (restartable.py says why); like every GeneratorExit, not an error the exception
    filters stop at."""

    def __init__(self, target: types.FrameType, call: Callable[[], object],
                 on_accept: Callable[[types.FrameType], None],
                 on_lost: Callable[[RestartFrame], None]) -> None:
        super().__init__(f"restart of {target.f_code.co_name}")
        self.target: types.FrameType | None = target
        self.call: Callable[[], object] | None = call
        self._on_accept = on_accept
        self._on_lost: Callable[[RestartFrame], None] | None = on_lost

    @classmethod
    def accepted_here(cls, frame: types.FrameType) -> bool | None:
        """Called for ``frame``'s handler while it handles one of these: True, and the
        call kept for ``take_call``, if that frame is the target; else None (the
        exception goes on unwinding; the handler tests for None, which is shorter code
        than ``not`` on 3.13+). The handler binds no name of its own (a local
        would make every call of the function a little slower)."""
        exception = sys.exc_info()[1]
        if type(exception) is not cls or frame is not exception.target:
            return None
        _calls[_get_ident()] = exception.call
        exception.call = exception.target = exception._on_lost = None
        exception._on_accept(frame)
        return True

    @staticmethod
    def take_call():
        """The call the calling thread's handler accepted (it makes it at once)."""
        return _calls.pop(_get_ident())

    def give_up(self) -> None:
        """Let the exception go without telling anyone (the restart was abandoned)."""
        self.target = self.call = self._on_lost = None

    def __del__(self) -> None:
        on_lost = self._on_lost
        if on_lost is not None and self.target is not None:
            self._on_lost = None
            on_lost(self)


# Thread ident -> the call a handler accepted, taken by the same handler's next statement.
_calls: dict[int, Callable[[], object]] = {}


def is_restartable(code: types.CodeType) -> bool:
    """Whether ``code`` was compiled with the restart handler."""
    return CALL_NAME in code.co_consts


def is_handler_line(code: types.CodeType, line: int | None) -> bool:
    """Whether ``line`` of ``code`` is the restart machinery's, not the user's."""
    return line == code.co_firstlineno and is_restartable(code)


def is_parked(frame: types.FrameType) -> bool:
    """Whether ``frame`` (not the innermost of its thread) waits on its def line for
    the call that restarted it (restarted again, that call is parked in its turn)."""
    code = frame.f_code
    return (bool(code.co_flags & _CO_NEWLOCALS) and is_restartable(code)
            and line_now(frame) == code.co_firstlineno)


def snapshot_name(parameter: str) -> str:
    """The local that keeps an argument's value from the call, when the body rebinds it."""
    return f"{LOCAL_PREFIX}arg_{parameter}__"


def line_now(frame: types.FrameType) -> int | None:
    """The line ``frame`` runs now (3.9 answers ``f_lineno`` with the last line traced)."""
    if sys.version_info >= (3, 10):
        return frame.f_lineno
    code, lasti, line = frame.f_code, frame.f_lasti, None
    import dis  # 3.9 only, and only while frames are shown or restarted.

    for offset, start in dis.findlinestarts(code):
        if offset > lasti:
            break
        line = start
    return line




def can_restart(frame: types.FrameType) -> bool:
    """Whether ``frame`` runs a function that can be restarted with its current code
    (stackTrace's ``canRestart``; session/frame_restart.py says why not)."""
    code = frame.f_code
    return (bool(code.co_flags & _CO_NEWLOCALS) and not code.co_flags & GENERATOR_FLAGS
            and is_restartable(code))


def is_machinery_local(name: object) -> bool:
    """A local that the restart handler added (not shown to the user)."""
    return type(name) is str and name.startswith(LOCAL_PREFIX) and name.endswith("__")


def without_parked_entries(traceback: types.TracebackType | None):
    """``traceback`` without the entries of frames parked under a restarted call (on the
    handler's line), unlinked in place: the function shows once, as it was restarted."""
    while traceback is not None and is_handler_line(traceback.tb_frame.f_code,
                                                    traceback.tb_lineno):
        traceback = traceback.tb_next
    entry = traceback
    while entry is not None:
        following = entry.tb_next
        while following is not None and is_handler_line(following.tb_frame.f_code,
                                                        following.tb_lineno):
            following = following.tb_next
        entry.tb_next = following
        entry = following
    return traceback
