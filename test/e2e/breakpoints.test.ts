// Breakpoints of every kind, end to end on every CPython of the machine: line breakpoints
// (in a module imported later, verified by a `breakpoint` event; in a module never
// imported; replaced while stopped and while running; on lines the instrumented copies
// take and on lines they leave to the tracer), conditions,
// hit conditions, log points, function breakpoints, exception breakpoints with
// exceptionInfo, and breakpointLocations. Each case is a row; one helper runs them.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { pythons } from "./support";
import { consoleOutput, failure, locals, type Session, stopped, withSession } from "./control-support";

const app = "breakpoints/app.py";
const late = "breakpoints/late.py";
const unused = "breakpoints/unused.py";

/** A source breakpoint on the `square` marker with extra properties, and the values of
 * `n` at the stops it causes (each stop is continued) plus the console output it makes. */
interface SquareCase {
  name: string;
  breakpoint: Partial<DebugProtocol.SourceBreakpoint>;
  stopsAt: string[];
  console?: RegExp;
  importantOutputs?: number;
}

const squareCases: SquareCase[] = [
  { name: "a plain breakpoint stops on every call", breakpoint: {}, stopsAt: ["1", "2", "3", "4", "5"] },
  { name: "a condition", breakpoint: { condition: "n % 2 == 1" }, stopsAt: ["1", "3", "5"] },
  { name: "hit condition N: the Nth hit only", breakpoint: { hitCondition: "2" }, stopsAt: ["2"] },
  { name: "hit condition >N", breakpoint: { hitCondition: ">3" }, stopsAt: ["4", "5"] },
  { name: "hit condition >=N", breakpoint: { hitCondition: ">=4" }, stopsAt: ["4", "5"] },
  { name: "hit condition ==N", breakpoint: { hitCondition: "==5" }, stopsAt: ["5"] },
  { name: "hit condition %N", breakpoint: { hitCondition: "%2" }, stopsAt: ["2", "4"] },
  { name: "a hit condition counts only hits whose condition holds", breakpoint: { condition: "n > 1", hitCondition: "3" }, stopsAt: ["4"] },
  {
    name: "a log point prints with {expressions} and never stops",
    breakpoint: { logMessage: "n={n} square={n * n} {{braces}}" },
    stopsAt: [],
    console: /^n=1 square=1 \{braces\}\nn=2 square=4 \{braces\}\n(.*\n){2}n=5 square=25 \{braces\}\n$/,
  },
  {
    name: "a condition that raises stops every time and is reported once",
    breakpoint: { condition: "no_such_name > 1" },
    stopsAt: ["1", "2", "3", "4", "5"],
    importantOutputs: 1,
  },
];

interface Case {
  name: string;
  args?: string[];
  /** Sets things up before configurationDone; what it returns is handed to `run`. */
  configure: (session: Session) => Promise<unknown>;
  run: (session: Session, configured: unknown) => Promise<void>;
  exitCode?: number;
}

async function setLines(session: Session, file: string, lines: Array<Partial<DebugProtocol.SourceBreakpoint> & { line: number }>) {
  const response = await session.client.setBreakpointsRequest({ source: { path: session.file(file) }, breakpoints: lines });
  return response.body.breakpoints;
}

async function continueAll(session: Session, threadId: number) {
  await session.client.continueRequest({ threadId });
}

