"""The launcher's script. The engine (core/src/config/launcher.rs) and the children's
hooks (children/commands.py) run it by its path, ``python …/dapperdbg/launcher/__main__.py
--ipc …``, rather than as ``python -m dapperdbg.launcher`` (which works the same): runpy,
and what it imports, would cost every start 1 ms (3.12) to 9 ms (3.9, which imports
typing for it) that a plain ``python script.py`` does not pay.

Run by its path, it finds its package through PYTHONPATH; where the interpreter ignores
PYTHONPATH (-E, -I), the package's directory is put on sys.path here, and the launcher
takes it out again before the program runs (DAPPER_PYTHONPATH_ENTRY names it)."""

if __name__ == "__main__":
    if not __package__:
        import os
        import sys

        if sys.flags.ignore_environment:
            sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(
                os.path.abspath(__file__)))))
    from dapperdbg.launcher import run_as_main

    run_as_main(run_as_script=not __package__)
