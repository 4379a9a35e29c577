"""A function called a given number of times; the logpoint configuration logs a line
from inside it on every call."""

import sys

import benchkit


def handle(i):
    value = i * 2  # BENCH:hot
    return value


def main():
    count = int(sys.argv[1])
    started = benchkit.start()
    total = 0
    for i in range(count):
        total += handle(i)
    benchkit.report(started)


main()
