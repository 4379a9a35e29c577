"""Starts child.py as a Python subprocess, after printing the wall-clock time of the
spawn (the child's time to its first stop is measured from it)."""

import os
import subprocess
import sys
import time

child = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child.py")
print(f"BENCH_SPAWN_AT={time.time()!r}", flush=True)
subprocess.run([sys.executable, child], check=True)
