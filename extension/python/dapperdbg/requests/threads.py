"""The threads request: asked while the program runs (VS Code asks at
configurationDone and at every thread event), so kept apart from the inspection
requests and what they import."""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..session.debugger import Debugger


def threads(debugger: Debugger, arguments: dict):
    if "greenlet" in sys.modules:
        from . import greenlets

        if greenlets.shown(debugger):
            # gevent: each greenlet is a thread (docs/gevent.md).
            return {"threads": greenlets.threads(debugger)}
    threads = [{"id": thread_id, "name": thread.name}
               for thread_id, thread in debugger.user_threads()]
    if debugger.inspection.tasks_as_threads and "asyncio.tasks" in sys.modules:
        # asyncioTasksAsThreads: each task of the program's event loops after the threads.
        from .tasks import task_threads

        threads.extend(task_threads(debugger))
    return {"threads": threads}
