"""``python -m dapperdbg.launcher …``: the command line the engine builds
(core/src/config/launcher.rs) and the child-process hooks rewrite children to."""

from dapperdbg.launcher.launch import run_as_main

if __name__ == "__main__":
    run_as_main()
