"""The program `npm start` debugs: it prints, imports a module, and exits with code 3."""

import sys

from shapes import Circle, describe


def main(argv):
    circles = [Circle(r) for r in (1, 2)]
    settings = {"name": "demo", "sizes": [1, 2, 3], "nested": {"deep": (True, None)}}
    print(f"hello from {argv[0]} with {len(circles)} circles")  # demo: breakpoint
    summary = describe(circles)
    print("summary:", summary)
    print("warnings go to stderr", file=sys.stderr)
    return 3 if settings["name"] == "demo" else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
