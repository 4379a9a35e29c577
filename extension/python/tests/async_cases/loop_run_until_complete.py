# A program (or a server: aiohttp's run_app, uvicorn before 3.12) that runs its event loop
# itself, with run_until_complete: the label over the frames that started it names that
# call, on every Python (before 3.11 the method's name comes from the loop's own class).
# break: body
# start -> breakpoint@handle:body (handler)
# stack -> handle:body | awaited by Task 'Task-1' | main:await_handler |
#          event loop (run_until_complete) | serve:run | <module>:serve
# continue -> exit 0
import asyncio


async def handle():
    await asyncio.sleep(0)
    return 7  # @body


async def main():
    print(await asyncio.create_task(handle(), name="handler"))  # @await_handler


def serve():
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(main())  # @run
    finally:
        loop.close()


serve()  # @serve
