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

__all__ = ["run_as_main"]


def run_as_main(run_as_script: bool = False) -> None:
    """The launcher (launch.py), as code started with ``-c`` runs it; the launcher's
    script does the same (__main__.py). The start bundle (common/start_bundle.py) is
    opened first, so that the launcher's own modules come from it too rather than one by
    one through the import system: about 0.5 ms of every start. The garbage collector is off
    from here on (launch.py's ``main`` says why): the bundle's first block alone makes
    enough objects to set off a collection."""
    import gc

    collecting = gc.isenabled()
    gc.disable()
    from ..common.start_bundle import open_bundle

    open_bundle()
    from .launch import run_as_main as run_launcher

    run_launcher(run_as_script, collecting)
