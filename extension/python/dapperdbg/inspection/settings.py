"""How the client is shown frames and values: what dapper/configure sets before any
frame is inspected, kept apart from the inspector (inspector.py), which a process
makes only once it stops or is asked about a frame (common/stop_imports.py)."""

from __future__ import annotations

from ..common.native import allocate_lock, made_once

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from .sources import SourceRegistry


class InspectionSettings:
    def __init__(self) -> None:
        self._sources: SourceRegistry | None = None
        self._sources_lock = allocate_lock()
        self.line_offset = 0  # 1 when the client counts lines from 0
        self.column_offset = 0
        self.show_return_value = False
        # With justMyCode, library frames are shown de-emphasised in the call stack.
        self.just_my_code = True
        # asyncioTasksAsThreads: each asyncio task is a thread of its own (docs/async.md).
        self.tasks_as_threads = False
        # gevent: greenlets are threads (docs/gevent.md), also without monkey-patching.
        self.gevent = False
        # The stdout/stderr tees (output_capture), set up by dapper/configure.
        self.output = None

    @property
    def sources(self) -> SourceRegistry:
        """The files and texts behind the frames' sources (source references), made at
        their first use, as the inspector is."""
        sources = self._sources
        if sources is None:
            sources = made_once(self, "_sources", self._sources_lock, _make_sources)
        return sources


def _make_sources() -> SourceRegistry:
    from .sources import SourceRegistry

    return SourceRegistry()
