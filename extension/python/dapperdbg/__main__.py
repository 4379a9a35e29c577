"""``python -m dapperdbg --listen [HOST:]PORT [--wait-for-client] (PATH | -m MODULE | -c
CODE) [args...]``: run a program for a debugger to attach to (launcher/listen.py). The
engine's own entry point is ``python -m dapperdbg.launcher``."""

import sys

from dapperdbg.launcher.listen import main

if __name__ == "__main__":
    sys.exit(main())
