"""asyncio benchmark (not a test): how long the call stack of a coroutine 20 awaits deep
takes to answer, and what an asyncio program that never stops costs under the debugger.

    python extension/python/tests/bench_async.py [--depth 20] [--waiting 1000] [--stops 20]

The program stops ``--stops`` times in a coroutine ``--depth`` awaits deep: half of them
coroutines awaiting each other in one task, half tasks awaiting each other (each link an
"awaited by" label), while ``--waiting`` other tasks wait on an event, so that finding
who awaits whom has tasks to search. At each stop the stackTrace request is timed from
this end of the debuggee's socket (the engine's relaying left out): the first one, which
reads the loop's tasks, and a second, answered from what the first read. The goal
(docs/async.md): the first within 10 ms.

Then a program that never stops (tasks created, gathered and awaited, 200,000 awaits) is
timed plain and under the debugger with a breakpoint elsewhere: the debugger adds
nothing to a running asyncio program (what is asyncio's is read only at a stop)."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from conftest import PACKAGE_DIR, Debuggee, engine_environment  # noqa: E402
from dapperdbg.children.commands import launcher_start  # noqa: E402

DEEP = textwrap.dedent("""
    import asyncio

    DEPTH = {depth}


    async def nested(level):
        if level == 0:
            return level  # @stop
        return await nested(level - 1) + 1


    async def linked(level):
        if level == 0:
            return level  # @stop
        return await asyncio.create_task(linked(level - 1), name=f"link-{{level}}") + 1


    async def main():
        done = asyncio.Event()
        waiting = [asyncio.create_task(done.wait(), name=f"idle-{{n}}") for n in range({waiting})]
        for round in range({stops}):
            await (nested if round % 2 == 0 else linked)(DEPTH)
        done.set()
        await asyncio.gather(*waiting)


    asyncio.run(main())
""")

RUNNING = textwrap.dedent("""
    import asyncio
    import time


    async def step(n):
        for _ in range(100):
            await asyncio.sleep(0)
        return n


    async def main():
        for _ in range(20):
            await asyncio.gather(*(step(n) for n in range(100)))


    def unused():
        return 0  # @breakpoint


    start = time.perf_counter()
    asyncio.run(main())
    print(time.perf_counter() - start)
""")


def marker_lines(source: str) -> list[int]:
    return [number for number, line in enumerate(source.splitlines(), 1) if "# @" in line]


def launch(path: str, folder: str) -> Debuggee:
    argv = [sys.executable, *launcher_start("program", False, str(PACKAGE_DIR)),
            "--ipc", "{ipc}", "--session-id", "bench", "--program", path]
    debuggee = Debuggee(argv, engine_environment(), folder, "unix", folder)
    debuggee.accept()
    debuggee.configure({"justMyCode": True})
    return debuggee


def timed(debuggee: Debuggee, thread_id: int) -> tuple[float, int]:
    start = time.perf_counter()
    body = debuggee.request("stackTrace", {"threadId": thread_id})
    return (time.perf_counter() - start) * 1000, len(body["stackFrames"])


def stacks(depth: int, waiting: int, stops: int, folder: str) -> None:
    source = DEEP.format(depth=depth, waiting=waiting, stops=stops)
    path = os.path.join(folder, "deep.py")
    with open(path, "w", encoding="utf-8") as file:
        file.write(source)
    debuggee = launch(path, folder)
    try:
        debuggee.set_breakpoints(path, marker_lines(source))
        debuggee.request("configurationDone")
        first, again, sizes = {"awaits": [], "tasks": []}, {"awaits": [], "tasks": []}, {}
        for round in range(stops):
            kind = "awaits" if round % 2 == 0 else "tasks"
            thread_id = debuggee.stopped()["threadId"]
            elapsed, frames = timed(debuggee, thread_id)
            first[kind].append(elapsed)
            again[kind].append(timed(debuggee, thread_id)[0])
            sizes[kind] = frames
            debuggee.request("continue", {"threadId": thread_id})
        debuggee.finish()
    finally:
        debuggee.close()
    for kind, words in (("awaits", "coroutines awaiting each other in one task"),
                        ("tasks", "tasks awaiting each other")):
        print(f"{depth} {words} ({sizes[kind]} stack frames, {waiting} other tasks "
              f"waiting): stackTrace {statistics.median(first[kind]):.2f} ms (median of "
              f"{len(first[kind])}, max {max(first[kind]):.2f}), asked again "
              f"{statistics.median(again[kind]):.2f} ms")


def running(rounds: int, folder: str) -> None:
    path = os.path.join(folder, "running.py")
    with open(path, "w", encoding="utf-8") as file:
        file.write(RUNNING)
    plain, debugged = [], []
    for _ in range(rounds):
        done = subprocess.run([sys.executable, path], capture_output=True, text=True,
                              check=True)
        plain.append(float(done.stdout))
        debuggee = launch(path, folder)
        try:
            debuggee.set_breakpoints(path, marker_lines(RUNNING))
            debuggee.request("configurationDone")
            debuggee.finish()
            debugged.append(float(debuggee.stdout().split()[-1]))
        finally:
            debuggee.close()
    print(f"an asyncio program that never stops (200,000 awaits): plain "
          f"{statistics.median(plain) * 1000:.0f} ms, under the debugger "
          f"{statistics.median(debugged) * 1000:.0f} ms (medians of {rounds}, tracer "
          f"{'monitoring' if sys.version_info >= (3, 12) else 'settrace'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--waiting", type=int, default=1000)
    parser.add_argument("--stops", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    print(f"Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="dapper-bench-async-") as folder:
        stacks(arguments.depth, arguments.waiting, arguments.stops, folder)
        running(arguments.rounds, folder)


if __name__ == "__main__":
    main()
