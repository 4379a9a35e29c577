"""Timings of the inspection hot paths, measured in the debuggee's own code
as a ``variables`` request runs them: on a parked thread, through the work hand-off.

Run: python extension/python/benchmarks/inspection_timings.py
Budget: each well under 5 ms.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

from parked import Parked  # noqa: E402

from dapperdbg.common.paths import PathCache  # noqa: E402
from dapperdbg.inspection.inspector import Container, Inspector  # noqa: E402


def thousand_locals(parked: Parked):
    namespace: dict = {}
    lines = [f"    v{i} = {i}" if i % 3 else f"    v{i} = [{i}, 'x']" for i in range(1000)]
    source = "def f(parked, sys):\n" + "\n".join(lines) + (
        "\n    parked.frame = sys._getframe()\n    parked.ready.set()\n    parked.signal.wait()\n"
    )
    exec(source, namespace)
    namespace["f"](parked, sys)


def main() -> None:
    import threading

    parked = Parked()
    thread = threading.Thread(target=thousand_locals, args=(parked,), daemon=True)
    thread.start()
    parked.ready.wait()
    inspector = Inspector(PathCache())
    big = list(range(1_000_000))
    scope = inspector.containers.add(Container("locals", parked.frame, None, 1, parked.frame))
    value = inspector.containers.add(Container("value", big, "big", 1, parked.frame))
    cases = {
        "variables of a frame with 1,000 locals": lambda: inspector.variables(scope),
        "last page (100) of a 1,000,000-item list": lambda: inspector.variables(
            value, "indexed", 999_900, 100),
    }
    for name, work in cases.items():
        samples = []
        for _ in range(50):
            started = time.perf_counter()
            body = parked.run(work)
            samples.append((time.perf_counter() - started) * 1000)
        print(f"{name}: median {statistics.median(samples):.2f} ms, "
              f"max {max(samples):.2f} ms ({len(body['variables'])} variables)")
    parked.signal.set()


if __name__ == "__main__":
    main()
