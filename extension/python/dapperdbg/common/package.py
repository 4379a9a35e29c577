"""What the package is, for its own parts: the IPC protocol version it speaks, and how
its own bytecode is cached. Kept here rather than in ``dapperdbg/__init__.py`` so that no
module imports the package's top level, whose in-code API (listen, connect…) imports
the launcher; the top level only sets the user's bytecode setting aside as it is
imported, first of all the package's modules.
"""

from __future__ import annotations

import os
import sys

# The version of the IPC conversation this package speaks (docs/ipc.md): the
# ``protocol`` of every hello (session/link.py), so that the engine can tell a debuggee
# package of another version.
PROTOCOL_VERSION = 1


def restore_bytecode_setting() -> None:
    """Give the program the bytecode-writing setting its environment asked for, which
    the package's top level (dapperdbg/__init__.py) set aside as it was imported: the
    package's own modules are compiled once and cached beside them even where the user's
    environment sets PYTHONDONTWRITEBYTECODE (usual in containers), a setting about the
    user's folders, as compiling this package again would cost ~100 ms on every start of
    a debug session. Where the user's setting says not to write bytecode, the package's
    modules that were not imported yet (what a stop, a breakpoint or a child needs:
    imported when needed) have theirs written first, once, so that no process compiles
    them again."""
    users_setting = getattr(sys.modules.get(_PACKAGE), "_users_bytecode_setting", None)
    if users_setting is None:
        return
    if users_setting and not os.path.exists(_COMPLETE_MARK):
        _cache_package_bytecode()
    sys.dont_write_bytecode = users_setting


# The package's top level, which sets the user's setting aside as it is imported.
_PACKAGE = __name__.partition(".")[0]
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Written once every module of the package has its bytecode for this Python.
_COMPLETE_MARK = os.path.join(_PACKAGE_DIR, "__pycache__",
                              f"all-cached.{sys.implementation.cache_tag}")


def _cache_package_bytecode() -> None:
    """Compile and cache every module of the package that has no bytecode yet, then
    write the mark. A read-only installation is left as it is: the import system then
    compiles in memory, as it did."""
    from importlib.machinery import SourceFileLoader
    from importlib.util import cache_from_source

    for directory, _, names in os.walk(_PACKAGE_DIR):
        for name in names:
            path = os.path.join(directory, name)
            try:
                if name.endswith(".py") and not os.path.exists(cache_from_source(path)):
                    SourceFileLoader("dapperdbg_bytecode", path).get_code("dapperdbg_bytecode")
            except Exception:  # A module that cannot be read or compiled: its import says so.
                continue
    try:
        with open(_COMPLETE_MARK, "x"):
            pass
    except OSError:  # Written by another process meanwhile, or a read-only installation.
        pass
