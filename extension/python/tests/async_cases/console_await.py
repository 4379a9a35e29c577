# The debug console in a coroutine: `await` of a coroutine that needs no event loop runs
# to its end; one that gives control to the loop is refused, saying why. The frames of
# the waiting task that awaits this one are there to read and to set: the program goes
# on with the value set.
# break: body
# start -> breakpoint@child:body (child)
# evaluate await double(n) -> = 6
# evaluate r = await double(2); r + 1 -> = 5
# evaluate await asyncio.sleep(0) -> ! await cannot finish while the program is stopped
# evaluate@main await task -> ! it waits for Task 'child', which has not finished
# evaluate@main total -> = 10
# set@main total = 20 -> = 20
# evaluate@main total -> = 20
# continue -> exit 23
import asyncio


async def double(x):
    return x * 2


async def child(n):
    return n  # @body


async def main():
    total = 10
    task = asyncio.create_task(child(3), name="child")
    result = await task  # @await_child
    raise SystemExit(total + result)


asyncio.run(main())
