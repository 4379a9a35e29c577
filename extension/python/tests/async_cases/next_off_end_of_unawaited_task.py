# A task that no task awaits: next off the end of its coroutine, and stepOut of it, let
# the program run on (no stop in the event loop, nor in main, nor after asyncio.run).
# break: ret if n == 1
# start -> breakpoint@background:ret (background-1)
# next -> exit 0
import asyncio


async def background(n):
    await asyncio.sleep(0)
    return n  # @ret


async def main():
    tasks = [asyncio.create_task(background(n), name=f"background-{n}") for n in (1, 2)]
    await asyncio.sleep(0.05)
    print("done", [task.result() for task in tasks])


asyncio.run(main())
print("end")
