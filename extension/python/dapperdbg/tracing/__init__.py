"""Tracer backends behind one interface (``Tracer`` in base.py), chosen by version:
``sys.monitoring`` on 3.12+, ``sys.settrace`` before. ``DAPPER_TRACER=settrace`` (or
``monitoring``) in the launcher's environment forces one."""

from __future__ import annotations

from ..common.paths import PathCache
from ..common.tracer_choice import BACKENDS, choose_backend_name, is_free_threaded
from .base import ToolIdInUse, Tracer
from .host import TracerHost
from .steps import StepState


def backend_class(name: str) -> type[Tracer]:
    """The class of the backend ``name``, whose module alone is imported: a process runs
    one."""
    if name == "monitoring":
        from .monitoring import MonitoringTracer

        return MonitoringTracer
    from .settrace import SettraceTracer

    return SettraceTracer


def create_tracer(name: str, store, host: TracerHost, paths: PathCache | None = None) -> Tracer:
    """The backend ``name``'s tracer."""
    return backend_class(name)(store, host, paths)


__all__ = ["BACKENDS", "StepState", "ToolIdInUse", "Tracer", "TracerHost", "backend_class",
           "choose_backend_name", "create_tracer", "is_free_threaded"]
