"""Data breakpoints' cost (bench/lib/databreakpoints.mjs): three loops of N iterations,
each timed on its own. The bench stops at BENCH:stop, may set a data breakpoint on
``count`` (a local of ``spin`` that the loop leaves alone) or on ``BOX.value`` (an
attribute changed elsewhere: by ``setup``, before the loops), and continues.

- spin: a loop in the watched local's frame (its code gets line events);
- other: a loop in code that stores no attribute named ``value`` (nothing to compare);
- same_name: a loop storing ``value`` on another object (its code may change the
  watched attribute, so it gets line events and compares)."""

import json
import sys
import time


class Box:
    def __init__(self):
        self.value = 0


BOX = Box()
OTHER = Box()


def setup():
    BOX.value = 1


def spin(n):
    count = 0
    total = 0  # BENCH:stop
    started = time.perf_counter()
    for i in range(n):
        total += i
    return time.perf_counter() - started, count


def other(n):
    started = time.perf_counter()
    total = 0
    for i in range(n):
        total += i
    return time.perf_counter() - started


def same_name(n):
    target = OTHER
    started = time.perf_counter()
    for i in range(n):
        target.value = i
    return time.perf_counter() - started


def main():
    n = int(sys.argv[1])
    setup()
    spin_seconds, _ = spin(n)
    print(json.dumps({"spin": spin_seconds, "other": other(n), "same_name": same_name(n)}))


main()
