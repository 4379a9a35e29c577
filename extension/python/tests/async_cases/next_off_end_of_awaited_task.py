# next off the end of a task's own coroutine ends in the coroutine that awaits the task,
# on its line after the await once it resumes; stepping out of the task that
# asyncio.run runs ends in the module, after the loop returns.
# break: ret
# start -> breakpoint@child:ret (child)
# next -> step@main:after {value=42} (Task-1)
# stepOut -> step@<module>:end
# continue -> exit 0
import asyncio


async def child():
    await asyncio.sleep(0)
    return 42  # @ret


async def main():
    task = asyncio.create_task(child(), name="child")
    value = await task
    print(value)  # @after


asyncio.run(main())
print("end")  # @end
