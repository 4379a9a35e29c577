"""Stopped at the marked line, `next` always lands on another line of the loop body."""


def main():
    total = 0
    for i in range(10**9):
        total += i  # BENCH:stop
        total -= 1
        total ^= 3
        total %= 1000003
    return total


main()
