"""Recursive Fibonacci (fib.py's) under cProfile: a profiler the program runs itself,
beside the debugger (what a profiled run costs under Dapper)."""

import cProfile
import sys

import benchkit
from fib import fib


def main():
    n = int(sys.argv[1])
    profiler = cProfile.Profile()
    started = benchkit.start()
    profiler.enable()
    fib(n)
    profiler.disable()
    benchkit.report(started)
    # The profiler really counted: one entry for fib, with every call.
    calls = [entry.callcount for entry in profiler.getstats()
             if getattr(entry.code, "co_name", None) == "fib"]
    if not calls or calls[0] < n:
        raise SystemExit(f"cProfile counted {calls} calls of fib")


main()
