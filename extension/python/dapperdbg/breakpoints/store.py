"""Breakpoint records and the per-file store the tracer reads.

The tracer reads ``BreakpointStore.lines_by_file`` and ``pending_files`` without a lock:
every change builds new ones and swaps them in with one assignment each, so a reader
sees either the old or the new set, never a half-built one.

A line breakpoint is in one of three states:

- verified: its file's code exists in the process (``loaded_files.py`` says when) and the
  line resolved to an executable one;
- pending: the file compiles and the line resolved, but no code of the file has been
  loaded yet. It is armed (the tracer stops at it) and shown to the client verified, at
  the line it resolved to (``to_dap``; as debugpy does: clients draw an unverified one
  as rejected); the first time code of the file is seen, it becomes verified and a
  ``breakpoint`` event says so (with its line, should the file have changed), before
  any line of that code runs;
- unverified: the file cannot be read or compiled, the line is past the end, or an
  expression is invalid. It never stops.

Ordering with the client: a pending breakpoint is announced only after the client has
the ``setBreakpoints`` response that carries its id (``answered``); a thread that loads
the file in between waits for that response (a bounded time) before it runs on.
Announcements are sent under the store's lock, so that one is never sent for a
breakpoint a later ``setBreakpoints`` replaced.

Two more ways a file's code can appear unnoticed: a thread imports it while its
breakpoints are being set (after the check that made them pending, before the live swap
gave its functions probes), or a probe or the tracer reaches a breakpoint whose
verification another thread is announcing right now. ``verify_loaded`` runs after every
swap, with the files whose functions it found, for the first; for both, a hit of a
breakpoint the client does not know to be verified goes through ``file_loaded`` before
anything is shown for it.

Ordering with the tracer, without a lock on its side: the tracer notes a file as loaded
and then reads ``pending_files``; ``set_file_breakpoints`` publishes ``pending_files``
and then reads the notes again. Whichever comes second sees the other's write, so a
file's first code never slips between the two unannounced.
"""

from __future__ import annotations

import os
import time

from ..common.errors import RequestError
from ..common.native import Condition, RLock
from ..common.paths import canonical_path, is_debugger_path
from ..common.records import Record
from ..common.stop_imports import import_at_first_stop
from .loaded_files import LoadedFiles

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types
    from collections.abc import Callable

    from ..common.code_lines import ExecutableLinesCache
    from .data import DataBreakpoints
    from .expressions import HitCondition, LogTemplate
    from .functions import FunctionBreakpointStore
    from .template_files import TemplateLines

# What only a breakpoint needs is imported by the first request that sets one (a session
# without breakpoints, every child process of a test suite among them, never imports it),
# or at the first stop: a request that comes while threads are stopped must not import.
_FOR_BREAKPOINTS = ("common.code_lines", "breakpoints.expressions", "breakpoints.functions",
                    "breakpoints.data", "breakpoints.template_files")
import_at_first_stop(*(f"{__name__.split('.')[0]}.{name}" for name in _FOR_BREAKPOINTS))


NOT_LOADED_YET = ("The module is not loaded yet: the breakpoint is verified when it is "
                  "imported.")


class Breakpoint(Record, eq=False):
    """One source breakpoint. Lines here are always 1-based; the request layer converts
    from and to the client's base."""

    id: int
    source: dict
    canonical: str
    requested_line: int
    line: int
    verified: bool
    message: str | None = None
    condition: types.CodeType | None = None
    # The condition as the user wrote it: instrumented copies compile it into the
    # breakpoint's line (instrumentation/breakpoint_probes.py).
    condition_text: str | None = None
    hit_condition: HitCondition | None = None
    log_template: LogTemplate | None = None
    # (line, the JSON of the log point's output body after its text), made at its first
    # line (session/log_points.py).
    log_body: tuple | None = None
    hits: int = 0
    # A condition that raises is reported once (then it only stops).
    condition_error_reported: bool = False
    # Armed, waiting for the first code of its file (see the module docstring).
    pending: bool = False
    # The client has the setBreakpoints response that carries this breakpoint.
    answered: bool = False
    # What the client was last told about ``verified`` (response or event).
    told_verified: bool = False

    @property
    def armed(self) -> bool:
        return self.verified or self.pending

    def to_dap(self, line_offset: int) -> dict:
        # A pending breakpoint is shown verified, at the line it resolved to in its file:
        # it is armed and will stop there. Shown unverified ("pending"), nvim-dap and
        # others draw it as rejected (docs/editors.md). The event that verifies it when
        # its module loads still comes, and says so if the line moved meanwhile.
        shown_verified = self.verified or self.pending
        result = {
            "id": self.id,
            "verified": shown_verified,
            "line": self.line - line_offset,
            "source": self.source,
        }
        if self.message and not shown_verified:
            result["message"] = self.message
            # DAP's machine-readable reason: it will not be verified without the user.
            result["reason"] = "failed"
        return result


