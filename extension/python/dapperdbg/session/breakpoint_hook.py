"""``breakpoint()`` under the debugger: it stops the calling thread in the debugger, where
a plain interpreter would enter pdb (``sys.breakpointhook``).

PYTHONBREAKPOINT is honoured as the interpreter's own hook reads it, at each call: "0"
turns ``breakpoint()`` off and the dotted name of a callable calls that one (both through
``sys.__breakpointhook__``, which does exactly that); unset or empty (or ignored, under
-E and -I) means the debugger. A hook the program installs itself replaces this one, as
it would replace pdb.
"""

from __future__ import annotations

import os
import sys

# The debugger of this process's session; a fork child's session replaces its parent's.
_debugger = None


def install(debugger) -> None:
    """Called once the tracer runs (the program, a child or a fork child is traced)."""
    global _debugger
    _debugger = debugger
    if sys.breakpointhook is sys.__breakpointhook__:
        sys.breakpointhook = _breakpointhook


def uninstall() -> None:
    """Give ``breakpoint()`` back to pdb (a detach from a process attached to by its id)."""
    global _debugger
    _debugger = None
    if sys.breakpointhook is _breakpointhook:
        sys.breakpointhook = sys.__breakpointhook__


def current_debugger():
    """The debugger tracing this process (a launched program, a child, an attached one),
    or None."""
    return _debugger


def _breakpointhook(*args, **kwargs):
    chosen = None if sys.flags.ignore_environment else os.environ.get("PYTHONBREAKPOINT")
    if chosen:
        return sys.__breakpointhook__(*args, **kwargs)
    debugger = _debugger
    if debugger is not None:
        # breakpoint() is a built-in: the frame that called it is the hook's caller.
        debugger.breakpoint_called(sys._getframe(1))
    return None
