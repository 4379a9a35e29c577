"""Many small calls across two modules (this one and calls_helpers)."""

import sys

import benchkit
import calls_helpers


def step(i, counter):
    return calls_helpers.add(calls_helpers.scale(i), counter.bump(1))


def work(count):
    counter = calls_helpers.Counter()
    total = 0
    for i in range(count):
        total = (total + step(i, counter)) % 1000003
    return total


def main():
    count = int(sys.argv[1])
    started = benchkit.start()
    work(count)
    benchkit.report(started)


main()
