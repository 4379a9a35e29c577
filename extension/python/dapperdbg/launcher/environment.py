"""Cleaning the launcher's traces out of the environment before the user's code runs.

The engine passes the session token and the directory it prepended to PYTHONPATH
through ``DAPPER_*`` variables. The program must see its own environment, so these
are taken out of ``os.environ`` (and kept in memory for child-process support; the
user's own ``DAPPER_CACHE_DIR`` stays), and the
PYTHONPATH entry is removed from both ``sys.path`` and ``os.environ["PYTHONPATH"]``.
"""

from __future__ import annotations

import os
import sys

PREFIX = "DAPPER_"
# Set by the user, not the engine: where the debugger keeps its cache
# (common/code_cache.py), read from the environment whenever it is first needed, by this
# process and by its children, as their plain runs would see it too.
USERS_VARIABLES = frozenset({"DAPPER_CACHE_DIR"})


class DapperEnvironment:
    """What the engine told the launcher through the environment."""

    __slots__ = ("variables",)

    def __init__(self, variables: dict[str, str] | None = None) -> None:
        self.variables = {} if variables is None else variables

    @property
    def session_token(self) -> str | None:
        return self.variables.get("DAPPER_SESSION_TOKEN")

    @property
    def pythonpath_entry(self) -> str | None:
        return self.variables.get("DAPPER_PYTHONPATH_ENTRY") or None


def take_dapper_environment(environ=None) -> DapperEnvironment:
    """Remove every ``DAPPER_*`` variable but the user's own from ``environ`` and return
    them."""
    environ = os.environ if environ is None else environ
    taken = {name: environ[name] for name in list(environ)
             if name.startswith(PREFIX) and name not in USERS_VARIABLES}
    for name in taken:
        del environ[name]
    return DapperEnvironment(taken)


def _same_directory(a: str, b: str) -> bool:
    if not a or not b:
        return False
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def remove_pythonpath_entry(entry: str | None, path_list=None, environ=None) -> None:
    """Remove the first occurrence of ``entry`` from ``path_list`` (``sys.path``) and from
    ``environ["PYTHONPATH"]``, deleting the variable when nothing else is left in it.

    Only the first occurrence goes: the engine prepended one copy, and a copy the user
    put there themselves must stay.
    """
    if not entry:
        return
    path_list = sys.path if path_list is None else path_list
    environ = os.environ if environ is None else environ
    for index, item in enumerate(path_list):
        if _same_directory(item, entry):
            del path_list[index]
            break
    value = environ.get("PYTHONPATH")
    if value is None:
        return
    parts = value.split(os.pathsep)
    for index, item in enumerate(parts):
        if _same_directory(item, entry):
            del parts[index]
            break
    remaining = os.pathsep.join(parts)
    if remaining:
        environ["PYTHONPATH"] = remaining
    else:
        del environ["PYTHONPATH"]
