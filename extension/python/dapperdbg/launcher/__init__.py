"""The entry points: the launcher, ``__main__.py`` (the engine starts every launched
program and every child process with it: launch.py, cli.py) and ``python -m dapperdbg
--listen`` / ``--connect`` (a program debuggers attach to: listen.py, listen_cli.py;
its children across debuggers: reattach.py, reattach_file.py), the in-code API behind
``dapperdbg.listen`` and ``dapperdbg.connect`` (api.py), plus taking the engine's
``DAPPER_*`` variables out of the program's environment (environment.py). The session
they run is session/lifecycle.py's.

The engine and the children's hooks run the launcher by its script's path
(``__main__.py``), which ``python -m dapperdbg.launcher`` runs too.
"""

from ..common.start_bundle import open_bundle


def run_as_main(run_as_script: bool = False) -> None:
    """The launcher, run by its script, by ``-m`` or by the ``-c`` bootstrap
    (children/commands.py): its start-up imports come from the start bundle
    (common/start_bundle.py), which launch.py closes before the program runs."""
    open_bundle()
    from .launch import run_as_main as run

    run(run_as_script)


__all__ = ["run_as_main"]
