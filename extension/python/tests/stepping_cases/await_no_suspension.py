# Stepping through a coroutine whose awaits do not suspend (it awaits another coroutine
# that returns at once) is plain stepping: stepIn, next, and stepOut to the await line.
# break: call
# start -> breakpoint@outer:call
# stepIn -> step@inner:body {n=2}
# stepOut -> step@outer:call
# next -> step@outer:after {r=3}
# continue -> exit 0
import asyncio


async def inner(n):
    return n + 1  # @body


async def outer():
    r = await inner(2)  # @call
    return r  # @after


asyncio.run(outer())