const cases: Case[] = [
  ...squareCases.map((row): Case => ({
    name: row.name,
    configure: async (session) => {
      const [bp] = await setLines(session, app, [{ line: session.line(app, "square"), ...row.breakpoint }]);
      assert.equal(bp.verified, true, JSON.stringify(bp));
    },
    run: async (session) => {
      const seen: string[] = [];
      for (let i = 0; i < row.stopsAt.length; i++) {
        const stop = await stopped(session.client, "breakpoint");
        assert.equal(stop.frames[0].line, session.line(app, "square"));
        seen.push((await locals(session.client, stop.frames[0].id)).n);
        await continueAll(session, stop.threadId);
      }
      assert.deepEqual(seen, row.stopsAt);
      assert.equal(await session.client.finished(), 0);
      if (row.console) assert.match(consoleOutput(session.client), row.console);
      if (row.importantOutputs !== undefined) {
        const important = session.client.events.filter((e) => e.event === "output" && e.body.category === "important");
        assert.equal(important.length, row.importantOutputs, JSON.stringify(important));
        assert.match(String(important[0].body.output), /NameError/);
      }
    },
  })),
  {
    name: "a breakpoint in a module imported later: shown verified at once (moved), confirmed by an event before it stops",
    configure: async (session) => {
      const [bp] = await setLines(session, late, [{ line: session.line(late, "above-late") }]);
      // Armed and waiting for the import: shown verified (clients draw an unverified
      // breakpoint as rejected), at the line it resolved to in the file.
      assert.equal(bp.verified, true, JSON.stringify(bp));
      assert.equal(bp.message, undefined);
      assert.equal(bp.reason, undefined);
      assert.equal(bp.line, session.line(late, "late"), "moved to the next executable line");
      return bp.id;
    },
    run: async (session, id) => {
      const stop = await stopped(session.client, "breakpoint");
      assert.equal(stop.frames[0].source?.path, session.file(late));
      assert.deepEqual(stop.frames.slice(0, 2).map((f) => f.name), ["triple", "main"]);
      assert.deepEqual(stop.event.body.hitBreakpointIds, [id]);
      const events = session.client.events;
      const changed = events.findIndex((e) => e.event === "breakpoint");
      assert.ok(changed >= 0 && changed < events.findIndex((e) => e.event === "stopped"), "the breakpoint event comes before the stop");
      assert.deepEqual(events[changed].body, {
        reason: "changed",
        breakpoint: { id, verified: true, line: session.line(late, "late"), source: { path: session.file(late) } },
      });
      await continueAll(session, stop.threadId);
      assert.equal(await session.client.finished(), 0);
      assert.equal(breakpointEvents(session).length, 1, "announced once");
    },
  },
  {
    name: "a breakpoint set while stopped in a module already imported is verified at once",
    configure: async (session) => {
      await setLines(session, app, [{ line: session.line(app, "call-late") }]);
    },
    run: async (session) => {
      const first = await stopped(session.client, "breakpoint");
      const [bp] = await setLines(session, late, [{ line: session.line(late, "late") }]);
      assert.deepEqual([bp.verified, bp.line, bp.message], [true, session.line(late, "late"), undefined]);
      await continueAll(session, first.threadId);
      const second = await stopped(session.client, "breakpoint");
      assert.equal(second.frames[0].name, "triple");
      await continueAll(session, second.threadId);
      assert.equal(await session.client.finished(), 0);
      assert.deepEqual(breakpointEvents(session), []);
    },
  },
  {
    name: "a breakpoint in a module never imported is shown at its line, never stops, and the program finishes",
    configure: async (session) => {
      const [bp] = await setLines(session, unused, [{ line: session.line(unused, "unused") }]);
      assert.equal(bp.verified, true);
      assert.equal(bp.line, session.line(unused, "unused"));
    },
    run: async (session) => {
      assert.equal(await session.client.finished(), 0);
      assert.deepEqual(breakpointEvents(session), []);
      assert.ok(!session.client.events.some((e) => e.event === "stopped"));
    },
  },
  {
    name: "setBreakpoints while stopped replaces the file's set",
    configure: async (session) => {
      await setLines(session, app, [{ line: session.line(app, "loop") }]);
    },
    run: async (session) => {
      const first = await stopped(session.client, "breakpoint");
      assert.equal(first.frames[0].line, session.line(app, "loop"));
      const replaced = await setLines(session, app, [{ line: session.line(app, "after") }]);
      assert.equal(replaced.length, 1);
      await continueAll(session, first.threadId);
      const second = await stopped(session.client, "breakpoint");
      assert.equal(second.frames[0].line, session.line(app, "after"), "the loop breakpoint is gone");
      assert.equal((await locals(session.client, second.frames[0].id)).total, "55");
      await continueAll(session, second.threadId);
      assert.equal(await session.client.finished(), 0);
    },
  },
  {
    name: "function breakpoints: verified when found, with a condition, in a module imported later",
    configure: async (session) => {
      const response = await session.client.setFunctionBreakpointsRequest({
        breakpoints: [{ name: "square", condition: "n == 3" }, { name: "late.triple" }, { name: "not a name" }],
      });
      const [square, triple, bad] = response.body.breakpoints;
      assert.equal(square.verified, false);
      assert.equal(triple.verified, false);
      assert.equal(bad.verified, false);
      assert.match(bad.message ?? "", /Invalid function name/);
    },
    run: async (session) => {
      const first = await stopped(session.client, "function breakpoint");
      assert.equal(first.frames[0].name, "square");
      assert.equal(first.frames[0].line, session.line(app, "square"));
      assert.equal((await locals(session.client, first.frames[0].id)).n, "3");
      await continueAll(session, first.threadId);
      const second = await stopped(session.client, "function breakpoint");
      assert.equal(second.frames[0].name, "triple");
      await continueAll(session, second.threadId);
      assert.equal(await session.client.finished(), 0);
      const changed = session.client.events.filter((e) => e.event === "breakpoint").map((e) => e.body.breakpoint as DebugProtocol.Breakpoint);
      assert.deepEqual(changed.map((bp) => [bp.verified, bp.line, path.basename(bp.source?.path ?? "")]), [
        [true, session.line(app, "square"), "app.py"],
        [true, session.line(late, "late"), "late.py"],
      ]);
    },
  },
  {
    name: "exception breakpoint 'raised' limited to a type by its condition",
    configure: async (session) => {
      await session.client.setExceptionBreakpointsRequest({ filters: [], filterOptions: [{ filterId: "raised", condition: "KeyError" }] });
    },
    run: async (session) => {
      const stop = await stopped(session.client, "exception");
      assert.equal(stop.frames[0].line, session.line(app, "raise-key"));
      const info = (await session.client.exceptionInfoRequest({ threadId: stop.threadId })).body;
      assert.equal(info.exceptionId, "KeyError");
      assert.equal(info.breakMode, "always");
      assert.equal(info.description, "KeyError: 'key'");
      await continueAll(session, stop.threadId);
      assert.equal(await session.client.finished(), 0);
    },
  },
  {
    name: "exception breakpoint 'uncaught': stops before the exit, then the program ends with 1 and the traceback",
    args: ["crash"],
    configure: async (session) => {
      await session.client.setExceptionBreakpointsRequest({ filters: ["uncaught"] });
    },
    run: async (session) => {
      const stop = await stopped(session.client, "exception");
      assert.equal(stop.event.body.description, "ValueError: bad value");
      assert.equal(stop.frames[0].line, session.line(app, "raise-value"));
      assert.deepEqual(stop.frames.slice(0, 3).map((f) => f.name), ["fail", "main", "<module>"]);
      assert.equal((await locals(session.client, stop.frames[0].id)).kind, "'value'");
      const info = (await session.client.exceptionInfoRequest({ threadId: stop.threadId })).body;
      assert.equal(info.breakMode, "unhandled");
      assert.equal(info.details?.typeName, "ValueError");
      assert.equal(info.details?.message, "bad value");
      assert.match(info.details?.stackTrace ?? "", /^Traceback \(most recent call last\):\n[\s\S]*in fail\n[\s\S]*ValueError: bad value\n$/);
      await continueAll(session, stop.threadId);
      assert.equal(await session.client.finished(), 1);
      assert.match(session.client.output("stderr"), /Traceback[\s\S]*ValueError: bad value\n$/);
    },
    exitCode: 1,
  },
  {
    name: "breakpointLocations lists the executable lines of a range",
    configure: async (session) => {
      const square = session.line(app, "square");
      const response = await session.client.customRequest("breakpointLocations", { source: { path: session.file(app) }, line: square - 2, endLine: square + 2 });
      const lines = (response.body as DebugProtocol.BreakpointLocationsResponse["body"]).breakpoints.map((b) => b.line);
      assert.deepEqual(lines, [square - 1, square, square + 1]);
      const message = await failure(session.client.customRequest("breakpointLocations", { source: { path: session.file("breakpoints/missing.py") }, line: 1 }));
      assert.match(message, /missing\.py/);
    },
    run: async (session) => {
      assert.equal(await session.client.finished(), 0);
    },
  },
];

