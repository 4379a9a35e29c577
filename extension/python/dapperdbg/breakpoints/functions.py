"""Function breakpoints: ``func``, ``module.func``, ``Class.method`` and
``package.module.Class.method``.

A name matches a code object when it equals the function's qualified name, or its
qualified name preceded by the name of a module the function's file is loaded as (or
the file's own stem, so that ``main.compute`` names ``compute`` in ``main.py`` run as
``__main__``). A plain name (no dot) also matches methods and nested functions of that
name. Breakpoints stop on the first line of the function's body, once per call.

On Python 3.9 and 3.10 code objects have no qualified name; there it is taken from the
function object that owns the code (found through the garbage collector, only for code
objects whose plain name matches a breakpoint, once each).
"""

from __future__ import annotations

import gc
import os
import sys

from ..common.interpreter_types import CodeType, FunctionType
from ..common.native import allocate_lock
from ..common.paths import canonical_path, is_debugger_path
from ..common.records import Record
from ..common.start_freeze import thaw_start_objects
from .expressions import ExpressionError, HitCondition, compile_condition, parse_hit_condition

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import types


class FunctionBreakpoint(Record, eq=False):
    id: int
    name: str
    verified: bool = False
    message: str | None = None
    condition: types.CodeType | None = None
    hit_condition: HitCondition | None = None
    # Set once the function is found: where it stops.
    source: dict | None = None
    line: int = 0
    hits: int = 0
    log_template = None
    condition_error_reported: bool = False

    def to_dap(self, line_offset: int) -> dict:
        result: dict = {"id": self.id, "verified": self.verified}
        if self.source is not None:
            result["source"] = self.source
            result["line"] = self.line - line_offset
        if self.message:
            result["message"] = self.message
        if not self.verified:
            # DAP's machine-readable reason, as for line breakpoints.
            result["reason"] = "pending" if self.message == NOT_FOUND_YET else "failed"
        return result


def qualified_name(code: types.CodeType) -> str:
    qualname = getattr(code, "co_qualname", None)
    if qualname is not None:
        return qualname
    thaw_start_objects([code.co_filename])  # A module imported before the program.
    for referrer in gc.get_referrers(code):
        if isinstance(referrer, FunctionType) and referrer.__code__ is code:
            return referrer.__qualname__
    return code.co_name


def first_body_line(code: types.CodeType) -> int:
    """The line a function breakpoint reports: the first line after the ``def``."""
    import dis

    lines = sorted({line for _, line in dis.findlinestarts(code) if line})
    after_def = [line for line in lines if line > code.co_firstlineno]
    return after_def[0] if after_def else code.co_firstlineno


def parse_name(name) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ExpressionError(f"A function breakpoint needs a function name, got {name!r}")
    name = name.strip()
    if not all(part.isidentifier() or part == "<module>" for part in name.split(".")):
        raise ExpressionError(
            f"Invalid function name {name!r}: expected func, module.func or Class.method"
        )
    return name


class FunctionBreakpointStore:
    """The function breakpoints of the session. ``active`` is replaced, never mutated,
    so the tracer can read it without a lock."""

    def __init__(self, allocate_id) -> None:
        self._allocate_id = allocate_id
        self._ids: dict[str, int] = {}
        self._lock = allocate_lock()
        self.active: tuple[FunctionBreakpoint, ...] = ()
        self._modules_by_file: dict[str, set[str]] = {}

    def set_breakpoints(self, specs: list[dict]) -> list[FunctionBreakpoint]:
        created = []
        with self._lock:
            for spec in specs:
                created.append(self._make(spec))
            self._modules_by_file = {}
            self.active = tuple(bp for bp in created if bp.message is None or bp.verified
                                or bp.message == NOT_FOUND_YET)
        for breakpoint in created:
            if breakpoint.message == NOT_FOUND_YET:
                self._find_loaded(breakpoint)
        return created

    def _make(self, spec: dict) -> FunctionBreakpoint:
        raw = spec.get("name")
        key = raw.strip() if isinstance(raw, str) else repr(raw)
        bp_id = self._ids.get(key)
        if bp_id is None:
            bp_id = self._ids[key] = self._allocate_id()
        breakpoint = FunctionBreakpoint(id=bp_id, name=key, message=NOT_FOUND_YET)
        try:
            breakpoint.name = parse_name(raw)
            if spec.get("condition"):
                breakpoint.condition = compile_condition(spec["condition"])
            if spec.get("hitCondition"):
                breakpoint.hit_condition = parse_hit_condition(spec["hitCondition"])
        except ExpressionError as error:
            breakpoint.message = str(error)
        return breakpoint

    def clear(self) -> None:
        with self._lock:
            self.active = ()

    # Matching code objects (called by the tracer, once per code object).

    def _module_names(self, canonical: str) -> set[str]:
        names = self._modules_by_file.get(canonical)
        if names is None:
            stem = os.path.splitext(os.path.basename(canonical))[0]
            names = {stem}
            for module_name, module in list(sys.modules.items()):
                filename = getattr(module, "__file__", None)
                if isinstance(filename, str) and canonical_path(filename) == canonical:
                    names.add(module_name)
            self._modules_by_file[canonical] = names
        return names

    def matching(self, code: types.CodeType, canonical: str) -> tuple[FunctionBreakpoint, ...]:
        name = code.co_name
        candidates = [bp for bp in self.active if bp.name.rsplit(".", 1)[-1] == name]
        if not candidates:
            return ()
        qualname = qualified_name(code)
        return tuple(bp for bp in candidates if self._matches(bp.name, code, qualname, canonical))

    def _matches(self, name, code, qualname, canonical) -> bool:
        if "." not in name:
            return code.co_name == name
        if name == qualname:
            return True
        if not name.endswith("." + qualname):
            return False
        module = name[: -len(qualname) - 1]
        return module in self._module_names(canonical)

    # Verifying.

    def found(self, breakpoint: FunctionBreakpoint, code: types.CodeType) -> bool:
        """Mark a breakpoint verified at ``code``; True if it was not verified before."""
        if breakpoint.verified:
            return False
        breakpoint.verified = True
        breakpoint.message = None
        path = os.path.abspath(code.co_filename)
        breakpoint.source = {"name": os.path.basename(path), "path": path}
        breakpoint.line = first_body_line(code)
        return True

    def _find_loaded(self, breakpoint: FunctionBreakpoint) -> None:
        """Verify a breakpoint at once when its function is already loaded."""
        parts = breakpoint.name.split(".")
        for split in range(len(parts) - 1, -1, -1):
            module_name, attributes = ".".join(parts[:split]), parts[split:]
            modules = [sys.modules.get(module_name)] if module_name else [
                sys.modules.get("__main__")
            ]
            for module in modules:
                target = module
                for attribute in attributes:
                    try:
                        target = getattr(target, attribute, None) if target is not None else None
                    except Exception:  # A module's __getattr__ may raise anything.
                        target = None
                code = getattr(getattr(target, "__func__", target), "__code__", None)
                # Before the program starts, __main__ is the launcher: never match it.
                if isinstance(code, CodeType) and not is_debugger_path(
                        canonical_path(code.co_filename)):
                    self.found(breakpoint, code)
                    return


NOT_FOUND_YET = "The function is not loaded yet."
