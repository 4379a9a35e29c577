// asyncio end to end, through the real adapter on every CPython of the machine (the cases
// of every situation are the debuggee's pytest suite, extension/python/tests/async_cases):
// a breakpoint in a coroutine gathered by several tasks says which task stopped; the call
// stack goes through the task that awaits it, with a label; dapper/tasks lists the tasks;
// a task's id gives its stack; a waiting task's frames cannot restart; await in the debug
// console; stepOut into the awaiter; and asyncioTasksAsThreads makes the tasks threads.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { pythons } from "./support";
import { failure, type Session, stopped, withSession } from "./control-support";

const program = "asyncio/gather.py";

interface TasksBody {
  loops: { threadId: number; threadName: string; tasks: { id: number; name: string; description: string; location?: { name: string; line: number; source?: { path?: string } } }[] }[];
}

/** A stack as `name:line` for frames and the text of labels. */
function shown(frames: DebugProtocol.StackFrame[]): string[] {
  return frames.map((frame) => (frame.presentationHint === "label" ? frame.name : `${frame.name}:${frame.line}`));
}

async function breakInFetch(session: Session): Promise<void> {
  await session.client.setBreakpointsRequest({ source: { path: session.file(program) }, breakpoints: [{ line: session.line(program, "body"), condition: "n == 1" }] });
}

for (const python of pythons()) {
  describe(`asyncio on Python ${python.version}`, () => {
    test("the stack goes through the awaiting task; the tasks, a task's stack, await in the console, stepOut", async () => {
      await withSession(python, { program }, breakInFetch, async (session) => {
        const at = (name: string) => session.line(program, name);
        const stop = await stopped(session.client, "breakpoint");
        assert.equal(stop.event.body.description, "Paused on breakpoint in Task 'fetch-1'");
        const stack = (await session.client.stackTraceRequest({ threadId: stop.threadId })).body.stackFrames;
        assert.deepEqual(shown(stack), [
          `fetch:${at("body")}`,
          `worker:${at("call")}`,
          "awaited by Task 'Task-1' (asyncio.gather)",
          `main:${at("gather")}`,
          "event loop (asyncio.run)",
          `<module>:${at("run")}`,
        ]);

        const tasks = (await session.client.customRequest("dapper/tasks")).body as TasksBody;
        assert.deepEqual(
          tasks.loops.map((loop) => [loop.threadId, loop.threadName, loop.tasks.map((task) => `${task.name}: ${task.description}`)]),
          [[stop.threadId, "MainThread", ["Task-1: waiting on asyncio.gather (3 awaitables)", "fetch-0: done", "fetch-1: running", "fetch-2: ready to run"]]],
        );
        const waiting = tasks.loops[0].tasks.find((task) => task.name === "fetch-2");
        assert.equal(waiting?.location?.source?.path, session.file(program));
        const waitingStack = (await session.client.stackTraceRequest({ threadId: waiting?.id ?? 0 })).body.stackFrames;
        assert.deepEqual(shown(waitingStack), [`fetch:${at("body") - 1}`, `worker:${at("call")}`, "awaited by Task 'Task-1' (asyncio.gather)", `main:${at("gather")}`]);

        // A waiting task's frames cannot be restarted (nor can a module's): the running
        // task's can.
        assert.deepEqual(
          stack.map((frame) => frame.canRestart),
          [undefined, undefined, undefined, false, undefined, false],
        );
        assert.match(await failure(session.client.restartFrameRequest({ frameId: stack[3].id })), /Cannot restart main: it is not on its thread's stack/);

        const evaluate = (expression: string, frameId: number) => session.client.evaluateRequest({ expression, frameId, context: "repl" });
        assert.equal((await evaluate("await double(n)", stack[0].id)).body.result, "2");
        assert.equal((await evaluate("len(workers)", stack[3].id)).body.result, "3");
        assert.match(await failure(evaluate("await asyncio.sleep(0)", stack[0].id)), /await cannot finish while the program is stopped/);

        await session.client.stepOutRequest({ threadId: stop.threadId });
        const out = await stopped(session.client, "step");
        assert.deepEqual([out.frames[0].name, out.frames[0].line], ["worker", at("call")]);
        assert.equal(out.event.body.description, "Paused on step in Task 'fetch-1'");
        await session.client.continueRequest({ threadId: out.threadId });
        assert.equal(await session.client.finished(), 0);
        assert.equal(session.client.output("stdout"), "[1, 11, 21]\n");
      });
    });

    test("asyncioTasksAsThreads: each task is a thread, and the task that stops is the stopped thread", async () => {
      await withSession(python, { program, asyncioTasksAsThreads: true }, breakInFetch, async (session) => {
        const stop = await stopped(session.client, "breakpoint");
        const threads = (await session.client.threadsRequest()).body.threads;
        assert.deepEqual(
          threads.map((thread) => thread.name),
          ["MainThread", "Task 'Task-1' (waiting on asyncio.gather (3 awaitables))", "Task 'fetch-0' (done)", "Task 'fetch-1' (running)", "Task 'fetch-2' (ready to run)"],
        );
        assert.equal(threads.find((thread) => thread.id === stop.threadId)?.name, "Task 'fetch-1' (running)");
        assert.equal(stop.frames[0].name, "fetch");
        await session.client.continueRequest({ threadId: stop.threadId });
        assert.equal(await session.client.finished(), 0);
      });
    });
  });
}
