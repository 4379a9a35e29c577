"""Path identity: which files are the same file, and which files are the debugger's."""

from __future__ import annotations

import os

# The package's directory with a separator after it, and runpy.py beside os.py in the
# standard library (runpy itself is not imported for its name: on 3.9-3.10 it imports
# typing), both resolved at the first question: resolving takes an lstat of each folder
# of the path, and a child that runs dormant never asks.
_package_prefix: str | None = None
_runpy_file: str | None = None


# Whether paths compare as written (``normcase`` changes nothing, as on POSIX): then a
# path whose file name is a given one ends with it, which a scan of every loaded module
# asks first, before the file name is taken apart.
NAMES_AS_WRITTEN = os.path.normcase("Aa/") == "Aa/"


# A directory's resolved path, by its absolute path: resolving a path takes an lstat of
# each of its directories (seven for a standard-library module), and every file with
# breakpoints is asked about by several parts of the debugger in every process (a child
# gets all of the session's breakpoints). A directory that becomes a link, or another
# link, during the process is not seen: as the tracer's ``PathCache`` does not see it
# for a file either. Emptied when full, so it never grows past this.
# (POSIX only: Windows resolves short names and junctions of the last part too.)
_RESOLVE_BY_DIRECTORY = os.name == "posix"
_resolved_dirs: dict[str, str] = {}
_RESOLVED_DIRS_LIMIT = 4096


def canonical_path(path: str) -> str:
    """The key under which breakpoints and code objects are matched: absolute, symlinks
    resolved, case-folded where the file system folds case."""
    absolute = os.path.abspath(path)
    directory, name = os.path.split(absolute)
    # ``abspath`` folds ``..`` as text, where resolving follows a link before its ``..``:
    # a path that had one is resolved whole.
    if not _RESOLVE_BY_DIRECTORY or not name or os.pardir in path:
        return os.path.normcase(os.path.realpath(path))
    resolved = _resolved_dirs.get(directory)
    if resolved is None:
        if len(_resolved_dirs) >= _RESOLVED_DIRS_LIMIT:
            _resolved_dirs.clear()
        resolved = _resolved_dirs[directory] = os.path.realpath(directory)
    joined = os.path.join(resolved, name)
    if os.path.islink(joined):
        joined = os.path.realpath(joined)
    return os.path.normcase(joined)


def is_debugger_path(canonical: str) -> bool:
    """True for the files of this package: the debugger never traces or shows them."""
    global _package_prefix
    prefix = _package_prefix
    if prefix is None:
        # This file is dapperdbg/common/paths.py.
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        prefix = _package_prefix = os.path.normcase(os.path.realpath(package)) + os.sep
    return canonical.startswith(prefix)


def is_runpy_path(canonical: str) -> bool:
    global _runpy_file
    runpy_file = _runpy_file
    if runpy_file is None:
        runpy_file = _runpy_file = os.path.normcase(os.path.realpath(
            os.path.join(os.path.dirname(os.__file__), "runpy.py")))
    return canonical == runpy_file


def is_synthetic_filename(filename: str) -> bool:
    """Code compiled from a string (``<string>``) or frozen (``<frozen importlib…>``)."""
    return filename.startswith("<") and filename.endswith(">")


class PathCache:
    """Maps raw ``co_filename`` values to canonical paths, computing each once. Lookups
    from the tracer's hot path are a plain dict ``get``."""

    def __init__(self) -> None:
        self._canonical: dict[str, str] = {}
        # The cached canonical path of a filename, or None: a plain dict ``get``, for
        # the tracer's hot path.
        self.lookup = self._canonical.get

    def canonical(self, filename: str) -> str:
        canonical = self._canonical.get(filename)
        if canonical is None:
            canonical = filename if is_synthetic_filename(filename) else canonical_path(filename)
            self._canonical[filename] = canonical
        return canonical
