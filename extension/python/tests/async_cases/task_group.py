# A TaskGroup's tasks are awaited by the task that runs the `async with` block: the stack
# of a child goes on to that task, waiting where the block ends; a task the child
# awaits itself comes first. Stepping past the end of the child's task goes on in the
# task that awaits it, through the group, once the block ends.
# [py>=3.11] break: body
# [py>=3.11] start -> breakpoint@leaf:body (leaf-b)
# [py>=3.11] stack -> leaf:body | awaited by Task 'child-b' | child:await_leaf |
# [py>=3.11]          awaited by Task 'Task-1' (TaskGroup) | main:group |
# [py>=3.11]          event loop (asyncio.run) | <module>:run
# [py>=3.11] stack (child-a) -> child:sleep | awaited by Task 'Task-1' (TaskGroup) | main:group
# [py>=3.11] stepIn -> step@child:after_leaf (child-b)
# [py>=3.11] stepIn -> step@main:after (Task-1)
# [py>=3.11] continue -> exit 0
import asyncio
import sys


async def leaf(tag):
    return tag.upper()  # @body


async def child(tag):
    if tag == "a":
        await asyncio.sleep(0.5)  # @sleep
    else:
        await asyncio.create_task(leaf(tag), name=f"leaf-{tag}")  # @await_leaf
    return tag  # @after_leaf


async def main():
    async with asyncio.TaskGroup() as group:  # @group
        group.create_task(child("a"), name="child-a")
        group.create_task(child("b"), name="child-b")
    print("grouped")  # @after


if sys.version_info >= (3, 11):
    asyncio.run(main())  # @run
