"""``python -m dapper.launcher …``: the command line the engine builds
(core/src/config/launcher.rs) and the child-process hooks rewrite children to."""

import sys

from dapper.launcher.launch import main

if __name__ == "__main__":
    sys.exit(main())
