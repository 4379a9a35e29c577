# justMyCode off: the frames that run the event loop are shown below its label, asyncio's
# own included.
# options: justMyCode=false
# break: body
# start -> breakpoint@child:body (child)
# [py<3.11] stack -> child:body | awaited by Task 'Task-1' | main:await_child |
# [py<3.11]          event loop (asyncio.run) | _run:* | _run_once:* | run_forever:* |
# [py<3.11]          run_until_complete:* | run:* | <module>:run
# [py>=3.11] stack -> child:body | awaited by Task 'Task-1' | main:await_child |
# [py>=3.11]          event loop (asyncio.run) | _run:* | _run_once:* | run_forever:* |
# [py>=3.11]          run_until_complete:* | run:* | run:* | <module>:run
# continue -> exit 0
import asyncio


async def child():
    return 1  # @body


async def main():
    await asyncio.create_task(child(), name="child")  # @await_child


asyncio.run(main())  # @run
