"""Starts child processes one after the other, as a test runner's workers or a build's
steps do, and writes to .children.json what each answered, how long it took from its
start to its first line, and how long it took in all."""

import json
import os
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
count = int(sys.argv[1]) if len(sys.argv) > 1 else 6
answers = []
first_line_ms = []
whole_ms = []
for index in range(count):
    spawned = time.time()
    output = subprocess.run([sys.executable, os.path.join(here, "child_task.py"), str(index)],
                            capture_output=True, text=True, check=True).stdout.split()
    whole_ms.append(round((time.time() - spawned) * 1000, 1))
    first_line_ms.append(round((float(output[0]) - spawned) * 1000, 1))
    answers.append(int(output[1]))
with open(os.path.join(here, ".children.json"), "w") as file:
    json.dump({"answers": answers, "first_line_ms": first_line_ms, "whole_ms": whole_ms}, file)
sys.exit(len(answers))
