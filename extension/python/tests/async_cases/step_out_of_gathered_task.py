# stepOut of a coroutine that asyncio.gather runs as a task of its own ends in the task
# that awaits the gather, once it resumes (every gathered task done): on main's line
# after the await, not in the event loop nor in the other task that runs meanwhile.
# break: body if n == 1
# start -> breakpoint@worker:body (Task-2)
# stepOut -> step@main:after {results=[11, 21]} (Task-1)
# continue -> exit 0
import asyncio


async def worker(n):
    await asyncio.sleep(0)
    value = n * 10 + 1  # @body
    return value


async def main():
    results = await asyncio.gather(worker(1), worker(2))
    print(results)  # @after


asyncio.run(main())
