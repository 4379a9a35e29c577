"""Imports a module holding a very large dict literal. The harness writes that module
(bench_big_table.py) into a fresh directory for every run, given as the first argument,
so no cached bytecode exists and the import compiles it from source."""

import sys

import benchkit


def main():
    sys.path.insert(0, sys.argv[1])
    started = benchkit.start()
    import bench_big_table

    benchkit.report(started)
    assert bench_big_table.SIZE > 0


main()
