"""Restartable functions benchmark (not a test): what loading the user's modules with
restartable functions (instrumentation/restart_loading.py) costs, against a plain import
of the same module from its .pyc, and what a call of a restartable function costs.

    python extension/python/tests/bench_restartable.py [--lines 2000] [--rounds 15]
        [--later 8] [--stdlib argparse,difflib,configparser,dataclasses]

Each round imports a generated module (bench_hotreload.py's, about ``--lines`` long) in
fresh processes, interleaved: plain twice (their ratio is the noise), restartable from a
warm cache, restartable with an empty cache (the first run after an edit). The import is
timed inside the process (wall and CPU), so the interpreter's own start is left out.

Then ``--later`` modules of the same text are imported, and their mean taken: a
process's later modules do not pay again what its first one set up. They are averaged
because the garbage collector runs once every 2,000 or so allocations of container
objects: a single module pays for one collection or for none by where it falls in the
process's history (the same place in every round), several share them as a program's
imports do. The generated module is dense (a small function every six lines, where
the handler is the largest share of the code): copies of standard-library modules
(``--stdlib``, their own imports done first and not timed), imported as the user's code
last, show modules as people write them.
Goals (docs/hot-reload.md): warm ≤ 1.2× plain and ≤ 5 ms added."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from bench_hotreload import generate  # noqa: E402

IMPORT = r"""
import functools, importlib, sys, time  # What the modules import themselves is not timed.
sys.path.insert(0, {package!r})
sys.path.insert(0, {folder!r})
for name in {stdlib!r}:
    importlib.import_module(name)
restartable = {restartable!r}
if restartable:
    from dapperdbg.instrumentation import restart_loading
    from dapperdbg.instrumentation.user_files import restartable_source
    restart_loading.enable(restartable_source, lambda canonical: None)
# As the launcher does before the program's first line (common/start_freeze.py): what the
# start made is left out of the collections the imports below cause.
import gc
gc.freeze()

def timed(name):
    wall, cpu = time.perf_counter(), time.process_time()
    importlib.import_module(name)
    return time.perf_counter() - wall, time.process_time() - cpu

wall, cpu = timed("benchmod")
later = [timed(f"benchmod_later{{index}}") for index in range({later})]
later_wall = sum(each[0] for each in later) / len(later)
later_cpu = sum(each[1] for each in later) / len(later)
function = sys.modules["benchmod"].function1
calls = time.perf_counter()
for _ in range(200_000):
    function(1, 2)
calls = (time.perf_counter() - calls) / 200_000
stdlib = [timed("user_" + name)[1] for name in {stdlib!r}]
print(wall, cpu, calls, later_wall, later_cpu, *stdlib)
"""


def run(folder: str, restartable: bool, cache: str, options) -> tuple[float, ...]:
    code = IMPORT.format(package=PACKAGE, folder=folder, restartable=restartable,
                         later=options.later, stdlib=options.stdlib)
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
    parser.add_argument("--later", type=int, default=8)
    parser.add_argument("--stdlib", type=lambda names: [n for n in names.split(",") if n],
                        default=["argparse", "difflib", "configparser", "dataclasses"])
    options = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="dapper-bench-restartable-")
    warm_cache = os.path.join(folder, "cache-warm")
    try:
        text = generate(options.lines, 1)
        for name in ["benchmod"] + [f"benchmod_later{i}" for i in range(options.later)]:
            with open(os.path.join(folder, f"{name}.py"), "w") as file:
                file.write(text)
        for name in options.stdlib:
            shutil.copyfile(importlib.util.find_spec(name).origin,
                            os.path.join(folder, f"user_{name}.py"))
        # The cache serves an import by the file's identity only once the file has not
        # changed for two seconds (common/code_cache.py); before that, by its text.
        time.sleep(2.1)
        run(folder, False, warm_cache, options)  # Writes the .pyc a plain import reads.
        run(folder, True, warm_cache, options)  # Fills the cache.
        cells: dict[str, list[tuple[float, ...]]] = {
            "plain": [], "plain again": [], "restartable, warm cache": [],
            "restartable, empty cache": []}
        for index in range(options.rounds):
            cold_cache = os.path.join(folder, f"cache-cold-{index}")
            cells["plain"].append(run(folder, False, warm_cache, options))
            cells["restartable, warm cache"].append(run(folder, True, warm_cache, options))
            cells["restartable, empty cache"].append(run(folder, True, cold_cache, options))
            cells["plain again"].append(run(folder, False, warm_cache, options))
        report(options, cells)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def report(options, cells) -> None:
    def median(name: str, field: int) -> float:
        return statistics.median(cell[field] for cell in cells[name])

    plain_wall, plain_cpu = median("plain", 0), median("plain", 1)
    noise = statistics.median(again[0] / first[0] for first, again
                              in zip(cells["plain"], cells["plain again"]))
    print(f"Python {sys.version.split()[0]}, a {options.lines}-line module (later: the "
          f"mean of {options.later}), {options.rounds} interleaved rounds (medians; "
          f"plain/plain {noise:.2f}x)")
    later_cpu = median("plain", 4)
    print(f"{'import':28} {'wall ms':>9} {'cpu ms':>9} {'ratio':>7} {'added ms':>9} "
          f"{'call ns':>8} {'later cpu ms':>13} {'ratio':>7}")
    for name in cells:
        wall, cpu = median(name, 0), median(name, 1)
        print(f"{name:28} {wall * 1e3:9.2f} {cpu * 1e3:9.2f} {wall / plain_wall:6.2f}x "
              f"{(wall - plain_wall) * 1e3:9.2f} {median(name, 2) * 1e9:8.1f} "
              f"{median(name, 4) * 1e3:13.2f} {median(name, 4) / later_cpu:6.2f}x")
    # The standard-library modules as the user's code: CPU ms plain and restartable (warm
    # cache), each and all together, the ratio of the medians.
    stdlib = {}
    for index, name in enumerate(options.stdlib + ["all"] if options.stdlib else []):
        fields = (range(5, 5 + len(options.stdlib)) if name == "all" else [5 + index])
        plain, warm = (statistics.median(sum(cell[f] for f in fields) for cell in cells[c])
                       for c in ("plain", "restartable, warm cache"))
        lines = (sum(_lines(n) for n in options.stdlib) if name == "all" else _lines(name))
        stdlib[name] = [plain, warm, lines]
        print(f"{name:28} {lines:6} lines  plain {plain * 1e3:6.2f} ms  "
              f"restartable {warm * 1e3:6.2f} ms  {warm / plain:5.2f}x")
    print(json.dumps({name: [median(name, field) for field in range(5)] for name in cells}
                     | {"plain_cpu": plain_cpu, "noise": noise, "stdlib": stdlib}))


def _lines(name: str) -> int:
    with open(importlib.util.find_spec(name).origin, "rb") as file:
        return file.read().count(b"\n")


if __name__ == "__main__":
    main()
