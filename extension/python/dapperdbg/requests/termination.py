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
    how = ending(force, signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None))
    # Stopped threads are released first: a program stopped at a breakpoint must be able
    # to run its SIGTERM handler.
    debugger.detach()
    if how == "handler":
        raise_sigterm()
        return
    flush_output()
    status = KILLED_STATUS if force else TERMINATED_STATUS
    debugger.connection.send_event("dapper/exiting", {"exitCode": status})
    debugger.connection.close()
    if how == "exit":
        os._exit(status)
    os.kill(os.getpid(), signal.SIGTERM)


def ending(force: bool, has_handler: bool, os_name: str = os.name) -> str:
    """How ``end_program`` ends the program: "handler" (SIGTERM for the program's own
    handler, which decides), "signal" (SIGTERM's default action, the status announced
    first) or "exit" (``os._exit`` with the status). Windows has no signal that ends a
    process gently (``os.kill`` there is TerminateProcess), so a program without a
    handler exits there with the status a shell would show for SIGTERM."""
    if force:
        return "exit"
    if has_handler:
        return "handler"
    return "exit" if os_name == "nt" else "signal"


def raise_sigterm(os_name: str = os.name) -> None:
    """SIGTERM for this process's own handler. ``os.kill`` on Windows would end the
    process at once without it; ``raise_signal`` runs the handler there as C's raise()
    does (the main thread then calls the Python handler), as SIGTERM does on POSIX."""
    if os_name == "nt":
        signal.raise_signal(signal.SIGTERM)
    else:
        os.kill(os.getpid(), signal.SIGTERM)
