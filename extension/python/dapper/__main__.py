"""``python -m dapper --listen [HOST:]PORT [--wait-for-client] (PATH | -m MODULE | -c
CODE) [args...]``: run a program for a debugger to attach to (launcher/listen.py). The
engine's own entry point is ``python -m dapper.launcher``."""

import sys

from dapper.launcher.listen import main

if __name__ == "__main__":
    sys.exit(main())
