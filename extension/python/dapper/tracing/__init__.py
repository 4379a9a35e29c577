"""Tracer backends behind one interface (``Tracer`` in base.py), chosen by version:
``sys.monitoring`` on 3.12+, ``sys.settrace`` before. ``DAPPER_TRACER=settrace`` (or
``monitoring``) in the launcher's environment forces one."""

from __future__ import annotations

import sys

from ..common.paths import PathCache
from .base import StepState, Tracer, TracerHost
from .monitoring import MonitoringTracer
from .settrace import SettraceTracer

BACKENDS = ("monitoring", "settrace")


def choose_backend_name(requested: str | None) -> str:
    """The backend to use. Raises ValueError for an unknown or unavailable request."""
    available = hasattr(sys, "monitoring")
    if requested:
        if requested not in BACKENDS:
            raise ValueError(
                f"DAPPER_TRACER={requested!r} is not a tracer backend "
                f"(expected one of {', '.join(BACKENDS)})"
            )
        if requested == "monitoring" and not available:
            raise ValueError("DAPPER_TRACER=monitoring needs Python 3.12 or newer")
        return requested
    return "monitoring" if available else "settrace"


def create_tracer(name: str, store, host: TracerHost, paths: PathCache | None = None) -> Tracer:
    if name == "monitoring":
        return MonitoringTracer(store, host, paths)
    return SettraceTracer(store, host, paths)


__all__ = ["StepState", "Tracer", "TracerHost", "choose_backend_name", "create_tracer",
           "MonitoringTracer", "SettraceTracer"]
