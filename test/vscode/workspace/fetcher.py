"""The program of the real-VS-Code test's asyncio scenario (asyncScenario.mjs): a gather
of named tasks that each run one coroutine."""

import asyncio
import sys


async def fetch(name):
    await asyncio.sleep(0)
    size = len(name) * 100  # the test's breakpoint
    return size


async def worker(name):
    size = await fetch(name)
    return f"{name}: {size}"


async def main():
    tasks = [asyncio.create_task(worker(name), name=f"fetch-{name}") for name in ("alpha", "beta", "gamma")]
    lines = await asyncio.gather(*tasks)
    print("\n".join(lines))
    # The exit code is the total size in hundreds: 14 once every task has run.
    return sum(int(line.split(": ")[1]) for line in lines) // 100


sys.exit(asyncio.run(main()))
