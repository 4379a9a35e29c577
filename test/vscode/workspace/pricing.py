"""The program of the real-VS-Code test's edit-and-continue scenario (editContinueScenario.mjs)."""

import sys


def discounted(price):
    rate = 10
    cut = price * rate // 100  # the test's breakpoint
    return price - cut


def main():
    total = discounted(200)
    print(f"total {total}")
    return total


if __name__ == "__main__":
    sys.exit(main() - 90)
