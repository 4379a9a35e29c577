"""What the debugger's parts (stops.py, hot_reload.py, exception_breakpoints.py,
frame_restart.py, foreign_code.py) use of the Debugger they serve: the type of their
``debugger``, for annotations only. Imported under TYPE_CHECKING, never at run time; it
names the debugger's own module nowhere, so the parts do not depend on it even for their
types."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..breakpoints.store import BreakpointStore
    from ..common.paths import PathCache
    from ..inspection.inspector import Inspector
    from ..inspection.settings import InspectionSettings
    from ..instrumentation.breakpoint_probes import BreakpointProbes
    from ..ipc.connection import Connection
    from ..tracing.base import Tracer
    from .threads import StoppedThread, ThreadRegistry


class StopsPart(Protocol):
    """What the other parts use of stops.py's ``Stops``."""

    def stopped_threads(self) -> list[StoppedThread]: ...

    def resume_raising(self, stopped: StoppedThread, exception: BaseException) -> bool: ...


class DebuggerParts(Protocol):
    tracer: Tracer
    threads: ThreadRegistry
    probes: BreakpointProbes
    connection: Connection
    store: BreakpointStore
    paths: PathCache
    inspector: Inspector
    inspection: InspectionSettings
    busy: set[int]
    step_in_targets: dict[int, tuple[int, types.FrameType, str]]

    @property
    def line_offset(self) -> int: ...

    @property
    def stops(self) -> StopsPart: ...

    def settle_tracing(self) -> None: ...

    @property
    def detached(self) -> bool: ...

    def forget_inspection(self) -> None: ...

    def breakpoints_changed(self) -> None: ...

    def announce_verified(self, breakpoints: list) -> None: ...

    def file_loaded(self, canonical: str) -> None: ...

    def send_output(self, text: str, category: str = "console", **extra) -> None: ...
