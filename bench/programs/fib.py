"""Recursive Fibonacci: one tiny function called very many times."""

import sys

import benchkit


def fib(n):
    if n < 2:  # BENCH:hot
        return n
    return fib(n - 1) + fib(n - 2)


def main():
    n = int(sys.argv[1])
    started = benchkit.start()
    fib(n)
    benchkit.report(started)


if __name__ == "__main__":
    main()
