# asyncio.wait, shield and as_completed link a task to the task that waits for it, each
# label and state naming the combinator; a task that failed beside a gather's others is
# listed as failed.
# break: look
# start -> breakpoint@look:look (look)
# tasks -> Task-1: waiting on asyncio.gather (5 awaitables) |
#          a0: waiting in asyncio.Event.wait | a1: waiting in asyncio.Event.wait |
#          by-as-completed: waiting on 2 tasks (asyncio.as_completed) |
#          by-shield: waiting on Task 'shielded' (asyncio.shield) |
#          by-wait: waiting on 2 tasks (asyncio.wait) | fail: failed: ValueError |
#          gatherer: waiting on asyncio.gather (2 awaitables) | look: running |
#          other: waiting in asyncio.Event.wait | shielded: waiting in asyncio.Event.wait |
#          w0: waiting in asyncio.Event.wait | w1: waiting in asyncio.Event.wait
# stack (w0) -> leaf:wait | awaited by Task 'by-wait' (asyncio.wait) | by_wait:wait_all |
#               awaited by Task 'Task-1' (asyncio.gather) | main:gather
# stack (shielded) -> leaf:wait | awaited by Task 'by-shield' (asyncio.shield) |
#                     by_shield:shield | awaited by Task 'Task-1' (asyncio.gather) | main:gather
# stack (a1) -> leaf:wait | awaited by Task 'by-as-completed' (asyncio.as_completed) |
#               by_as_completed:as_completed | awaited by Task 'Task-1' (asyncio.gather) |
#               main:gather
# continue -> exit 0
import asyncio

state = {}


async def leaf():
    await state["event"].wait()  # @wait


async def fails():
    raise ValueError("no")


async def by_wait(tasks):
    await asyncio.wait(tasks)  # @wait_all


async def by_shield(task):
    await asyncio.shield(task)  # @shield


async def by_as_completed(tasks):
    for next_done in asyncio.as_completed(tasks):
        await next_done  # @as_completed


async def gatherer(tasks):
    await asyncio.gather(*tasks, return_exceptions=True)


async def look():
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    state["event"].set()  # @look


def named(coroutine, name):
    return asyncio.create_task(coroutine, name=name)


async def main():
    state["event"] = asyncio.Event()
    waited = [named(leaf(), f"w{n}") for n in range(2)]
    completed = [named(leaf(), f"a{n}") for n in range(2)]
    gathered = [named(fails(), "fail"), named(leaf(), "other")]
    await asyncio.gather(  # @gather
        named(by_wait(waited), "by-wait"), named(by_shield(named(leaf(), "shielded")), "by-shield"),
        named(by_as_completed(completed), "by-as-completed"), named(gatherer(gathered), "gatherer"),
        named(look(), "look"))


asyncio.run(main())
