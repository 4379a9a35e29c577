"""The program that Dapper's real-VS-Code test debugs (test/vscode/run.mjs)."""

import sys


def total(prices):
    result = 0
    for price in prices:
        result += price
    return result


def main():
    prices = [3, 4, 5]
    label = "crates"
    count = len(prices)  # the test's breakpoint
    amount = total(prices)
    print(f"{count} {label} cost {amount} (Python {sys.version_info[0]}.{sys.version_info[1]})")
    return amount


if __name__ == "__main__":
    sys.exit(main() - 9)
