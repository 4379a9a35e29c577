"""A tight loop over a dict and a list, with no calls in the hot path."""

import sys

import benchkit


def work(rounds):
    table = {key: key * 3 for key in range(500)}
    items = list(range(500))
    total = 0
    for _ in range(rounds):
        for key, value in table.items():
            total += key ^ value  # BENCH:hot
        for item in items:
            total -= item
    return total


def main():
    rounds = int(sys.argv[1])
    started = benchkit.start()
    work(rounds)
    benchkit.report(started)


main()
