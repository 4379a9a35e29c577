"""A test suite that starts Python processes: N children run one after the other, as a
test module that checks its command line does (CPython's test_cmd_line_script starts
dozens). Times the whole run; each child imports a little and checks its result."""

import os
import subprocess
import sys

import benchkit

worker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "suite_worker.py")


def main():
    count = int(sys.argv[1])
    started = benchkit.start()
    for index in range(count):
        result = subprocess.run([sys.executable, worker, str(index)], capture_output=True,
                                text=True, check=True)
        if result.stdout != f"{index * index}\n":
            raise SystemExit(f"child {index} said {result.stdout!r}")
    benchkit.report(started)


main()
