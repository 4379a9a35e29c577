// Running and stepping, end to end on every CPython of the machine: next, stepIn, stepOut,
// stopOnEntry, justMyCode, goto, pause, and all threads stopping together with thread
// events. Each case is a row; one helper runs them.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { pythons, waitUntil } from "./support";
import { failure, locals, type Session, stopped, withSession } from "./control-support";

const steps = "stepping/steps.py";

interface Case {
  name: string;
  program?: string;
  launch?: Record<string, unknown>;
  markers?: Array<[file: string, name: string]>;
  run: (session: Session) => Promise<void>;
}

type StepRequest = "next" | "stepIn" | "stepOut";

/** Sends each step from the current stop and returns where each one stopped. */
async function walk(session: Session, threadId: number, requests: StepRequest[]): Promise<Array<[string, number]>> {
  const seen: Array<[string, number]> = [];
  for (const request of requests) {
    if (request === "next") await session.client.nextRequest({ threadId });
    else if (request === "stepIn") await session.client.stepInRequest({ threadId });
    else await session.client.stepOutRequest({ threadId });
    const stop = await stopped(session.client, "step");
    seen.push([stop.frames[0].name ?? "", stop.frames[0].line]);
  }
  return seen;
}

const at = (session: Session, name: string) => session.line(steps, name);

