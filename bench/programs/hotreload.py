"""Hot reload in a real session (bench/lib/hotreload.mjs): imports the generated
2,000-line module from the directory in argv[1], times a tight loop in it, stops at a
breakpoint, where the bench reloads the module several times, then times the same loop
again. Prints one JSON line with both times (milliseconds, best of several)."""

import json
import sys
import time

sys.path.insert(0, sys.argv[1])
import bench_target

N = 300_000


def best_loop_ms(repeat=5):
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        bench_target.spin(N)
        best = min(best, time.perf_counter() - started)
    return best * 1000


before = best_loop_ms()
paused = True  # BENCH:stop
after = best_loop_ms()
print(json.dumps({"before": before, "after": after, "spin3": bench_target.spin(3)}), flush=True)