/** Breakpoints in probes.py's loop (docs/instrumentation.md: lines the instrumented
 * copies take, and the loop header they leave to the tracer): set before the program
 * starts (`before`), then `during` runs while it loops. Every stop is checked for the
 * value of `count`, continued, and the program must end normally. */
interface ProbeCase {
  name: string;
  before: { marker: string; condition: string };
  during: (session: Session) => Promise<void>;
  importantOutputs?: RegExp;
}

const probes = "breakpoints/probes.py";

async function countAtStop(session: Session, marker: string) {
  const stop = await stopped(session.client, "breakpoint");
  assert.deepEqual([stop.frames[0].name, stop.frames[0].line], ["spin", session.line(probes, marker)]);
  return { threadId: stop.threadId, count: Number((await locals(session.client, stop.frames[0].id)).count) };
}

const probeCases: ProbeCase[] = [
  {
    name: "a conditional breakpoint on a loop header (the tracer's line) stops where it holds",
    before: { marker: "header", condition: "count == 3" },
    during: async (session) => {
      const { threadId, count } = await countAtStop(session, "header");
      assert.equal(count, 3);
      await setLines(session, probes, []);
      await continueAll(session, threadId);
    },
  },
  {
    name: "a condition changed while the loop runs applies at once, one stop per hit",
    before: { marker: "body", condition: "count == -1" },
    during: async (session) => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await setLines(session, probes, [{ line: session.line(probes, "body"), condition: "count >= 100" }]);
      const first = await countAtStop(session, "body");
      assert.ok(first.count >= 100 && first.count < 400, String(first.count));
      await continueAll(session, first.threadId);
      const second = await countAtStop(session, "body");
      assert.equal(second.count, first.count + 1);
      await setLines(session, probes, []);
      await continueAll(session, second.threadId);
    },
  },
  {
    name: "a condition that raises inside the copy stops once, reported once",
    before: { marker: "body", condition: "1 / (count - 2) > 1" },
    during: async (session) => {
      const { threadId, count } = await countAtStop(session, "body");
      assert.equal(count, 2);
      await continueAll(session, threadId);
    },
    importantOutputs: /ZeroDivisionError/,
  },
];

