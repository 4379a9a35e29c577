"""Probes: what an instrumented copy calls, and the one name in ``builtins`` it is
called through.

An instrumented line runs ``__dapper_probe__(probe_id)`` (after its condition, if any,
was true), or ``__dapper_probe__(probe_id, True)`` from inside an ``except`` block when
the condition raised. The name is looked up in ``builtins`` so that no module's globals
gain a name; CPython caches global and builtin lookups, so the lookup costs next to
nothing (docs/instrumentation.md has the figures).

``builtins.__dapper_probe__`` is always the trampoline ``_probe`` below, installed once
and never removed while copies may still run: a copy calling a missing name would raise
NameError inside the user's program. What the trampoline does is the replaceable
handler (``set_probe_handler``).

A log point alone on its line, without a condition, is compiled in as the condition
``__dapper_log__(key, <its line as a %-format of its expressions>)``
(instrumentation/breakpoint_probes.py): the copy renders the line itself, at the speed of
the function's own code (no ``eval``, no ``f_locals``), and ``_log`` hands the text to
the log handler. It returns None, so the probe is called only when rendering raised.
"""

from __future__ import annotations

import builtins
import sys

from ..common.errors import report_internal_error
from ..common.import_hooks import forget, when_imported
from ..common.records import Record

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable

    # handler(probe_id, frame, error): ``frame`` is the user's frame at the probe's line,
    # ``error`` the exception the condition raised (None when the condition was true or
    # there is none). It must not raise; the trampoline reports anything it raises.
    ProbeHandler = Callable[[int, types.FrameType, "BaseException | None"], None]

PROBE_NAME = "__dapper_probe__"
LOG_NAME = "__dapper_log__"


class Probe(Record, frozen=True):
    """What to run before the statement that starts on a line: the call of the probe
    with ``probe_id`` (normally the breakpoint's id), only when ``condition`` (Python
    expression text, compiled into the copy) is true, if there is one."""

    probe_id: int
    condition: str | None = None


class StopAtLineEvent(Exception):  # noqa: N818 (a signal, not an error)
    """Raised by a handler that must stop the thread inside a line event rather than in
    the probe (a debugger can only set ``f_lineno``, a jump, from a line event). The
    trampoline lets it through; the probe's ``except`` block catches it, which gives a
    line event on the probe's line (3.9, 3.11+; on 3.10 the jump back to the statement
    gives it), and calls the probe again with it as ``error``: the handler ignores that
    call."""


_handler: ProbeHandler | None = None
# log_handler(key, text): a log point compiled into a copy rendered ``text``.
_log_handler: Callable[[str, str], None] | None = None
_exc_info = sys.exc_info
_getframe = sys._getframe


def _probe(probe_id, failed=False):
    # The hot path of a hit: module globals only, no allocation before the handler.
    handler = _handler
    if failed:
        # The condition's exception is the one being handled right now: the copy
        # calls this from its except block.
        error = _exc_info()[1]
        if not isinstance(error, Exception):
            # KeyboardInterrupt, SystemExit and the like raised while the condition
            # ran belong to the program: they go on as if no probe were there. Raised
            # again without a local holding it: this frame, which its traceback keeps,
            # would keep it alive (a frame restart is told it was caught by its death).
            del error
            raise
    else:
        error = None
    if handler is None:
        return
    try:
        handler(probe_id, _getframe(1), error)
    except StopAtLineEvent:
        raise
    except Exception:
        report_internal_error("a breakpoint probe")


def _log(key, text):
    # The hot path of a log point's line: module globals only.
    handler = _log_handler
    if handler is None:
        return
    try:
        handler(key, text)
    except Exception:
        report_internal_error("a log point")


def install_probe_function() -> None:
    """Make ``__dapper_probe__`` and ``__dapper_log__`` resolvable by every module
    (idempotent)."""
    if getattr(builtins, PROBE_NAME, None) is not _probe:
        setattr(builtins, PROBE_NAME, _probe)
    if getattr(builtins, LOG_NAME, None) is not _log:
        setattr(builtins, LOG_NAME, _log)
    _hide_from_dynamo()


# torch.compile's tracer (dynamo) reads the bytecode of every function it compiles or
# inlines, a copy's too, and would end its graph at the probe's call: an error under
# ``fullgraph=True``. The functions it is told to ignore it leaves out of its graphs as
# no-ops (they must return None, as these do): in compiled code a breakpoint does not
# stop, as under a tracing debugger, and where the function runs as Python (not
# compiled, or past a graph break) it does. Told once ``torch._dynamo.config`` is
# imported (at once if it is), from the first copy on; a torch older than the setting
# (2.7) ends its graph there as before. The wait for the import is taken back when the
# session's instrumentation ends, so that sys.meta_path is left as it was.
_DYNAMO_CONFIG = "torch._dynamo.config"
_waiting_for_dynamo = False


def _ignored_by_dynamo(config) -> None:
    ignored = getattr(config, "ignore_logging_functions", None)
    if isinstance(ignored, set):
        ignored.update((_probe, _log))


def _hide_from_dynamo() -> None:
    global _waiting_for_dynamo
    if not _waiting_for_dynamo:
        _waiting_for_dynamo = True
        when_imported(_DYNAMO_CONFIG, _ignored_by_dynamo)


def stop_hiding_from_dynamo() -> None:
    """The session's copies are undone: no wait for torch's import is left behind (a
    later copy waits again; what torch was told stays told)."""
    global _waiting_for_dynamo
    if _waiting_for_dynamo:
        _waiting_for_dynamo = False
        forget(_DYNAMO_CONFIG, _ignored_by_dynamo)


def route_probes_to(handler: ProbeHandler | None,
                    log_handler: Callable[[str, str], None] | None = None) -> None:
    """Route probe hits to ``handler`` and log points' lines to ``log_handler`` (None:
    they return at once). The probe function is put in builtins by whatever makes the
    first copy (a session without line breakpoints leaves builtins as they are)."""
    global _handler, _log_handler
    _handler = handler
    _log_handler = log_handler


def set_probe_handler(handler: ProbeHandler | None) -> None:
    """``route_probes_to``, with the probe function installed: for code instrumented and
    run by hand (the tests)."""
    install_probe_function()
    route_probes_to(handler)
