"""Hot reload: patch a loaded module's functions and classes in place from its new source,
without re-running its top-level statements; restart frames from the tracer.

Standard library only, and nothing from the rest of dapper: the request layer calls
``reload_file``/``apply_deferred``, the tracer calls ``plan_restart`` from a line event."""

from .engine import apply_deferred, pending, reload_file, remember_source, replacement_of
from .errors import (
    COMPILE_ERROR,
    NOT_A_PYTHON_SOURCE,
    NOT_LOADED,
    OldCodeFrame,
    Refusal,
    ReloadError,
    ReloadResult,
)
from .restart import RestartPlan, RestartRefusal, capture_arguments, plan_restart

__all__ = [
    "COMPILE_ERROR",
    "NOT_A_PYTHON_SOURCE",
    "NOT_LOADED",
    "OldCodeFrame",
    "Refusal",
    "ReloadError",
    "ReloadResult",
    "RestartPlan",
    "RestartRefusal",
    "apply_deferred",
    "capture_arguments",
    "pending",
    "plan_restart",
    "reload_file",
    "remember_source",
    "replacement_of",
]