if TYPE_CHECKING:
    # Called with breakpoints that just became verified, to tell the client.
    Announce = Callable[[list[Breakpoint]], None]


class _NoneSetYet:
    """The function or data breakpoints of a session that has set none so far: what the
    tracer reads of them (``active``, empty) and ``clear``, without their module."""

    active = ()

    def clear(self) -> None:
        pass


_NONE_SET_YET = _NoneSetYet()


class BreakpointStore:
    def __init__(self, lines_cache: ExecutableLinesCache | None = None) -> None:
        self._lines_cache = lines_cache
        # Reentrant: code run under it (path functions, compiling a condition) may
        # reach the tracer on the same thread.
        self._lock = RLock()
        self._answered = Condition(self._lock)
        self._ids: dict[tuple[str, int], int] = {}
        self._next_id = 1
        self._by_file: dict[str, list[Breakpoint]] = {}
        # canonical path -> {line: (breakpoint, ...)}, armed breakpoints only.
        self.lines_by_file: dict[str, dict[int, tuple[Breakpoint, ...]]] = {}
        # The canonical paths that have pending breakpoints.
        self.pending_files: frozenset[str] = frozenset()
        self.loaded = LoadedFiles()
        # The tracer reads ``functions.active`` and ``data.active``; the stores are made by
        # function_breakpoints() and data_breakpoints(), at the first request for them.
        self.functions: FunctionBreakpointStore | _NoneSetYet = _NONE_SET_YET
        self.data: DataBreakpoints | _NoneSetYet = _NONE_SET_YET
        # Set when the session debugs templates (breakpoints/templates.py): it says which
        # files take template breakpoints, whose lines are not Python's.
        self.templates: TemplateLines | None = None

    @property
    def lines_cache(self) -> ExecutableLinesCache:
        if self._lines_cache is None:
            from ..common.code_lines import ExecutableLinesCache

            self._lines_cache = ExecutableLinesCache()
        return self._lines_cache

    def function_breakpoints(self) -> FunctionBreakpointStore:
        """The session's function breakpoints (made at the first request for them)."""
        functions = self.functions
        if isinstance(functions, _NoneSetYet):
            from .functions import FunctionBreakpointStore

            functions = self.functions = FunctionBreakpointStore(self.allocate_fresh_id)
        return functions

    def data_breakpoints(self) -> DataBreakpoints:
        """The session's data breakpoints (made at the first request for them)."""
        data = self.data
        if isinstance(data, _NoneSetYet):
            from .data import DataBreakpoints

            data = self.data = DataBreakpoints()
        return data

    def allocate_fresh_id(self) -> int:
        """An id no breakpoint has (function breakpoints share the id space)."""
        with self._lock:
            bp_id = self._next_id
            self._next_id += 1
            return bp_id

    def _allocate_id(self, key: tuple[str, int], used: set[int]) -> int:
        """The id for (path, line): the same one every time, unless another breakpoint
        of the same request already took it (two requests landing on one line)."""
        bp_id = self._ids.get(key)
        if bp_id is None or bp_id in used:
            bp_id = self._next_id
            self._next_id += 1
            self._ids.setdefault(key, bp_id)
        used.add(bp_id)
        return bp_id

    def set_file_breakpoints(self, source: dict, specs: list[dict]) -> list[Breakpoint]:
        """Replace the breakpoints of ``source["path"]`` with ``specs`` (each a dict with a
        1-based ``line`` and optional ``condition``, ``hitCondition``, ``logMessage``).
        The result is not answered yet: ``describe`` then ``answered`` (after the
        response is sent) must follow."""
        path = source.get("path")
        if not isinstance(path, str) or not path:
            raise RequestError("setBreakpoints needs source.path (an absolute file path)")
        from ..common.code_lines import SourceError

        canonical = canonical_path(path)
        executable: tuple[int, ...] = ()
        if not specs:
            # None left in the file (the client clears a file this way): its lines are
            # not needed, nor is the file read.
            file_error = None
        elif is_debugger_path(canonical):
            # The debugger never traces itself (a stop there could deadlock it).
            file_error = "Breakpoints in the debugger's own code are not supported."
        elif self.templates is not None and self.templates.accepts(canonical):
            try:
                executable = self.templates.lines(path)
                file_error = None
            except SourceError as error:
                file_error = str(error)
        else:
            try:
                executable = self.lines_cache.lines(path)
                file_error = None
            except SourceError as error:
                from .template_files import TEMPLATE_OPTION_NEEDED, is_template_path

                file_error = str(error)
                if is_template_path(canonical) and os.path.isfile(path):
                    # Not Python: say what makes it work rather than how it fails to compile.
                    file_error = TEMPLATE_OPTION_NEEDED
        created = []
        with self._lock:
            loaded = file_error is None and self.loaded.contains(canonical)
            used: set[int] = set()
            for spec in specs:
                created.append(self._make(source, canonical, spec, executable, file_error,
                                          loaded, used))
            self._by_file[canonical] = created
            self._publish()
            if not loaded and self.loaded.seen(canonical):
                # A thread ran the file's first code while this was decided, and saw no
                # pending breakpoint yet: they are verified now (and answered so).
                self._verify_pending(canonical)
        return created

    def _make(self, source, canonical, spec, executable, file_error, loaded,
              used) -> Breakpoint:
        from ..common.code_lines import resolve_line
        from .expressions import ExpressionError, compile_expressions

        requested = spec["line"]
        pending = False
        if file_error is not None:
            resolution_line, verified, message = requested, False, file_error
        else:
            resolution = resolve_line(executable, requested)
            resolution_line, verified = resolution.line, resolution.verified
            message = resolution.message
            if verified and not loaded:
                verified, pending, message = False, True, NOT_LOADED_YET
        breakpoint = Breakpoint(
            id=self._allocate_id((canonical, resolution_line), used),
            source=source,
            canonical=canonical,
            requested_line=requested,
            line=resolution_line,
            verified=verified,
            message=message,
            pending=pending,
        )
        try:
            compile_expressions(breakpoint, spec)
        except ExpressionError as error:
            breakpoint.verified = breakpoint.pending = False
            breakpoint.message = str(error)
        return breakpoint

    def file_breakpoints(self, path: str) -> list[Breakpoint]:
        """The breakpoints of the file at ``path`` now, in the order they were set."""
        with self._lock:
            return list(self._by_file.get(canonical_path(path), ()))

    def describe(self, created: list[Breakpoint], line_offset: int) -> list[dict]:
        """The setBreakpoints response's breakpoints, remembering what the client is told."""
        with self._lock:
            for breakpoint in created:
                breakpoint.told_verified = breakpoint.verified
            return [breakpoint.to_dap(line_offset) for breakpoint in created]

    def answered(self, created: list[Breakpoint]) -> list[Breakpoint]:
        """The response carrying ``created`` is sent. Returns those verified since it was
        built (their file loaded meanwhile), which the caller announces."""
        with self._lock:
            late = []
            for breakpoint in created:
                breakpoint.answered = True
                if breakpoint.verified and not breakpoint.told_verified:
                    breakpoint.told_verified = True
                    late.append(breakpoint)
            self._answered.notify_all()
            return late

    def file_loaded(self, canonical: str, announce: Announce, wait_seconds: float) -> None:
        """The first code of ``canonical`` is about to run on this thread: its pending
        breakpoints become verified, and ``announce`` tells the client (under the lock,
        before this thread runs on). Breakpoints whose setBreakpoints response is not
        out yet are waited for, at most ``wait_seconds``; after that they are left for
        ``answered`` to announce."""
        with self._lock:
            if canonical not in self.pending_files:
                return
            deadline = time.monotonic() + wait_seconds
            while self._unanswered(canonical):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._answered.wait(remaining)
            self._verify_and_announce(canonical, announce)

    def verify_loaded(self, files: set[str], announce: Announce) -> None:
        """``files`` have code in the process (the live swap found their functions):
        their pending breakpoints are verified. A thread may import a file while its
        breakpoints are being set, after the check that made them pending and before
        the swap. The ones already answered are announced (under the lock); the others
        are answered verified."""
        with self._lock:
            for canonical in files:
                self.loaded.note(canonical)
                if canonical in self.pending_files:
                    self._verify_and_announce(canonical, announce)

    def _verify_and_announce(self, canonical: str, announce: Announce) -> None:
        """With the lock held: verify the file's pending breakpoints and announce those
        whose response is out (the others are answered verified, or by ``answered``)."""
        told = [bp for bp in self._verify_pending(canonical) if bp.answered]
        for breakpoint in told:
            breakpoint.told_verified = True
        if told:
            announce(told)

    def _unanswered(self, canonical: str) -> bool:
        return any(bp.pending and not bp.answered for bp in self._by_file.get(canonical, ()))

    def _verify_pending(self, canonical: str) -> list[Breakpoint]:
        """With the lock held: the file is loaded; its pending breakpoints are verified."""
        verified = []
        for breakpoint in self._by_file.get(canonical, ()):
            if breakpoint.pending:
                breakpoint.pending = False
                breakpoint.verified = True
                breakpoint.message = None
                verified.append(breakpoint)
        self.pending_files = self.pending_files - {canonical}
        return verified

    def reresolve_file(self, canonical: str) -> list[Breakpoint]:
        """The file's source changed under a loaded module (a hot reload): each of its
        breakpoints is resolved again from the line the user asked for. Returns those
        whose line or verdict changed, for the caller to announce."""
        from ..common.code_lines import SourceError, resolve_line

        changed = []
        with self._lock:
            breakpoints = self._by_file.get(canonical, ())
            if not breakpoints:
                return changed
            try:
                executable = self.lines_cache.lines(breakpoints[0].source.get("path")
                                                     or canonical)
            except SourceError:
                return changed
            for breakpoint in breakpoints:
                if breakpoint.pending or (not breakpoint.verified and not (
                        breakpoint.message or "").startswith("Line ")):
                    # Pending on an import, or failed for another reason than its line
                    # (a condition that does not compile): unchanged.
                    continue
                resolution = resolve_line(executable, breakpoint.requested_line)
                verified = resolution.verified
                if (resolution.line, verified) == (breakpoint.line, breakpoint.verified):
                    continue
                breakpoint.line = resolution.line
                breakpoint.verified = verified
                breakpoint.message = resolution.message
                breakpoint.told_verified = verified
                changed.append(breakpoint)
            self._publish()
        return changed

    def _publish(self) -> None:
        lines_by_file: dict[str, dict[int, tuple[Breakpoint, ...]]] = {}
        pending_files = set()
        for canonical, breakpoints in self._by_file.items():
            for breakpoint in breakpoints:
                if breakpoint.armed:
                    per_line = lines_by_file.setdefault(canonical, {})
                    per_line[breakpoint.line] = per_line.get(breakpoint.line, ()) + (breakpoint,)
                if breakpoint.pending:
                    pending_files.add(canonical)
        self.lines_by_file = lines_by_file
        self.pending_files = frozenset(pending_files)

    def clear(self) -> None:
        with self._lock:
            self._by_file.clear()
            self._publish()
            self._answered.notify_all()
        self.functions.clear()
        self.data.clear()
