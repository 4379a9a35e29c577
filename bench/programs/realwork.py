"""Runs CPython's regression tests as `python -m test <args>` does, in this process, and
then prints the lines the harness reads: the wall time since this program's first line
and the CPU time of the whole process tree, this process from its start (the
interpreter's and any debugger's start-up included, every thread) and every child it
waited for, grandchildren included (the kernel adds a waited-for child's own waited-for
children to it). Run plain and as the debuggee of a session alike, so that the three
modes run the very same code."""

import resource
import runpy
import sys
import time


def cpu_seconds(usage):
    return usage.ru_utime + usage.ru_stime


def main():
    started = time.perf_counter()
    code = 0
    # runpy puts the package's __main__.py in sys.argv[0]; the arguments after it stay.
    try:
        runpy.run_module("test", run_name="__main__", alter_sys=True)
    except SystemExit as exit_:
        code = exit_.code
    seconds = time.perf_counter() - started
    own = cpu_seconds(resource.getrusage(resource.RUSAGE_SELF))
    children = cpu_seconds(resource.getrusage(resource.RUSAGE_CHILDREN))
    sys.stdout.write(
        f"BENCH_SECONDS={seconds!r}\n"
        f"BENCH_CPU_SECONDS={own + children!r}\n"
        f"BENCH_CHILDREN_CPU_SECONDS={children!r}\n"
        f"BENCH_EXIT={code}\n"
    )
    sys.stdout.flush()


main()
