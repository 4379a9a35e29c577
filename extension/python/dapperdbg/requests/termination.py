"""``dapper/terminate``: how the engine ends a program the user started, or a child of
one. It never signals such a process by its pid, which may be on another machine or be
only the process's own word; the program is asked to end itself, as SIGTERM would (its
handler runs) or, with ``force``, at once as SIGKILL would."""

from __future__ import annotations

import os
import signal
from typing import TYPE_CHECKING

from ..common.output import flush_output
from .handling import Then

if TYPE_CHECKING:
    from ..session.debugger import Debugger

# The statuses a shell reports for SIGTERM and SIGKILL.
TERMINATED_STATUS = 128 + 15
KILLED_STATUS = 128 + 9


def terminate(debugger: Debugger, arguments: dict):
    force = arguments.get("force") is True
    return Then({}, lambda: end_program(debugger, force))


def end_program(debugger: Debugger, force: bool) -> None:
    """``dapper/terminate``: end the program as SIGTERM would (its handler runs, if it
    has one) or, with ``force``, at once as SIGKILL would. The exit status is announced
    first whenever the program will not get to announce it itself."""
    handled = not force and signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None)
    # Stopped threads are released first: a program stopped at a breakpoint must be able
    # to run its SIGTERM handler.
    debugger.detach()
    if handled:
        os.kill(os.getpid(), signal.SIGTERM)
        return
    flush_output()
    status = KILLED_STATUS if force else TERMINATED_STATUS
    debugger.connection.send_event("dapper/exiting", {"exitCode": status})
    debugger.connection.close()
    if force or os.name == "nt":
        os._exit(status)
    os.kill(os.getpid(), signal.SIGTERM)
