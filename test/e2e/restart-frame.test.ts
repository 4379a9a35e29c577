// Edit and continue end to end, on every CPython of the machine: a real DAP client stops in
// a function, the test edits the file, sends `dapper/hotReload`, then `restartFrame` on a
// frame of the stopped thread's stack, and checks that the restarted function runs its NEW
// code from its first line with its original arguments, what happened to the frames above
// it, what the program prints in the end, and that the call stack keeps its depth.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { type InitializeArguments, type Python, pythons, RecordingClient, waitUntil } from "./support";
import { failure, locals, type Stop, stopped } from "./control-support";

/** A program in a scratch folder whose lines are named by `# BP:<name>` markers. */
interface Program {
  file: string;
  line(name: string): number;
  edit(from: string, to: string): void;
}

interface Session {
  client: RecordingClient;
  program: Program;
  /** Reloads the program's file; fails the test when nothing was updated. */
  reload(): Promise<string[]>;
  setBreakpoints(names: string[]): Promise<void>;
  /** restartFrame on `frame`, then the `restart` stop it must cause. */
  restart(frame: DebugProtocol.StackFrame): Promise<Stop & { response: DebugProtocol.RestartFrameResponse }>;
  /** Clears the breakpoints, continues, and returns what the program printed. */
  finish(threadId: number): Promise<string>;
}

