"""Restart Frame with the function's current code: the frame to restart, what it is
called with again, and the exception the stopped thread raises to get there
(instrumentation/restartable.py has the handler that meets it; docs/hot-reload.md).

A frame can be restarted when it runs a restartable copy of its function (the user's
code, compiled so by the import finder or the program's compile), is no generator, and
its thread is stopped in Python code. The restart needs the function object to call
again (a frame does not name it: found by its code, a closure by its cells) and the
arguments of the original call (a parameter the body rebinds was kept by the copy).
"""

from __future__ import annotations

import sys

from ..common.errors import report_internal_error
from ..common.interpreter_types import FunctionType
from ..hotreload.stacks import replacement_of
from ..instrumentation.handler_guard import arm, disarm
from ..instrumentation.restarts import (
    GENERATOR_FLAGS,
    RestartFrame,
    is_restartable,
    snapshot_name,
)
from ..tracing import StepState
from ..tracing.steps import STEP_RAISE, STEP_RESTART

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable

    from .parts import DebuggerParts
    from .threads import StoppedThread

_CO_NEWLOCALS = 0x0002
_CO_VARARGS = 0x0004
_CO_VARKEYWORDS = 0x0008
# Values whose changes in place the restart cannot undo are named in a note.
_IMMUTABLE = (int, float, complex, str, bytes, bool, type(None), frozenset, range)
# How often a restart the program's code caught is tried again before giving up.
_RETRIES = 2


class Refusal(Exception):
    """Why the frame cannot be restarted (the message is the user's)."""


def refusal_reason(frame: types.FrameType) -> str | None:
    """Why ``frame`` (its thread stopped) cannot be restarted with its function's current
    code, or None."""
    code = frame.f_code
    if not code.co_flags & _CO_NEWLOCALS:
        return "a module-level or class-body frame cannot be restarted: it would run " \
               "top-level statements again"
    if code.co_flags & GENERATOR_FLAGS:
        return "a generator cannot be restarted: its consumer has seen its values " \
               "(coroutines can be)"
    if not is_restartable(code):
        return ("it did not start in the debugger's copy of its code: its module was "
                "imported before the session began, by another loader (pytest's test "
                "files), or it is library code")
    return None


class Plan:
    """A restart ready to go: ``target`` is called again through ``call``."""

    def __init__(self, target: types.FrameType, function: types.FunctionType,
                 args: list, kwargs: dict, notes: list[str]) -> None:
        self.target = target
        self.function = function
        self.args = args
        self.kwargs = kwargs
        self.notes = notes
        # Set by ``restart``: what sends the thread on its way.
        self.go: Callable[[], None] = _nothing


def plan(frame: types.FrameType) -> Plan:
    """Raises Refusal."""
    reason = refusal_reason(frame)
    if reason is not None:
        raise Refusal(reason)
    function = _function_of(frame)
    if function is None:
        raise Refusal("its function object is gone (deleted or replaced by another)")
    args, kwargs, notes = _original_arguments(frame)
    import inspect  # Only a restart needs it.

    try:
        inspect.signature(function).bind(*args, **kwargs)
    except TypeError as error:
        raise Refusal(f"its original arguments no longer fit the new signature: {error}") \
            from None
    except ValueError:
        pass  # No signature to check: the call itself will say.
    return Plan(frame, function, args, kwargs, notes)


def _function_of(frame: types.FrameType) -> types.FunctionType | None:
    """The function whose call ``frame`` is. A frame does not name it: it is a function
    whose code is the frame's, or what stands for it now (the plain code a probe's copy
    was made from, the code a reload put in its place, a probe's copy of that); among
    closures of the same code, the one whose cells hold what the frame sees."""
    import gc

    from ..instrumentation.breakpoint_probes import shared_instrumentation

    registry = shared_instrumentation().registry
    code = frame.f_code
    info = registry.known_copy(code)
    original = info.original if info is not None else code
    codes = [code, original]
    for old in (code, original):
        new = replacement_of(old)
        if new is not None:
            codes.append(new)
    wanted = {id(known) for known in codes}
    codes += [copy.copy for copy in registry.copies.values()
              if id(copy.original_if_made()) in wanted]
    candidates: list[types.FunctionType] = []
    for known in codes:
        for referrer in gc.get_referrers(known):
            if type(referrer) is FunctionType and referrer not in candidates:
                candidates.append(referrer)
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    free = code.co_freevars
    if free:
        seen = frame.f_locals
        for candidate in candidates:
            cells = candidate.__closure__ or ()
            try:
                if len(cells) == len(free) and all(
                        cell.cell_contents is seen.get(name) for cell, name in zip(cells, free)):
                    return candidate
            except ValueError:  # An empty cell.
                continue
    return candidates[0]


