"""The entry points: ``python -m dapperdbg.launcher`` (the engine starts every launched
program and every child process with it: launch.py, cli.py) and ``python -m dapperdbg
--listen`` (a program a debugger attaches to later: listen.py, listen_cli.py), plus
taking the engine's ``DAPPER_*`` variables out of the program's environment
(environment.py). The session they run is session/lifecycle.py's.

``from dapperdbg.launcher import main`` is how a child whose interpreter ignores
PYTHONPATH (-E, -I) starts the launcher (children/commands.py).
"""

from .launch import main

__all__ = ["main"]
