"""The reload's results and its one error type (DAP camelCase at the edge only)."""

from __future__ import annotations

from dataclasses import dataclass, field

NOT_A_PYTHON_SOURCE = "not-a-python-source"
NOT_LOADED = "not-loaded"
COMPILE_ERROR = "compile-error"


class ReloadError(Exception):
    """The reload did not happen and nothing was changed.

    ``kind`` is one of ``not-a-python-source``, ``not-loaded``, ``compile-error``;
    a compile error also carries the compiler's ``line``, ``column`` and ``message``."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        path: str,
        line: int | None = None,
        column: int | None = None,
    ):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.path = path
        self.line = line
        self.column = column

    def to_body(self) -> dict:
        body = {"kind": self.kind, "message": self.message, "path": self.path}
        if self.line is not None:
            body["line"] = self.line
        if self.column is not None:
            body["column"] = self.column
        return body


@dataclass(frozen=True)
class OldCodeFrame:
    """A frame on some thread's stack that still runs a replaced code object."""

    thread_id: int
    thread_name: str
    function: str
    line: int

    def to_body(self) -> dict:
        return {
            "threadId": self.thread_id,
            "thread": self.thread_name,
            "function": self.function,
            "line": self.line,
        }


@dataclass(frozen=True)
class Refusal:
    """One definition left as it was, and why."""

    qualname: str
    reason: str

    def __str__(self) -> str:
        return f"{self.qualname}: {self.reason}"


@dataclass
class ReloadResult:
    path: str
    reloaded_module: str
    rebound_frames: int = 0
    updated_frame_codes: int = 0
    warnings: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    # Patched only so that their line numbers stay right (an edit above them).
    moved: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    deferred: list[str] = field(default_factory=list)
    frames_running_old_code: list[OldCodeFrame] = field(default_factory=list)
    duration_ms: float = 0.0
    # (old code, new code) for every code object replaced, for the tracer and the
    # instrumentation (not part of the DAP body).
    replaced_codes: list = field(default_factory=list)

    def to_body(self) -> dict:
        """The DAP body of ``dapper/hotReloadResult`` (and of the request's response)."""
        return {
            "path": self.path,
            "reloadedModule": self.reloaded_module,
            "reboundFrames": self.rebound_frames,
            "updatedFrameCodes": self.updated_frame_codes,
            "warnings": list(self.warnings),
            "updated": list(self.updated),
            "moved": list(self.moved),
            "added": list(self.added),
            "removed": list(self.removed),
            "refused": [{"name": r.qualname, "reason": r.reason} for r in self.refused],
            "deferred": list(self.deferred),
            "framesRunningOldCode": [f.to_body() for f in self.frames_running_old_code],
            "durationMs": round(self.duration_ms, 3),
        }
