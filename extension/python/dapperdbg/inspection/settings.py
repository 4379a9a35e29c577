"""How the client is shown frames and values: what dapper/configure sets before any
frame is inspected, kept apart from the inspector (inspector.py), which a process
makes only once it stops or is asked about a frame (common/stop_imports.py)."""

from __future__ import annotations

from .sources import SourceRegistry


class InspectionSettings:
    def __init__(self) -> None:
        # The files and texts behind the frames' sources (source references).
        self.sources = SourceRegistry()
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
