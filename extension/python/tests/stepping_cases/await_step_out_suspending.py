# stepOut of a coroutine that suspends before it returns ends when it really returns: in
# the awaiter, on its await line; next then finishes the assignment.
# break: first
# start -> breakpoint@inner:first
# stepOut -> step@outer:call
# next -> step@outer:after {r=4}
# continue -> exit 0
import asyncio


async def inner(n):
    m = n * 2  # @first
    await asyncio.sleep(0.01)
    return m


async def outer():
    r = await inner(2)  # @call
    return r  # @after


asyncio.run(outer())