for (const python of pythons()) {
  describe(`breakpoints on Python ${python.version}`, () => {
    for (const row of probeCases) {
      test(row.name, async () => {
        await withSession(
          python,
          { program: probes },
          async (session) => {
            const [bp] = await setLines(session, probes, [{ line: session.line(probes, row.before.marker), condition: row.before.condition }]);
            assert.equal(bp.verified, true, JSON.stringify(bp));
          },
          async (session) => {
            await row.during(session);
            assert.equal(await session.client.finished(), 0);
            assert.equal(session.client.output("stdout"), "spun 400\n");
            const important = session.client.events.filter((e) => e.event === "output" && e.body.category === "important");
            assert.equal(important.length, row.importantOutputs ? 1 : 0, JSON.stringify(important));
            if (row.importantOutputs) assert.match(String(important[0].body.output), row.importantOutputs);
          },
        );
      });
    }

    for (const row of cases) {
      test(row.name, async () => {
        let configured: unknown;
        await withSession(
          python,
          { program: app, args: row.args ?? [] },
          async (session) => {
            configured = await row.configure(session);
          },
          (session) => row.run(session, configured),
        );
      });
    }

    test("post-mortem: dapperdbg.post_mortem() of a caught exception stops in its traceback, with no exception filter", async () => {
      const program = "breakpoints/post_mortem.py";
      await withSession(
        python,
        { program },
        async () => undefined,
        async (session) => {
          const stop = await stopped(session.client, "exception");
          assert.equal(stop.event.body.description, "ValueError: invalid literal for int() with base 10: 'x1'");
          assert.deepEqual(
            stop.frames.slice(0, 3).map((f) => [f.name, f.line]),
            [["parse", session.line(program, "raise")], ["handle", session.line(program, "call")], ["<module>", session.line(program, "main")]],
          );
          assert.equal((await locals(session.client, stop.frames[0].id)).text, "'x1'");
          const info = (await session.client.exceptionInfoRequest({ threadId: stop.threadId })).body;
          assert.equal(info.breakMode, "always");
          assert.match(info.details?.stackTrace ?? "", /in parse\n[\s\S]*ValueError: invalid literal/);
          await session.client.nextRequest({ threadId: stop.threadId });
          const step = await stopped(session.client, "step");
          assert.deepEqual([step.frames[0].name, step.frames[0].line], ["handle", session.line(program, "after")]);
          await session.client.continueRequest({ threadId: step.threadId });
          assert.equal(await session.client.finished(), 0);
          assert.equal(session.client.output("stdout"), "got -1\n");
          assert.match(session.client.output("stderr"), /ERROR:root:bad input 'x1'/);
        },
      );
    });

    test("exception breakpoint 'userUnhandled': a user callback raising into the library", async () => {
      const file = "breakpoints/callbacks.py";
      await withSession(
        python,
        { program: file },
        async (session) => {
          await session.client.setExceptionBreakpointsRequest({ filters: ["userUnhandled"] });
        },
        async (session) => {
          const stop = await stopped(session.client, "exception");
          assert.deepEqual([stop.frames[0].name, stop.frames[0].line], ["parse_number", session.line(file, "callback-raise")]);
          const info = (await session.client.exceptionInfoRequest({ threadId: stop.threadId })).body;
          assert.equal(info.breakMode, "userUnhandled");
          assert.equal(info.description, "RuntimeError: cannot parse 1");
          await continueAll(session, stop.threadId);
          assert.equal(await session.client.finished(), 0);
          assert.equal(session.client.output("stdout"), "handled: cannot parse 1\n");
        },
      );
    });

    test("setBreakpoints while the program runs", async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "dapper-bp-"));
      const flag = path.join(dir, "go");
      try {
        await withSession(python, { program: "breakpoints/waiter.py", args: [flag] }, async () => undefined, async (session) => {
          await waitForOutput(session, "waiting\n");
          const file = "breakpoints/waiter.py";
          const [bp] = await setLines(session, file, [{ line: session.line(file, "reached") }]);
          assert.equal(bp.verified, true);
          writeFileSync(flag, "");
          const stop = await stopped(session.client, "breakpoint");
          assert.equal(stop.frames[0].line, session.line(file, "reached"));
          await continueAll(session, stop.threadId);
          assert.equal(await session.client.finished(), 0);
          assert.equal(session.client.output("stdout"), "waiting\ndone\n");
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

/** The bodies of the session's `breakpoint` events so far. */
function breakpointEvents(session: Session): Record<string, unknown>[] {
  return session.client.events.filter((e) => e.event === "breakpoint").map((e) => e.body);
}

async function waitForOutput(session: Session, text: string): Promise<void> {
  const deadline = Date.now() + 15000;
  while (!session.client.output("stdout").includes(text)) {
    if (Date.now() > deadline) throw new Error(`no output ${JSON.stringify(text)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
