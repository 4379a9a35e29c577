"""Hot reload benchmark (not a test): reload a generated 2,000-line module while the
program is paused, and time a tight loop in a reloaded function before and after.

    python extension/python/tests/bench_hotreload.py [--lines 2000] [--repeat 20]
    python extension/python/tests/bench_hotreload.py --emit FILE --version N [--lines 2000]

(``--emit`` writes version N of the module and exits: ``npm run bench`` reloads it in a
real session, bench/lib/hotreload.mjs.)

Goal: the reload well under 50 ms; the loop as fast after as before."""

from __future__ import annotations

import argparse
import ast
import importlib
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from dapperdbg.hotreload import reload_file  # noqa: E402


def generate(lines: int, version: int) -> str:
    """A module of plain functions and classes with methods, about ``lines`` long; the
    version number changes the body of every tenth function and method."""
    out = ["import functools", "", "STATE = {'calls': 0}", "", ""]
    out += [
        "def spin(n):",
        "    total = 0",
        "    for i in range(n):",
        f"        total += i * {version + 1}",
        "    return total",
        "",
        "",
    ]
    index = 0
    while len(out) < lines:
        changed = version if index % 10 == 0 else 0
        if index % 4 == 0:
            out += [f"class Thing{index}:", f'    """Thing {index}."""', ""]
            for method in range(4):
                out += [
                    f"    def method{method}(self, x, y=1):",
                    f"        value = x * {method} + y + {changed}",
                    "        return value",
                    "",
                ]
            out += ["    @property", "    def size(self):", f"        return {index}", "", ""]
        else:
            out += [
                "@functools.lru_cache(maxsize=None)" if index % 7 == 0 else "",
                f"def function{index}(a, b=2, *, c=3):",
                f'    """Function {index}."""',
                f"    result = a + b + c + {changed}",
                "    if result > 10:",
                "        result -= 1",
                "    return result",
                "",
                "",
            ]
        index += 1
    return "\n".join(out) + "\n"


def loop_time(function, n: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        function(n)
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--emit", help="write the module's --version to this file and exit")
    parser.add_argument("--version", type=int, default=0)
    args = parser.parse_args()
    if args.emit:
        with open(args.emit, "w") as file:
            file.write(generate(args.lines, args.version))
        return
    directory = tempfile.mkdtemp(prefix="dapper-bench-hot-")
    path = os.path.join(directory, "bench_target.py")
    with open(path, "w") as file:
        file.write(generate(args.lines, 0))
    sys.path.insert(0, directory)
    module = importlib.import_module("bench_target")
    spin = module.spin
    before = loop_time(spin, 300_000, 5)

    durations = []
    updated = 0
    for version in range(1, args.repeat + 1):
        with open(path, "w") as file:
            file.write(generate(args.lines, version))
        started = time.perf_counter()
        result = reload_file(path)
        durations.append((time.perf_counter() - started) * 1000)
        updated = len(result.updated)
    after = loop_time(module.spin, 300_000, 5)
    # The floor: parsing and compiling the source, which any reload must do once.
    with open(path) as file:
        source = file.read()
    floor = []
    for _ in range(5):
        started = time.perf_counter()
        compile(ast.parse(source, path), path, "exec", dont_inherit=True)
        floor.append((time.perf_counter() - started) * 1000)
    assert module.spin is spin and spin(3) == 3 * (args.repeat + 1)

    with open(path) as file:
        line_count = sum(1 for _ in file)
    print(
        f"Python {sys.version.split()[0]}: reload of a {line_count}-line module "
        f"({updated} definitions updated each time)"
    )
    print(
        f"  reload: median {statistics.median(durations):.1f} ms, "
        f"max {max(durations):.1f} ms over {len(durations)} reloads (goal < 50 ms); "
        f"parse + compile alone: median {statistics.median(floor):.1f} ms"
    )
    print(
        f"  tight loop: {before:.1f} ms before, {after:.1f} ms after the reloads "
        f"(ratio {after / before:.2f})"
    )


if __name__ == "__main__":
    main()
