"""The threads request: asked while the program runs (VS Code asks at
configurationDone and at every thread event), so kept apart from the inspection
requests and what they import."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..session.debugger import Debugger


def threads(debugger: Debugger, arguments: dict):
    return {"threads": [{"id": thread_id, "name": thread.name}
                        for thread_id, thread in debugger.user_threads()]}
