"""Deep copies of nested records, as programs copy configurations and state: copy.deepcopy
calls id() on every object it visits, and id() raises an audit event (PEP 578), so this
program shows what a debugger's audit hook costs a program that never stops."""

import copy
import sys

import benchkit


def records():
    return [
        {"name": f"item{index}", "tags": ["a", "b"], "span": (index, index + 1),
         "meta": {"rank": index, "flags": [True, False]}}
        for index in range(200)
    ]


def work(copies):
    original = records()
    total = 0
    for _ in range(copies):
        duplicate = copy.deepcopy(original)  # BENCH:hot
        total += len(duplicate)
    return total


def main():
    copies = int(sys.argv[1])
    started = benchkit.start()
    work(copies)
    benchkit.report(started)


main()
