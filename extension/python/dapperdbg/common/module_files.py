"""The modules in ``sys.modules`` by the name of their file, for the questions asked of
every file with breakpoints: is a module of it loaded, and which one.

A child process gets every breakpoint of the session (VS Code sends them to each
session), often in twenty files: asked by a loop over ``sys.modules`` for each file, and
by two parts of the debugger (whether the breakpoints are verified, and whether live code
needs the probes), that was 3.5 ms of each child's start on 3.12. The index is made
again only when the modules' files are not those it was made of, and extended when
modules were only added after them (the usual change: an import); a file is then a
dictionary lookup. It holds paths only, never a module: a module the program lets go of
is freed as it is without the debugger.

A module may be the file under another name only through a link (the path it was
imported by ends in a link of another name): whether a module's path is a link is asked
once a path (an ``lstat``), and such modules are candidates for every file. The
debugger's own modules (most of a child's modules while it starts, a dozen of them
``__init__.py``) are left out: breakpoints in the debugger's files are refused before
anything asks (breakpoints/store.py, instrumentation/live.py), and no other file is one
of them under another name.

Reading every module's file to compare takes about 15 us (3.12, 130 modules), and a
child's start asked it some thirty times for twenty breakpoints. While the launcher
configures the process, before its program's first line, no code of the program runs
(``program_waits`` until ``program_runs``): ``sys.modules`` then only grows, with the
debugger's own imports (or those of a thread that a ``sitecustomize`` started), and the
index is taken as current while the count of modules is the one it was made of. From the
program's first line on, every question compares the files again.
"""

from __future__ import annotations

import os
import sys

# ``__file__`` -> whether that path is a link; once a path, for the life of the process
# (as a path's resolution is, common/paths.py). Emptied when full (a program that makes
# modules without end, in new folders, say), so it never grows past this.
_link_by_filename: dict[str, bool] = {}
_LINKS_REMEMBERED = 1 << 16


def is_link(filename: str) -> bool:
    link = _link_by_filename.get(filename)
    if link is None:
        if len(_link_by_filename) >= _LINKS_REMEMBERED:
            _link_by_filename.clear()
        link = _link_by_filename[filename] = os.path.islink(filename)
    return link


def known_not_link(filename: str) -> bool:
    """Whether ``filename`` was found to be no link (without asking the file system)."""
    return _link_by_filename.get(filename) is False


# The start of the path of every file of this package (dapperdbg/common/module_files.py),
# as the import system names them.
_OWN_FILES = os.path.dirname(os.path.dirname(__file__)) + os.sep


class _Index:
    __slots__ = ("files", "by_name", "links", "count")

    def __init__(self, files: list, by_name: dict[str, list[str]], links: list[str]) -> None:
        self.files = files
        self.by_name = by_name
        self.links = links
        # len(sys.modules) when ``files`` was last found to be every module's file.
        self.count = len(files)


_index = _Index([], {}, [])
# Whether code of the program may run (so change sys.modules in any way): true but
# while a launcher configures its process.
_program_may_run = True


def program_waits() -> None:
    """The launcher configures the process: no code of the program runs until
    ``program_runs``."""
    global _program_may_run
    _program_may_run = False


def program_runs() -> None:
    global _program_may_run
    _program_may_run = True


def _module_files(modules: list) -> list:
    """Each module's ``__file__`` where it is a string, else None (so that comparing two
    of these lists runs no code of the program's)."""
    try:
        files = [getattr(module, "__file__", None) for module in modules]
    except Exception:  # A module's __getattr__ may raise anything.
        files = [_file_of(module) for module in modules]
    return [file if isinstance(file, str) else None for file in files]


def _file_of(module) -> object:
    try:
        return getattr(module, "__file__", None)
    except Exception:
        return None


def _current() -> _Index:
    global _index
    index = _index
    if not _program_may_run and index.count == len(sys.modules):
        return index
    files = _module_files(list(sys.modules.values()))
    known = len(index.files)
    if files[:known] == index.files:
        if len(files) == known:
            index.count = known
            return index
        # Modules were imported, none let go of or replaced (the usual change): the
        # index of the earlier ones holds, and is extended (a new one, as a thread may be
        # reading the old).
        by_name = dict(index.by_name)
        links = list(index.links)
        new = files[known:]
    else:
        by_name = {}
        links = []
        new = files
    for filename in new:
        if not filename or filename.startswith(_OWN_FILES):
            continue
        name = os.path.normcase(os.path.basename(filename))
        by_name[name] = [*by_name.get(name, ()), filename]
        if is_link(filename):
            links.append(filename)
    index = _index = _Index(files, by_name, links)
    return index


def files_that_may_be(canonical: str) -> list[str]:
    """The ``__file__`` of each loaded module that may be the file ``canonical``: those of
    its file name, and those imported through a link. The caller resolves them to be
    sure."""
    index = _current()
    named = index.by_name.get(os.path.normcase(os.path.basename(canonical)), [])
    if not index.links:
        return named
    return named + [filename for filename in index.links if filename not in named]
