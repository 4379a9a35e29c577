"""What the package is, for its own parts: the IPC protocol version it speaks, and how
its own bytecode is cached. Kept here rather than in ``dapperdbg/__init__.py`` so that no
module imports the package's top level, whose in-code API (listen, connect…) imports
the launcher.
"""

from __future__ import annotations

import sys

# The version of the IPC conversation this package speaks (docs/ipc.md): the
# ``protocol`` of every hello (session/link.py), so that the engine can tell a debuggee
# package of another version.
PROTOCOL_VERSION = 1

# The user's PYTHONDONTWRITEBYTECODE setting, while the package's modules are cached
# (keep_package_bytecode); None until the package is first imported.
_users_setting: bool | None = None


def keep_package_bytecode() -> None:
    """The package's own modules are compiled once and cached beside them even when the
    user's environment sets PYTHONDONTWRITEBYTECODE (usual in containers): that setting
    is about the user's folders, and compiling this package again costs ~100 ms on every
    start of a debug session. The entry points (and the in-code API) put the user's
    setting back before the user's code runs again (restore_bytecode_setting)."""
    global _users_setting
    if _users_setting is None:
        _users_setting = sys.dont_write_bytecode
        sys.dont_write_bytecode = False


def restore_bytecode_setting() -> None:
    """Give the program the bytecode-writing setting its environment asked for."""
    if _users_setting is not None:
        sys.dont_write_bytecode = _users_setting
