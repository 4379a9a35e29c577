# An asyncio.gather of tasks that run one coroutine: the breakpoint in it says which task
# stopped; the call stack goes from the coroutine to the task's own coroutine, then to the
# task that gathers them (the loop's frames left out); the tasks of the loop say what each
# does; stepOut ends in the awaiting coroutine of the same task; the gathering task's
# frame is there to evaluate in.
# break: body if n == 1
# start -> breakpoint@fetch:body (fetch-1)
# stack -> fetch:body | worker:call | awaited by Task 'Task-1' (asyncio.gather) |
#          main:gather | event loop (asyncio.run) | <module>:run
# tasks -> Task-1: waiting on asyncio.gather (3 awaitables) | fetch-0: done |
#          fetch-1: running | fetch-2: ready to run
# stack (fetch-2) -> fetch:sleep | worker:call |
#                    awaited by Task 'Task-1' (asyncio.gather) | main:gather
# evaluate@main len(workers) -> = 3
# stepOut -> step@worker:call (fetch-1)
# stack -> worker:call | awaited by Task 'Task-1' (asyncio.gather) | main:gather |
#          event loop (asyncio.run) | <module>:run
# continue -> exit 0
import asyncio


async def fetch(n):
    await asyncio.sleep(0)  # @sleep
    value = n * 10  # @body
    return value


async def worker(n):
    result = await fetch(n)  # @call
    return result + 1


async def main():
    workers = [asyncio.create_task(worker(n), name=f"fetch-{n}") for n in range(3)]
    results = await asyncio.gather(*workers)  # @gather
    print(results)


asyncio.run(main())  # @run
