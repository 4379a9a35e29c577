# stepIn at `await inner(2)` enters the coroutine; next over its `await asyncio.sleep(0)`
# (which suspends it for one turn of the loop) stops on its next line.
# break: call
# start -> breakpoint@outer:call
# stepIn -> step@inner:first {n=2}
# next -> step@inner:sleep
# next -> step@inner:after {m=3}
# continue -> exit 0
import asyncio


async def inner(n):
    m = n + 1  # @first
    await asyncio.sleep(0)  # @sleep
    return m * 2  # @after


async def outer():
    r = await inner(2)  # @call
    return r


asyncio.run(outer())
