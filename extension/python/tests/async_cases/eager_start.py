# A task started eagerly (3.12+: asyncio.Task(..., eager_start=True), or any task of a loop
# whose task factory is asyncio.eager_task_factory) runs its first step inside the code
# that creates it, as aiohttp runs a request's handler: under its frames, a label names
# the task that starts it, then that task's frames where it creates it, then who awaits
# that task. The starting task is running too (not ready to run), and its own stack
# begins where it creates the other.
# [py>=3.12] break: body
# [py>=3.12] start -> breakpoint@handle:body (request)
# [py>=3.12] stack -> handle:body | lookup:call | started eagerly by Task 'connection' |
# [py>=3.12]          start:create | serve:call_start |
# [py>=3.12]          awaited by Task 'Task-1' | main:await_serve |
# [py>=3.12]          event loop (asyncio.run) | <module>:run
# [py>=3.12] tasks -> Task-1: waiting on Task 'connection' |
# [py>=3.12]          connection: starting Task 'request' eagerly | request: running
# [py>=3.12] stack (connection) -> start:create | serve:call_start |
# [py>=3.12]                       awaited by Task 'Task-1' | main:await_serve |
# [py>=3.12]                       event loop (asyncio.run) | <module>:run
# [py>=3.12] evaluate@serve n + 1 -> = 4
# [py>=3.12] continue -> exit 0
import asyncio


async def handle(n):
    value = n * 2  # @body
    await asyncio.sleep(0)
    return value


async def lookup(n):
    return await handle(n)  # @call


def start(n):
    loop = asyncio.get_running_loop()
    return asyncio.Task(lookup(n), loop=loop, name="request", eager_start=True)  # @create


async def serve(n):
    task = start(n)  # @call_start
    return await task


async def main():
    print(await asyncio.create_task(serve(3), name="connection"))  # @await_serve


asyncio.run(main())  # @run
