"""Hot reload: patch a loaded module's functions and classes in place from its new source,
without re-running its top-level statements; restart frames from the tracer.

Standard library only. Of the rest of dapper it uses common/ (source_texts.py: the texts
files were loaded from, which the launcher records for the main program before this
package is imported; start_freeze.py, before its walks over the collector's objects) and
instrumentation/restartable.py, to compile a reloaded function restartable. Who calls
what:
- the ``dapper/hotReload`` request handler: ``reload_file(path, frames=..., while_running=...)``
  -> ``ReloadResult.to_body()`` for the response and the ``dapper/hotReloadResult`` event, or
  ``ReloadError.to_body()`` (kind, message, line, column) for the error response;
- the first stop: ``remember_source(path)``, so a reload can name the top-level
  statements it did not re-run;
- the tracer, at each stop while ``pending()`` is not empty: ``apply_deferred(frames)``;
- the tracer, for ``restartFrame`` of the stopped thread's TOP frame only, at that frame's
  next 'line' event: ``plan_restart(frame, arguments=..., locals_writable=...)`` then
  ``RestartPlan.apply()``; ``capture_arguments(frame)`` at 'call' if it keeps snapshots;
- breakpoints / instrumentation: ``ReloadResult.replaced_codes`` lists (old, new) code."""

from .engine import apply_deferred, pending, reload_file, remember_source
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
from .stacks import replacement_of

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
