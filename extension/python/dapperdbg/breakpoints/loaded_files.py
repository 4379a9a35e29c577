"""Which source files have code in the process: the rule that decides whether a line
breakpoint is verified at once or when its module is imported.

A file is loaded when

- the tracer has looked at a code object of it (it does so once per code object, before
  the code's first line runs, and tells ``note``);
- a module in ``sys.modules`` has it as ``__file__`` (imported before tracing began,
  or by code the tracer never looked at);
- it is the launch's own program file (``launch.program``): the launcher compiles it
  and runs it as soon as ``configurationDone`` arrives, so its breakpoints are verified
  at once, as the user expects of the file they launched.
"""

from __future__ import annotations

from ..common.module_files import files_that_may_be
from ..common.paths import canonical_path


class LoadedFiles:
    def __init__(self) -> None:
        # Canonical paths known to be loaded. Only ever grows; ``note`` adds to it
        # without a lock (one set insertion is atomic), from any thread.
        self._seen: set[str] = set()
        self._program: str | None = None
        # A module's raw ``__file__`` -> its canonical path, so that scanning
        # sys.modules resolves each path once, not once a request.
        self._module_files: dict[str, str] = {}

    def set_program(self, path: str | None) -> None:
        self._program = canonical_path(path) if path else None

    def note(self, canonical: str) -> None:
        """The tracer saw code of ``canonical``."""
        self._seen.add(canonical)

    def seen(self, canonical: str) -> bool:
        """Whether the tracer (or an earlier ``contains``) found the file loaded."""
        return canonical in self._seen

    def contains(self, canonical: str) -> bool:
        """Whether code of the file exists in the process (or is certain to run first,
        for the program file). Scans sys.modules when the tracer has not seen it."""
        if canonical in self._seen or canonical == self._program:
            return True
        if self._imported(canonical):
            self._seen.add(canonical)
            return True
        return False

    def _imported(self, canonical: str) -> bool:
        resolved = self._module_files
        for filename in files_that_may_be(canonical):
            module_canonical = resolved.get(filename)
            if module_canonical is None:
                module_canonical = resolved[filename] = canonical_path(filename)
            if module_canonical == canonical:
                return True
        return False
