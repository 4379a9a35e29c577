# asyncioTasksAsThreads: each task is a thread named after it, with what it does; the task
# that stops is the stopped thread, and its steps go on in it; a task that waits cannot
# step; pausing lists every task with its stack.
# options: asyncioTasksAsThreads
# break: body if n == 1
# start -> breakpoint@fetch:body (fetch-1)
# threads -> MainThread | Task 'Task-1' (waiting on asyncio.gather (3 awaitables)) |
#            Task 'fetch-0' (done) | Task 'fetch-1' (running) | Task 'fetch-2' (ready to run)
# stack -> fetch:body | worker:call | awaited by Task 'Task-1' (asyncio.gather) |
#          main:gather | event loop (asyncio.run) | <module>:run
# stack (fetch-2) -> fetch:sleep | worker:call |
#                    awaited by Task 'Task-1' (asyncio.gather) | main:gather
# next (fetch-2) -> ! Task 'fetch-2' is not running (ready to run)
# next -> step@fetch:ret (fetch-1)
# continue -> exit 0
import asyncio


async def fetch(n):
    await asyncio.sleep(0)  # @sleep
    value = n * 10  # @body
    return value  # @ret


async def worker(n):
    result = await fetch(n)  # @call
    return result + 1


async def main():
    workers = [asyncio.create_task(worker(n), name=f"fetch-{n}") for n in range(3)]
    results = await asyncio.gather(*workers)  # @gather
    print(results)


asyncio.run(main())  # @run
