"""``python -m dapper --listen [HOST:]PORT [--wait-for-client] (PATH | -m MODULE | -c
CODE) [args...]``: run a program for a debugger to attach to (see listen.py). The
engine's own entry point stays ``python -m dapper.launcher``."""

import sys

from dapper.listen import main

if __name__ == "__main__":
    sys.exit(main())
