"""Dapper's debuggee side: the launcher, the tracer and the IPC client that run inside
the program being debugged. Standard library only. The packages and their roles are
listed in extension/python/README.md."""

import sys as _sys

__version__ = "0.1.0"

# The version of the IPC conversation this package speaks (docs/ipc.md): the
# ``protocol`` of every hello (session/link.py), so that the engine can tell a debuggee
# package of another version.
PROTOCOL_VERSION = 1

# The package's own modules are compiled once and cached beside them even when the
# user's environment sets PYTHONDONTWRITEBYTECODE (usual in containers): that setting is
# about the user's folders, and compiling this package again costs ~100 ms on every start
# of a debug session. The entry points put the user's setting back before their code
# runs (restore_bytecode_setting).
_users_dont_write_bytecode = _sys.dont_write_bytecode
_sys.dont_write_bytecode = False


def restore_bytecode_setting() -> None:
    """Give the program the bytecode-writing setting its environment asked for."""
    _sys.dont_write_bytecode = _users_dont_write_bytecode