async function withProgram(python: Python, source: string, breakpoints: string[], body: (session: Session) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "dapper-restart-"));
  const file = path.join(dir, "app.py");
  writeFileSync(file, source);
  const program: Program = {
    file,
    line: (name) => {
      const index = readFileSync(file, "utf8").split("\n").findIndex((text) => text.endsWith(`# BP:${name}`));
      assert.ok(index >= 0, `marker ${name}`);
      return index + 1;
    },
    edit: (from, to) => {
      const text = readFileSync(file, "utf8");
      assert.ok(text.includes(from), `the edit applies: ${from}`);
      writeFileSync(file, text.replace(from, to));
    },
  };
  const client = new RecordingClient();
  await client.start();
  const setBreakpoints = async (names: string[]) => {
    await client.setBreakpointsRequest({ source: { path: file }, breakpoints: names.map((name) => ({ line: program.line(name) })) });
  };
  const session: Session = {
    client,
    program,
    reload: async () => {
      const response = await client.customRequest("dapper/hotReload", { source: { path: file } });
      const updated = (response.body as { updated: string[] }).updated;
      assert.ok(updated.length > 0, `the reload updated something: ${JSON.stringify(response.body)}`);
      return updated;
    },
    setBreakpoints,
    restart: async (frame) => {
      const response = await client.restartFrameRequest({ frameId: frame.id });
      return { ...(await stopped(client, "restart")), response };
    },
    finish: async (threadId) => {
      await setBreakpoints([]);
      await client.continueRequest({ threadId });
      assert.equal(await client.finished(), 0);
      return client.output("stdout");
    },
  };
  try {
    await client.initializeRequest({ adapterID: "dapper", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path", supportsDapperEvents: true } as InitializeArguments);
    const initialized = client.next("initialized");
    const launched = client.launchRequest({ program: file, cwd: dir, console: "internalConsole", python: python.executable } as DebugProtocol.LaunchRequestArguments);
    launched.catch(() => undefined);
    await Promise.race([initialized, launched]);
    await initialized;
    await setBreakpoints(breakpoints);
    await client.configurationDoneRequest();
    await launched;
    await body(session);
  } finally {
    await client.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// The program's output comes through its own pipe, not in order with the debuggee's events.
async function printed(client: RecordingClient, text: string): Promise<void> {
  await waitUntil(() => client.output("stdout") === text, 5000, `stdout ${JSON.stringify(text)} (so far ${JSON.stringify(client.output("stdout"))})`);
}

const names = (frames: DebugProtocol.StackFrame[]) => frames.map((frame) => frame.name);

// g called by f; g leaves a trace when it unwinds.
const CALLS = `def g(x):
    y = x + 1  # BP:g-first
    try:
        return y * 10  # BP:g
    finally:
        print("g finally", flush=True)


def f(x):
    r = g(x)  # BP:f-first
    return r + 1


print("result", f(1), flush=True)
`;

const ASYNC = `import asyncio


async def inner(x):
    await asyncio.sleep(0)  # BP:inner-first
    y = x + 1  # BP:inner
    return y * 10


async def outer():
    r = await inner(1)
    return r + 1


print("result", asyncio.run(outer()), flush=True)
`;

const SUPER = `class Base:
    def value(self):
        return 1


class Child(Base):
    def value(self):
        base = super().value()  # BP:value
        return base + 10


print("result", Child().value(), flush=True)
`;

const LOCK = `import threading

lock = threading.Lock()


def work(n):
    with lock:  # BP:work-first
        total = n * 2  # BP:work
        return total


print("result", work(1), "locked", lock.locked(), flush=True)
`;

const REBOUND = `def scale(n, factor, seen):
    seen.append(n)  # BP:scale-first
    n = n * factor
    factor = 0
    return n  # BP:scale


print("result", scale(3, 2, []), flush=True)
`;

const GENERATOR = `def numbers():
    yield 1
    x = 2  # BP:gen
    yield x


print("result", list(numbers()), flush=True)
`;

for (const python of pythons()) {
  describe(`restart frame after a hot reload on Python ${python.version}`, () => {
    test("the stopped function restarts with its new code; its caller gets the new result; a second edit-and-restart keeps the stack's depth", async () => {
      await withProgram(python, CALLS, ["g"], async ({ client, program, reload, setBreakpoints, restart, finish }) => {
        const first = await stopped(client, "breakpoint");
        assert.deepEqual(names(first.frames), ["g", "f", "<module>"]);
        // Functions can be restarted; the module's frame cannot.
        assert.deepEqual(first.frames.map((frame) => frame.canRestart !== false), [true, true, false]);
        program.edit("return y * 10", "return y * 100");
        assert.deepEqual(await reload(), ["g"]);
        await setBreakpoints([]);
        const again = await restart(first.frames[0]);
        assert.equal((again.response.body as { runsOldCode?: boolean } | undefined)?.runsOldCode, false);
        assert.deepEqual(names(again.frames), ["g", "f", "<module>"]);
        assert.equal(again.frames[0].line, program.line("g-first"));
        assert.equal((await locals(client, again.frames[0].id)).x, "1");
        // Its finally block ran once as the old call unwound.
        await printed(client, "g finally\n");

        // Again, on the restarted frame: the same depth, the newest code.
        program.edit("return y * 100", "return y * 1000");
        assert.deepEqual(await reload(), ["g"]);
        const third = await restart(again.frames[0]);
        assert.deepEqual(names(third.frames), ["g", "f", "<module>"]);
        assert.equal(third.frames[0].line, program.line("g-first"));
        const all = await client.stackTraceRequest({ threadId: third.threadId });
        assert.equal(all.body.totalFrames ?? all.body.stackFrames.length, 3);
        // The second restart left g before its try block: no finally ran then.
        assert.equal(await finish(third.threadId), "g finally\ng finally\nresult 2001\n");
      });
    });

    test("restarting a caller unwinds the frames above it and runs the caller's new code", async () => {
      await withProgram(python, CALLS, ["g"], async ({ client, program, reload, setBreakpoints, restart, finish }) => {
        const first = await stopped(client, "breakpoint");
        program.edit("return r + 1", "return r + 2");
        assert.deepEqual(await reload(), ["f"]);
        await setBreakpoints([]);
        const again = await restart(first.frames[1]);
        assert.deepEqual(names(again.frames), ["f", "<module>"]);
        assert.equal(again.frames[0].line, program.line("f-first"));
        await printed(client, "g finally\n");
        assert.equal(await finish(again.threadId), "g finally\ng finally\nresult 22\n");
      });
    });

    test("a coroutine awaited by another restarts with its new code", async () => {
      await withProgram(python, ASYNC, ["inner"], async ({ client, program, reload, setBreakpoints, restart, finish }) => {
        const first = await stopped(client, "breakpoint");
        assert.equal(first.frames[0].name, "inner");
        assert.notEqual(first.frames[0].canRestart, false);
        program.edit("return y * 10", "return y * 100");
        await reload();
        await setBreakpoints([]);
        const again = await restart(first.frames[0]);
        assert.equal(again.frames[0].name, "inner");
        assert.equal(again.frames[0].line, program.line("inner-first"));
        assert.deepEqual(names(again.frames), names(first.frames));
        assert.equal(await finish(again.threadId), "result 201\n");
      });
    });

    test("a method using zero-argument super() restarts with its new code", async () => {
      await withProgram(python, SUPER, ["value"], async ({ client, program, reload, setBreakpoints, restart, finish }) => {
        const first = await stopped(client, "breakpoint");
        // Qualified names from 3.11 on (code objects have co_qualname there).
        assert.match(first.frames[0].name, /^(Child\.)?value$/);
        program.edit("return base + 10", "return base + 20");
        await reload();
        await setBreakpoints([]);
        const again = await restart(first.frames[0]);
        assert.equal(again.frames[0].line, program.line("value"));
        assert.deepEqual(names(again.frames), names(first.frames));
        assert.equal(await finish(again.threadId), "result 21\n");
      });
    });

    test("a with block left by the restart releases its lock", async () => {
      await withProgram(python, LOCK, ["work"], async ({ client, program, reload, setBreakpoints, restart, finish }) => {
        const first = await stopped(client, "breakpoint");
        const held = await client.evaluateRequest({ expression: "lock.locked()", frameId: first.frames[0].id, context: "watch" });
        assert.equal(held.body.result, "True");
        program.edit("total = n * 2", "total = n * 3");
        await reload();
        await setBreakpoints([]);
        const again = await restart(first.frames[0]);
        assert.equal(again.frames[0].line, program.line("work-first"));
        const released = await client.evaluateRequest({ expression: "lock.locked()", frameId: again.frames[0].id, context: "watch" });
        assert.equal(released.body.result, "False");
        assert.equal(await finish(again.threadId), "result 3 locked False\n");
      });
    });

    test("arguments rebound before the stop are restored; one changed in place is named", async () => {
      await withProgram(python, REBOUND, ["scale"], async ({ client, program, reload, setBreakpoints, restart, finish }) => {
        const first = await stopped(client, "breakpoint");
        const before = await locals(client, first.frames[0].id);
        assert.deepEqual([before.n, before.factor, before.seen], ["6", "0", "[3]"]);
        program.edit("    return n  # BP:scale", "    return n + 100  # BP:scale");
        await reload();
        await setBreakpoints([]);
        const again = await restart(first.frames[0]);
        assert.equal(again.frames[0].line, program.line("scale-first"));
        const after = await locals(client, again.frames[0].id);
        // n and factor were rebound: they are the call's again. seen was changed in place:
        // the restart cannot undo that, and says so.
        assert.deepEqual([after.n, after.factor, after.seen], ["3", "2", "[3]"]);
        const notes = (again.response.body as { notes?: string[] } | undefined)?.notes ?? [];
        assert.ok(notes.some((note) => note.includes("seen")), `a note names seen: ${JSON.stringify(notes)}`);
        assert.match(client.output("console"), /Restarting scale: .*seen/);
        assert.equal(await finish(again.threadId), "result 106\n");
      });
    });

    test("a generator's frame is refused with the reason", async () => {
      await withProgram(python, GENERATOR, ["gen"], async ({ client, program, reload, finish }) => {
        const first = await stopped(client, "breakpoint");
        assert.deepEqual(names(first.frames), ["numbers", "<module>"]);
        assert.deepEqual(first.frames.map((frame) => frame.canRestart), [false, false]);
        program.edit("x = 2", "x = 3");
        await reload();
        assert.match(await failure(client.restartFrameRequest({ frameId: first.frames[0].id })), /generator/);
        assert.match(await failure(client.restartFrameRequest({ frameId: first.frames[1].id })), /module-level/);
        // Nothing moved: the stack is as it was, and the program goes on.
        const stack = await client.stackTraceRequest({ threadId: first.threadId });
        assert.deepEqual(stack.body.stackFrames.map((frame) => [frame.name, frame.line]), first.frames.map((frame) => [frame.name, frame.line]));
        assert.equal(await finish(first.threadId), "result [1, 2]\n");
      });
    });
  });
}
