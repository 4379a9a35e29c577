"""Code of a file with line breakpoints that runs from someone else's compile (``exec``
of its text, a loader of the program's own): the copies never saw it, so the tracer
takes the file's lines from then on, on every thread, and the user is told once when
the program's own trace function hides them (docs/instrumentation.md)."""

from __future__ import annotations

from ..common.errors import report_internal_error
from ..common.interpreter_types import CodeType

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types

    from .parts import DebuggerParts

_FOREIGN_TRACER_NOTICE = (
    "The program runs its own trace function (sys.settrace: coverage, trace, …). On "
    "Python before 3.12 a thread has only one, so Dapper leaves it in place and cannot "
    "stop at breakpoints in code that runs while it is on. Python 3.12 and later have no "
    "such limit.\n")


class ForeignCode:
    """Watches for the code of breakpoint files that the copies never saw."""

    def __init__(self, debugger: DebuggerParts) -> None:
        self._debugger = debugger
        self._watching_exec = False
        # Whether the user was told that the program's own tracer hides lines.
        self._foreign_tracer_told = False

    def watch(self) -> None:
        """On the settrace backend with copies (untraced while nothing needs tracing,
        3.9-3.11): watch the code run by ``exec`` for code of files with line
        breakpoints that the copies never saw (``_code_executed``), while some such file
        has no copies yet (not imported, or run by someone else's compile). An audit
        hook, which costs every audited call (``id()``: copy.deepcopy twice as slow), so
        only then: once every file is accounted for, it is taken out again, as the
        sys.monitoring backend stops looking at code as it starts on 3.12
        (tracing/monitoring.py). What that leaves unseen is the same there: a file that
        ran as copies, run again from someone else's compile. On sys.monitoring every
        code object is seen anyway."""
        debugger = self._debugger
        needed = (debugger.tracer.name == "settrace" and debugger.probes.active
                  and self._unaccounted())
        if needed == self._watching_exec:
            return
        from ..inspection.exec_audit import observe_exec

        self._watching_exec = needed
        observe_exec(self._code_executed if needed else None)

    def _unaccounted(self) -> bool:
        """Whether a file with line breakpoints has no copies of ours yet."""
        debugger = self._debugger
        lines_by_file = debugger.store.lines_by_file
        if not lines_by_file:
            return False
        copies = debugger.tracer.copies
        accounted = copies.files() if copies is not None else ()
        return any(canonical not in accounted for canonical in lines_by_file)

    def _code_executed(self, code: types.CodeType) -> None:
        """The program is about to run ``code`` through ``exec`` (the audit hook): when
        it is code of a file with breakpoints that was not compiled with their probes,
        the tracer takes the file's lines, from now on, on every thread."""
        debugger = self._debugger
        try:
            if debugger.detached or not isinstance(code, CodeType):
                return
            canonical = debugger.paths.lookup(code.co_filename)
            if canonical is None:
                canonical = debugger.paths.canonical(code.co_filename)
            if canonical in debugger.store.lines_by_file:
                self.compiled_elsewhere(canonical, code)
        except Exception:
            report_internal_error("code run by exec")

    def compiled_elsewhere(self, canonical: str, code: types.CodeType) -> None:
        """Code of ``canonical``, a file with line breakpoints, runs from a compile of
        someone else's: unless it holds copies of ours, the file's lines are the tracer's
        from now on, on every thread."""
        debugger = self._debugger
        try:
            if not debugger.probes.foreign_code(canonical, code):
                return
            tracer = debugger.tracer
            tracer.lines_need_tracing = True
            tracer.ensure_tracing()
            if tracer.foreign_tracer() and not self._foreign_tracer_told:
                self._foreign_tracer_told = True
                debugger.send_output(_FOREIGN_TRACER_NOTICE)
        except Exception:  # Never an exception in the user's code.
            report_internal_error("code compiled elsewhere")
