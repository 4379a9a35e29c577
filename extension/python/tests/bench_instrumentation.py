"""Cost of instrumented copies (run by hand, not by pytest):

    .cache/py/3.11/bin/python extension/python/tests/bench_instrumentation.py

fib(25) as it is, with an always-false condition compiled in front of its first line,
and with an unconditional probe that returns at once; plus the bare cost of reaching a
function through ``builtins`` against a module global. Prints the median and minimum of
several runs.
"""

from __future__ import annotations

import builtins
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dapperdbg.instrumentation import Probe, instrument_source, set_probe_handler  # noqa: E402

FIB = """\
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)
"""
CALLS = """\
def noop():
    pass

def via_global(count):
    for _ in range(count):
        noop()

def via_builtins(count):
    for _ in range(count):
        __dapper_bench_noop__()
"""
RUNS = 21
FIB_N = 25
FIB_CALLS = 242785  # Calls of fib(25), each running line 2 once.


def load(probes: dict[int, Probe]):
    namespace: dict = {"__builtins__": builtins}
    exec(instrument_source(FIB, "<fib>", probes).code, namespace)
    return namespace["fib"]


def timed(function, *args) -> tuple[float, float]:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def round_robin(functions: dict, *args) -> dict[str, list[float]]:
    """Each function once per round, so that a load change on the machine hits every
    variant alike; ratios are then taken round by round."""
    times: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(RUNS):
        for name, function in functions.items():
            start = time.perf_counter()
            function(*args)
            times[name].append(time.perf_counter() - start)
    return times


def main() -> None:
    set_probe_handler(None)
    times = round_robin({
        "plain": load({}),
        "always-false condition": load({2: Probe(1, "n == -1")}),
        "unconditional probe": load({2: Probe(1)}),
    }, FIB_N)
    plain = times.pop("plain")
    print(f"Python {sys.version.split()[0]}: fib({FIB_N}), {RUNS} rounds; ratio to plain "
          "per round, median (min); extra time a hit, median")
    print(f"  plain                     {statistics.median(plain) * 1e3:7.1f} ms")
    for name, variant in times.items():
        ratios = [v / p for v, p in zip(variant, plain)]
        per_hit = statistics.median((v - p) / FIB_CALLS * 1e9 for v, p in zip(variant, plain))
        print(f"  {name:<25} {statistics.median(variant) * 1e3:7.1f} ms  "
              f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}x)  {per_hit:+.0f} ns a hit")
    namespace: dict = {"__builtins__": builtins}
    exec(compile(CALLS, "<calls>", "exec"), namespace)
    builtins.__dapper_bench_noop__ = namespace["noop"]
    count = 1_000_000
    calls = round_robin({"global": namespace["via_global"],
                         "builtins": namespace["via_builtins"]}, count)
    del builtins.__dapper_bench_noop__
    through_global = statistics.median(calls["global"]) / count * 1e9
    through_builtins = statistics.median(calls["builtins"]) / count * 1e9
    print(f"  a call through a global   {through_global:6.1f} ns; "
          f"through builtins {through_builtins:6.1f} ns")


if __name__ == "__main__":
    main()