def _original_arguments(frame: types.FrameType) -> tuple[list, dict, list[str]]:
    code = frame.f_code
    names = code.co_varnames
    seen = frame.f_locals
    positional = code.co_argcount
    keyword_only = code.co_kwonlyargcount
    args: list = []
    kwargs: dict = {}
    mutable: list[str] = []

    def value_of(name: str):
        snapshot = snapshot_name(name)
        if snapshot in seen:
            return seen[snapshot]
        if name not in seen:
            raise Refusal(f"its argument {name} was deleted")
        return seen[name]

    for name in names[:positional]:
        value = value_of(name)
        args.append(value)
        if not isinstance(value, _IMMUTABLE) and name != "self" and name != "cls":
            mutable.append(name)
    varargs = None
    if code.co_flags & _CO_VARARGS:
        varargs = names[positional + keyword_only]
    for name in names[positional:positional + keyword_only]:
        kwargs[name] = value_of(name)
    index = positional + keyword_only + (1 if varargs else 0)
    if varargs:
        args.extend(value_of(varargs))
    if code.co_flags & _CO_VARKEYWORDS:
        kwargs.update(value_of(names[index]))
    notes = []
    if mutable:
        notes.append(f"{', '.join(mutable)} {'is' if len(mutable) == 1 else 'are'} passed "
                     "again as the same object: what was changed in it since the call "
                     "stays changed")
    return args, kwargs, notes


def restart(debugger: DebuggerParts, stopped: StoppedThread, frame: types.FrameType) -> Plan:
    """Plan restarting ``frame`` of the stopped thread with its function's current code;
    the plan's ``go()`` (once the response is out) runs every thread again, and the
    thread stops (reason ``restart``) on the first line of the new call. Raises
    Refusal."""
    import functools

    restart_plan = plan(frame)
    if stopped.running:
        raise Refusal("its thread is not stopped in Python code")
    ident = stopped.ident
    call = functools.partial(restart_plan.function, *restart_plan.args, **restart_plan.kwargs)
    attempts = [0]

    def accepted(frame: types.FrameType) -> None:
        # Its handler took it: the function's exceptions leave it unguarded again.
        disarm(frame.f_code)
        tracer = debugger.tracer
        tracer.trace_again()
        tracer.set_step(ident, StepState(STEP_RESTART))

    def lost(exception: RestartFrame) -> None:
        # The program caught it on the way (``except BaseException:``, a bare except, an
        # ``__exit__`` that returned True). Tried again at the next line of the user's
        # code, from where the program goes on (or as the frame returns), if the frame is
        # still on the stack.
        try:
            target = exception.target
            debugger.tracer.trace_again()
            if attempts[0] < _RETRIES and _on_stack(target):
                attempts[0] += 1

                def again(possible: bool = True) -> RestartFrame | None:
                    if possible:
                        arm(target.f_code)
                        return RestartFrame(target, call, accepted, lost)
                    give_up(target)
                    return None

                debugger.tracer.set_step(ident, StepState(STEP_RAISE, target, raises=again))
                return
            give_up(target)
        except Exception:
            report_internal_error("a frame restart the program caught")

    def give_up(target: types.FrameType | None) -> None:
        if target is not None:
            disarm(target.f_code)
        name = target.f_code.co_name if target is not None else "the frame"
        debugger.send_output(
            f"Restart Frame of {name} did not happen: the program's own code caught the "
            "debugger's exception on its way there (an `except BaseException:`, a bare "
            "`except:` or an `__exit__` that returns True), and the program goes on from "
            "there.\n", category="important")

    def go() -> None:
        # After the response: the thread runs on at once, and its stop may come quickly.
        # The target's handler is put in force first (handler_guard.py: idle otherwise).
        target = restart_plan.target
        arm(target.f_code)
        exception = RestartFrame(target, call, accepted, lost)
        if not debugger.stops.resume_raising(stopped, exception):
            exception.give_up()  # Resumed meanwhile (a continue, a disconnect).
            disarm(target.f_code)

    restart_plan.go = go
    return restart_plan


def _nothing() -> None:
    pass


def _on_stack(frame: types.FrameType | None) -> bool:
    current = sys._getframe(1)
    while current is not None:
        if current is frame:
            return True
        current = current.f_back
    return False

