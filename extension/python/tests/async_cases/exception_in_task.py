# An exception raised in a task stops there (raised filter), its stack going on through
# the task that awaits it.
# exceptions: raised
# start -> exception@fetch:raise (fetch)
# stack -> fetch:raise | awaited by Task 'Task-1' | main:await_fetch |
#          event loop (asyncio.run) | <module>:run
# continue -> exit 0
import asyncio


async def fetch():
    raise KeyError("missing")  # @raise


async def main():
    try:
        await asyncio.create_task(fetch(), name="fetch")  # @await_fetch
    except KeyError as error:
        print("caught", error)


asyncio.run(main())  # @run
