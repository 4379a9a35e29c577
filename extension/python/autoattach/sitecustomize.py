"""Dapper's terminal auto-attach bootstrap: VS Code's terminals put this folder first on
PYTHONPATH while ``dapper.autoAttach`` is on, and ``site`` imports this module in every
Python started there. The work is in _dapper_autoattach.py, whose bytecode is cached
beside it whatever PYTHONDONTWRITEBYTECODE says (that setting is about the user's
folders; this module, which ``site`` imports under it, is kept too small to matter)."""

import sys

_users_setting, sys.dont_write_bytecode = sys.dont_write_bytecode, False
try:
    from _dapper_autoattach import run
finally:
    sys.dont_write_bytecode = _users_setting
run()
