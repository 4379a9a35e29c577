# next across an `await` that suspends the coroutine (no other task runs) goes on in the
# same coroutine when it resumes; next off its end stops in the awaiter on the await line.
# break: first
# start -> breakpoint@leaf:first
# next -> step@leaf:sleep {x=6}
# next -> step@leaf:after
# next -> step@leaf:ret {y=7}
# next -> step@main:call
# next -> step@main:printed {r=7}
# continue -> exit 0
import asyncio


async def leaf(tag):
    x = tag * 2  # @first
    await asyncio.sleep(0.01)  # @sleep
    y = x + 1  # @after
    return y  # @ret


async def main():
    r = await leaf(3)  # @call
    print(r)  # @printed


asyncio.run(main())
