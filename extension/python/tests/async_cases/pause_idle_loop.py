# Pausing a program whose event loop has nothing to run (every task waits; the loop sits
# in its select): the thread is shown where the program runs the loop, and the tasks say
# where each waits, each with its stack. The console wakes the loop from the paused
# thread's frame (the program then parks on its next line until the continue).
# break: ready
# start -> breakpoint@prepare:ready
# continue -> running
# pause -> pause@<module>:run
# stack -> <module>:run
# tasks -> Task-1: waiting on Task 'waiter' | waiter: waiting in asyncio.Event.wait
# stack (waiter) -> wait_forever:wait | awaited by Task 'Task-1' | main:await_waiter
# stack (Task-1) -> main:await_waiter
# evaluate state.loop.call_soon_threadsafe(state.done.set) and 'woken' -> = 'woken'
# continue -> exit 0
import asyncio
import types

state = types.SimpleNamespace()


async def wait_forever():
    await state.done.wait()  # @wait


def prepare():
    state.loop = asyncio.get_running_loop()
    state.done = asyncio.Event()  # @ready


async def main():
    prepare()
    await asyncio.create_task(wait_forever(), name="waiter")  # @await_waiter
    print("woken")


asyncio.run(main())  # @run
