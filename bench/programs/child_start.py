"""Starts N Python children one after the other and times each one's start: when its
first line runs (wall clock against the moment before the parent spawned it, and the
child's own CPU time there) and when the parent's wait for it returns. A child is
``python -c CODE`` or ``python child_start_script.py``; either prints its clock on its
first line. The parent prints the figures as one line, BENCH_CHILDREN=[[first line wall
ms, first line CPU ms, whole child ms], ...]."""

import json
import os
import subprocess
import sys
import time

CODE = "import time; print(time.time(), time.process_time())"
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child_start_script.py")


def main():
    count, kind = int(sys.argv[1]), sys.argv[2]
    command = [sys.executable, "-c", CODE] if kind == "code" else [sys.executable, SCRIPT]
    figures = []
    for _ in range(count):
        spawned = time.time()
        result = subprocess.run(command, capture_output=True, text=True, check=True)
        ended = time.time()
        first_line, cpu = (float(word) for word in result.stdout.split()[-2:])
        figures.append([(first_line - spawned) * 1000, cpu * 1000, (ended - spawned) * 1000])
    print("BENCH_CHILDREN=" + json.dumps(figures), flush=True)


main()
