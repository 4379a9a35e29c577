"""Regular expressions compiled at their first use: ``re`` (with ``enum``, which it
imports) costs a debugged process about 2 ms to import at start and more to tear down
at exit, and most processes never use these patterns."""

from __future__ import annotations

from .stop_imports import import_at_first_stop

TYPE_CHECKING = False  # typing's own import costs every debugged process.
if TYPE_CHECKING:
    import re


class LazyPattern:
    """Stands for ``re.compile(source)``: its methods (``match``, ``search``…) compile the
    pattern the first time one is looked up. Two threads may both compile it, to the
    same result."""

    __slots__ = ("_compiled", "_source")

    def __init__(self, source: str | bytes) -> None:
        self._source = source
        self._compiled: re.Pattern | None = None

    def __getattr__(self, name: str):
        compiled = self._compiled
        if compiled is None:
            import re

            compiled = self._compiled = re.compile(self._source)
        return getattr(compiled, name)


# A hit condition may be compiled on the IPC thread while threads are stopped
# (common/stop_imports.py says why that must not import).
import_at_first_stop("re")
