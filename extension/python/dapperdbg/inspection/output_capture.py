"""What the program writes to sys.stdout / sys.stderr, as DAP ``output`` events, when
the host cannot see it (docs/ipc.md, "redirectOutput and the console").

With ``console: internalConsole`` the host reads the process's pipes, so nothing is
installed here. With a terminal console the text goes to the terminal as always, and
is also sent as ``output`` events (category stdout / stderr) when ``redirectOutput``
is true, or when it is written by code the user runs from the debug console (so that
``print`` typed there answers there, not in a terminal the user is not looking at).
"""

from __future__ import annotations

import sys

from ..common.native import get_ident
from ..common.output import TERMINAL_CONSOLES

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    from collections.abc import Callable

class StreamTee:
    """A text stream that writes to the original and reports the text."""

    def __init__(self, original, category: str, report: Callable[[str, str], None],
                 always: bool, capturing: set[int]) -> None:
        self._original = original
        self._category = category
        self._report = report
        self._always = always
        self._capturing = capturing

    def write(self, text):
        written = self._original.write(text)
        if isinstance(text, str) and text and (
            self._always or get_ident() in self._capturing
        ):
            # Reporting must never break the program's own write.
            try:
                self._report(self._category, text)
            except Exception:
                pass
        return written

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        return self._original.flush()

    def __getattr__(self, name):
        # encoding, fileno, isatty, flush, buffer…: the original stream's.
        return getattr(self._original, name)


class OutputCapture:
    def __init__(self, report: Callable[[str, str], None]) -> None:
        self._report = report
        self._capturing: set[int] = set()
        self.installed = False

    def configure(self, launch: dict) -> None:
        """Install the tees when the launch configuration calls for them."""
        if self.installed or launch.get("console") not in TERMINAL_CONSOLES:
            return
        always = launch.get("redirectOutput") is True
        for name, category in (("stdout", "stdout"), ("stderr", "stderr")):
            original = getattr(sys, name)
            if original is not None:
                setattr(sys, name, StreamTee(original, category, self._report, always,
                                             self._capturing))
        self.installed = True

    def uninstall(self) -> None:
        """Give the program its own streams back (a detach from a process attached to by
        its id), unless it replaced them since."""
        for name in ("stdout", "stderr"):
            stream = getattr(sys, name)
            if isinstance(stream, StreamTee):
                setattr(sys, name, stream._original)
        self.installed = False

    def capturing(self) -> _Capturing:
        """While active, what the calling thread writes is reported (if installed)."""
        return _Capturing(self._capturing)


class _Capturing:
    """The context manager of ``OutputCapture.capturing``."""

    def __init__(self, capturing: set[int]) -> None:
        self._capturing = capturing
        self._ident = 0

    def __enter__(self) -> None:
        self._ident = get_ident()
        self._capturing.add(self._ident)

    def __exit__(self, *exc_info) -> None:
        self._capturing.discard(self._ident)
        try:
            sys.stdout.flush()
        except Exception:
            return