const cases: Case[] = [
  {
    name: "next, stepIn and stepOut",
    markers: [[steps, "main"]],
    run: async (session) => {
      const stop = await stopped(session.client, "breakpoint");
      assert.deepEqual(await walk(session, stop.threadId, ["stepIn", "next", "stepOut", "next", "next"]), [
        ["add", at(session, "add")],
        ["add", at(session, "add") + 1],
        // Out of add where it returned: the call's line, x not assigned yet.
        ["main", at(session, "main")],
        ["main", at(session, "second")],
        ["main", at(session, "scale")],
      ]);
      await session.client.continueRequest({ threadId: stop.threadId });
      assert.equal(await session.client.finished(), 0);
      assert.equal(session.client.output("stdout"), "result 30 6 {'a': 1}\n");
    },
  },
  {
    name: "stepInTargets lists the line's calls in the order they run; stepIn enters the chosen one",
    markers: [[steps, "second"]],
    run: async (session) => {
      const stop = await stopped(session.client, "breakpoint");
      const targets = (await session.client.stepInTargetsRequest({ frameId: stop.frames[0].id })).body.targets;
      assert.deepEqual(targets.map((t) => t.label), ["len", "add"]);
      // A builtin is never entered: that step ends on the next line.
      await session.client.stepInRequest({ threadId: stop.threadId, targetId: targets[0].id });
      const next = await stopped(session.client, "step");
      assert.deepEqual([next.frames[0].name, next.frames[0].line], ["main", at(session, "scale")]);
      await session.client.gotoRequest({ threadId: stop.threadId, targetId: at(session, "second") });
      await stopped(session.client, "goto");
      const again = (await session.client.stackTraceRequest({ threadId: stop.threadId })).body.stackFrames[0];
      const retargets = (await session.client.stepInTargetsRequest({ frameId: again.id })).body.targets;
      await session.client.stepInRequest({ threadId: stop.threadId, targetId: retargets[1].id });
      const entered = await stopped(session.client, "step");
      assert.deepEqual([entered.frames[0].name, entered.frames[0].line], ["add", at(session, "add")]);
      await session.client.continueRequest({ threadId: stop.threadId });
      assert.equal(await session.client.finished(), 0);
    },
  },
  {
    name: "stopOnEntry stops on the program's first line",
    launch: { stopOnEntry: true },
    run: async (session) => {
      const stop = await stopped(session.client, "entry");
      assert.deepEqual([stop.frames[0].name, stop.frames[0].line], ["<module>", 1]);
      await session.client.continueRequest({ threadId: stop.threadId });
      assert.equal(await session.client.finished(), 0);
    },
  },
  {
    name: "justMyCode (the default): stepIn skips the library and ends in the user's callback",
    markers: [[steps, "library"]],
    run: async (session) => {
      const stop = await stopped(session.client, "breakpoint");
      assert.deepEqual(await walk(session, stop.threadId, ["stepIn"]), [["hook", at(session, "hook")]]);
      await session.client.continueRequest({ threadId: stop.threadId });
      assert.equal(await session.client.finished(), 0);
    },
  },
  {
    name: "justMyCode off: stepIn enters the standard library",
    launch: { justMyCode: false },
    markers: [[steps, "library"]],
    run: async (session) => {
      const stop = await stopped(session.client, "breakpoint");
      const [[name]] = await walk(session, stop.threadId, ["stepIn"]);
      assert.equal(name, "loads");
      await session.client.continueRequest({ threadId: stop.threadId });
      assert.equal(await session.client.finished(), 0);
    },
  },
  {
    name: "goto runs a line again; a jump CPython refuses is a clear error",
    markers: [[steps, "library"]],
    run: async (session) => {
      const stop = await stopped(session.client, "breakpoint");
      const targets = (await session.client.gotoTargetsRequest({ source: { path: session.file(steps) }, line: at(session, "scale") })).body.targets;
      assert.deepEqual(targets.map((t) => t.line), [at(session, "scale")]);
      const refused = (await session.client.gotoTargetsRequest({ source: { path: session.file(steps) }, line: at(session, "add") })).body.targets;
      assert.match(await failure(session.client.gotoRequest({ threadId: stop.threadId, targetId: refused[0].id })), /not a line of main/);
      await session.client.gotoRequest({ threadId: stop.threadId, targetId: targets[0].id });
      const moved = await stopped(session.client, "goto");
      assert.equal(moved.frames[0].line, at(session, "scale"));
      await session.client.continueRequest({ threadId: stop.threadId });
      const again = await stopped(session.client, "breakpoint");
      assert.equal((await locals(session.client, again.frames[0].id)).x, "300");
      await session.client.continueRequest({ threadId: again.threadId });
      assert.equal(await session.client.finished(), 0);
      assert.equal(session.client.output("stdout"), "result 300 6 {'a': 1}\n");
    },
  },
  {
    name: "pause stops a program running Python code",
    program: "stepping/loop.py",
    run: async (session) => {
      await waitUntil(() => session.client.output("stdout") === "looping\n", 15000, "the loop to start");
      await session.client.pauseRequest({ threadId: 1 });
      const stop = await stopped(session.client, "pause");
      assert.equal(stop.event.body.allThreadsStopped, true);
      assert.equal(stop.frames[0].name, "<module>");
      const loop = "stepping/loop.py";
      assert.ok([session.line(loop, "while"), session.line(loop, "loop")].includes(stop.frames[0].line));
      const count = Number((await locals(session.client, stop.frames[0].id)).count);
      // Stopped means stopped: the count does not move while the client looks.
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(Number((await locals(session.client, stop.frames[0].id)).count), count);
      await session.client.disconnectRequest({});
    },
  },
  {
    name: "all threads stop together, thread events, continue resumes all",
    program: "stepping/threads.py",
    markers: [["stepping/threads.py", "stopper"]],
    run: async (session) => {
      const stop = await stopped(session.client, "breakpoint");
      assert.equal(stop.event.body.allThreadsStopped, true);
      const threads = new Map((await session.client.threadsRequest()).body.threads.map((t) => [t.name, t.id]));
      assert.equal(threads.get("stopper"), stop.threadId, JSON.stringify([...threads]));
      const spinner = threads.get("spinner");
      assert.ok(spinner !== undefined);
      // The spinning thread parks on a line of its loop within moments; its stack is
      // shown meanwhile too.
      const spinStack = await session.client.stackTraceRequest({ threadId: spinner });
      assert.equal(spinStack.body.stackFrames[0].name, "spinner", JSON.stringify(spinStack.body.stackFrames.map((f) => `${f.name}:${f.line}`)));
      await session.client.continueRequest({ threadId: stop.threadId });
      assert.equal(await session.client.finished(), 0);
      assert.equal(session.client.output("stdout"), "joined\n");
      // Each thread is announced started, then exited (the two threads end in either order).
      const events = session.client.events.filter((e) => e.event === "thread");
      const shown = JSON.stringify(events.map((e) => e.body));
      for (const threadId of [spinner, stop.threadId]) {
        assert.deepEqual(events.filter((e) => e.body.threadId === threadId).map((e) => e.body.reason), ["started", "exited"], shown);
      }
      assert.equal(events.length, 4, shown);
    },
  },
];

for (const python of pythons()) {
  describe(`stepping on Python ${python.version}`, () => {
    for (const row of cases) {
      test(row.name, async () => {
        await withSession(
          python,
          { program: row.program ?? steps, ...row.launch },
          async (session) => {
            const byFile = new Map<string, number[]>();
            for (const [file, name] of row.markers ?? []) byFile.set(file, [...(byFile.get(file) ?? []), session.line(file, name)]);
            for (const [file, lines] of byFile) {
              const response = await session.client.setBreakpointsRequest({ source: { path: session.file(file) }, breakpoints: lines.map((line) => ({ line })) });
              assert.ok(response.body.breakpoints.every((bp) => bp.verified));
            }
          },
          row.run,
        );
      });
    }
  });
}
