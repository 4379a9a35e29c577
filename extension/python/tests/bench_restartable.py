"""Restartable functions benchmark (not a test): what loading the user's modules with
restartable functions (instrumentation/restart_loading.py) costs, against a plain import
of the same module from its .pyc, and what a call of a restartable function costs.

    python extension/python/tests/bench_restartable.py [--lines 2000] [--rounds 15]

Each round imports a generated module (bench_hotreload.py's, about ``--lines`` long) in
fresh processes, interleaved: plain twice (their ratio is the noise), restartable from a
warm cache, restartable with an empty cache (the first run after an edit). The import is
timed inside the process (wall and CPU), so the interpreter's own start is left out; then
a second module of the same text is imported and timed: a process's later modules do
not pay again what its first one set up.
Goals (docs/hot-reload.md): warm ≤ 1.2× plain and ≤ 5 ms added."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from bench_hotreload import generate  # noqa: E402

IMPORT = r"""
import functools, sys, time  # What the module imports itself is not timed.
sys.path.insert(0, {package!r})
sys.path.insert(0, {folder!r})
restartable = {restartable!r}
if restartable:
    from dapperdbg.instrumentation import restart_loading
    from dapperdbg.instrumentation.importer import restartable_file
    restart_loading.enable(restartable_file, lambda canonical: None)
# As the launcher does before the program's first line (common/start_freeze.py): what the
# start made is left out of the collections the imports below cause.
import gc
gc.freeze()
wall, cpu = time.perf_counter(), time.process_time()
import benchmod
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
# A second module of the same text: what each module after the process's first costs
# (the first also pays what a process pays once: the loader's and the cache's set-up).
later_wall, later_cpu = time.perf_counter(), time.process_time()
import benchmod_later
later_wall = time.perf_counter() - later_wall
later_cpu = time.process_time() - later_cpu
calls = time.perf_counter()
for _ in range(200_000):
    benchmod.function1(1, 2)
calls = (time.perf_counter() - calls) / 200_000
print(wall, cpu, calls, later_wall, later_cpu)
"""


def run(folder: str, restartable: bool, cache: str) -> tuple[float, ...]:
    code = IMPORT.format(package=PACKAGE, folder=folder, restartable=restartable)
    # A plain import reads the .pyc, as a user's does: nothing may keep it from being
    # written.
    env = {name: value for name, value in os.environ.items()
           if name != "PYTHONDONTWRITEBYTECODE"}
    env["DAPPER_CACHE_DIR"] = cache
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True)
    return tuple(map(float, done.stdout.split()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=15)
    options = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="dapper-bench-restartable-")
    warm_cache = os.path.join(folder, "cache-warm")
    try:
        text = generate(options.lines, 1)
        for name in ("benchmod", "benchmod_later"):
            with open(os.path.join(folder, f"{name}.py"), "w") as file:
                file.write(text)
        run(folder, False, warm_cache)  # Writes the .pyc a plain import reads.
        run(folder, True, warm_cache)  # Fills the cache.
        cells: dict[str, list[tuple[float, ...]]] = {
            "plain": [], "plain again": [], "restartable, warm cache": [],
            "restartable, empty cache": []}
        for index in range(options.rounds):
            cold_cache = os.path.join(folder, f"cache-cold-{index}")
            cells["plain"].append(run(folder, False, warm_cache))
            cells["restartable, warm cache"].append(run(folder, True, warm_cache))
            cells["restartable, empty cache"].append(run(folder, True, cold_cache))
            cells["plain again"].append(run(folder, False, warm_cache))
        report(options, cells)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def report(options, cells) -> None:
    def median(name: str, field: int) -> float:
        return statistics.median(cell[field] for cell in cells[name])

    plain_wall, plain_cpu = median("plain", 0), median("plain", 1)
    noise = statistics.median(again[0] / first[0] for first, again
                              in zip(cells["plain"], cells["plain again"]))
    print(f"Python {sys.version.split()[0]}, a {options.lines}-line module, "
          f"{options.rounds} interleaved rounds (medians; plain/plain {noise:.2f}x)")
    later_cpu = median("plain", 4)
    print(f"{'import':28} {'wall ms':>9} {'cpu ms':>9} {'ratio':>7} {'added ms':>9} "
          f"{'call ns':>8} {'later cpu ms':>13} {'ratio':>7}")
    for name in cells:
        wall, cpu = median(name, 0), median(name, 1)
        print(f"{name:28} {wall * 1e3:9.2f} {cpu * 1e3:9.2f} {wall / plain_wall:6.2f}x "
              f"{(wall - plain_wall) * 1e3:9.2f} {median(name, 2) * 1e9:8.1f} "
              f"{median(name, 4) * 1e3:13.2f} {median(name, 4) / later_cpu:6.2f}x")
    print(json.dumps({name: [median(name, field) for field in range(5)] for name in cells}
                     | {"plain_cpu": plain_cpu, "noise": noise}))


if __name__ == "__main__":
    main()
