"""Breakpoint records and the per-file store the tracer reads.

The tracer reads ``BreakpointStore.lines_by_file`` without a lock: every change builds
a new dict and swaps it in with one assignment, so a reader sees either the old or the
new set, never a half-built one.
"""

from __future__ import annotations

import threading
import types
from dataclasses import dataclass

from .breakpoint_expressions import (
    ExpressionError,
    HitCondition,
    LogTemplate,
    compile_condition,
    parse_hit_condition,
    parse_log_message,
)
from .code_lines import ExecutableLinesCache, SourceError, resolve_line
from .function_breakpoints import FunctionBreakpointStore
from .paths import canonical_path, is_debugger_path


@dataclass(eq=False)
class Breakpoint:
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
    hit_condition: HitCondition | None = None
    log_template: LogTemplate | None = None
    hits: int = 0
    # A condition that raises is reported once (then it only stops).
    condition_error_reported: bool = False

    def to_dap(self, line_offset: int) -> dict:
        result = {
            "id": self.id,
            "verified": self.verified,
            "line": self.line - line_offset,
            "source": self.source,
        }
        if self.message:
            result["message"] = self.message
        return result


class BreakpointStore:
    def __init__(self, lines_cache: ExecutableLinesCache | None = None) -> None:
        self._lines_cache = lines_cache or ExecutableLinesCache()
        self._lock = threading.Lock()
        self._ids: dict[tuple[str, int], int] = {}
        self._next_id = 1
        self._by_file: dict[str, list[Breakpoint]] = {}
        # canonical path -> {line: (breakpoint, ...)}, verified breakpoints only.
        self.lines_by_file: dict[str, dict[int, tuple[Breakpoint, ...]]] = {}
        self.functions = FunctionBreakpointStore(self.allocate_fresh_id)

    @property
    def lines_cache(self) -> ExecutableLinesCache:
        return self._lines_cache

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
        1-based ``line`` and optional ``condition``, ``hitCondition``, ``logMessage``)."""
        path = source.get("path")
        if not isinstance(path, str) or not path:
            raise ValueError("setBreakpoints needs source.path (an absolute file path)")
        canonical = canonical_path(path)
        executable: tuple[int, ...] = ()
        if is_debugger_path(canonical):
            # The debugger never traces itself (a stop there could deadlock it).
            file_error = "Breakpoints in the debugger's own code are not supported."
        else:
            try:
                executable = self._lines_cache.lines(path)
                file_error = None
            except SourceError as error:
                file_error = str(error)
        created = []
        with self._lock:
            used: set[int] = set()
            for spec in specs:
                created.append(self._make(source, canonical, spec, executable, file_error, used))
            self._by_file[canonical] = created
            self._publish()
        return created

    def _make(self, source, canonical, spec, executable, file_error, used) -> Breakpoint:
        requested = spec["line"]
        if file_error is not None:
            resolution_line, verified, message = requested, False, file_error
        else:
            resolution = resolve_line(executable, requested)
            resolution_line, verified = resolution.line, resolution.verified
            message = resolution.message
        breakpoint = Breakpoint(
            id=self._allocate_id((canonical, resolution_line), used),
            source=source,
            canonical=canonical,
            requested_line=requested,
            line=resolution_line,
            verified=verified,
            message=message,
        )
        try:
            if spec.get("condition"):
                breakpoint.condition = compile_condition(spec["condition"])
            if spec.get("hitCondition"):
                breakpoint.hit_condition = parse_hit_condition(spec["hitCondition"])
            if spec.get("logMessage"):
                breakpoint.log_template = parse_log_message(spec["logMessage"])
        except ExpressionError as error:
            breakpoint.verified = False
            breakpoint.message = str(error)
        return breakpoint

    def _publish(self) -> None:
        lines_by_file: dict[str, dict[int, tuple[Breakpoint, ...]]] = {}
        for canonical, breakpoints in self._by_file.items():
            for breakpoint in breakpoints:
                if breakpoint.verified:
                    per_line = lines_by_file.setdefault(canonical, {})
                    per_line[breakpoint.line] = per_line.get(breakpoint.line, ()) + (breakpoint,)
        self.lines_by_file = lines_by_file

    def clear(self) -> None:
        with self._lock:
            self._by_file.clear()
            self._publish()
        self.functions.clear()
