# Frames that stopped at a breakpoint and ran on are shown where they are at the next
# stop, not on the line where they stopped: a caller, and a coroutine waiting at an
# await (3.9 gives a frame that keeps a trace function the line of its last trace event;
# the tracer must not leave its function on a frame whose thread runs untraced).
# break: main_first
# break: worker_first
# break: leaf
# start -> breakpoint@main:main_first (Task-1)
# continue -> breakpoint@worker:worker_first (w)
# continue -> breakpoint@leaf:leaf (w)
# stack -> leaf:leaf | worker:call_leaf | awaited by Task 'Task-1' | main:await_w |
#          event loop (asyncio.run) | <module>:run
# continue -> exit 0
import asyncio


def leaf(n):
    return n + 1  # @leaf


async def worker():
    n = 1  # @worker_first
    await asyncio.sleep(0)
    return leaf(n)  # @call_leaf


async def main():
    x = 1  # @main_first
    value = await asyncio.create_task(worker(), name="w")  # @await_w
    print(value, x)


asyncio.run(main())  # @run
