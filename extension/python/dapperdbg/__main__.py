"""``python -m dapperdbg --listen [HOST:]PORT [--wait-for-client] (PATH | -m MODULE | -c
CODE) [args...]``: run a program for a debugger to attach to (launcher/listen.py). The
engine's own entry point is ``python -m dapperdbg.launcher``."""

from dapperdbg.launcher.listen import main

if __name__ == "__main__":
    code = main()
    from dapperdbg.session.program import end_as_python_would

    end_as_python_would(code)
