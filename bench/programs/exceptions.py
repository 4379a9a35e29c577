"""Code that raises and catches many exceptions, as parsers, lookups with a fallback and
test suites do (functools' tests among them): what a debugger that watches exceptions
as they are raised costs a program that never stops."""

import sys

import benchkit


class Missing(KeyError):
    pass


def lookup(table, key):
    try:
        return table[key]
    except KeyError:
        return None


def parse(text):
    try:
        return int(text)
    except ValueError:
        return 0


def nested(depth):
    if depth == 0:
        raise Missing(depth)
    return nested(depth - 1)


def work(rounds):
    table = {"known": 1}
    total = 0
    for _ in range(rounds):
        total += lookup(table, "unknown") is None
        total += parse("not a number")
        try:
            nested(5)
        except Missing:
            total += 1
    return total


def main():
    rounds = int(sys.argv[1])
    started = benchkit.start()
    work(rounds)
    benchkit.report(started)


main()
