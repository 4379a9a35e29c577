# asyncio.wait_for of a task, and a task awaiting a task awaiting a task: each task up the
# chain is a label naming how it awaits, then its frames where it waits.
# break: body
# start -> breakpoint@inner:body (inner)
# stack -> inner:body | awaited by Task 'middle' | middle:await_inner |
#          awaited by Task 'outer' (asyncio.wait_for) | outer:wait_for |
#          awaited by Task 'Task-1' | main:await_outer |
#          event loop (asyncio.run) | <module>:run
# tasks -> Task-1: waiting on Task 'outer' | inner: running | middle: waiting on Task 'inner' |
#          outer: waiting on Task 'middle' (asyncio.wait_for)
# continue -> exit 0
import asyncio


async def inner():
    return 42  # @body


async def middle():
    return await asyncio.create_task(inner(), name="inner")  # @await_inner


async def outer():
    task = asyncio.create_task(middle(), name="middle")
    return await asyncio.wait_for(task, 5)  # @wait_for


async def main():
    print(await asyncio.create_task(outer(), name="outer"))  # @await_outer


asyncio.run(main())  # @run
