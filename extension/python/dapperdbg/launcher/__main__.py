"""``python -m dapperdbg.launcher …``: the command line the engine builds
(core/src/config/launcher.rs) and the child-process hooks rewrite children to."""

import sys

from dapperdbg.launcher.launch import main

if __name__ == "__main__":
    sys.exit(main())
