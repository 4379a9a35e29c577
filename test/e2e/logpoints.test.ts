// Log points under load, end to end: every line of a burst of hits reaches the client, in
// order, before what the program does next is announced: its end (`exited`,
// `terminated`), also when it ends through os._exit, and a stop in another thread.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { pythons } from "./support";
import { stopped, withSession } from "./control-support";

const program = "logpoints/burst.py";
const hits = 5000;
const expected = Array.from({ length: hits }, (_, i) => `i=${i}\n`);

/** The log point lines among the events so far, and the index of the first event named `after`. */
function linesBefore(events: { event: string; body: Record<string, unknown> }[], after: string) {
  const end = events.findIndex((e) => e.event === after);
  assert.notEqual(end, -1, `no ${after} event`);
  const lines = (list: typeof events) =>
    list.filter((e) => e.event === "output" && e.body.category === "console" && /^i=\d+\n$/.test(String(e.body.output))).map((e) => String(e.body.output));
  return { before: lines(events.slice(0, end)), after: lines(events.slice(end)) };
}

const endings = [
  { name: "the program falls off its end", how: "end" },
  { name: "the program calls os._exit", how: "os._exit" },
];

for (const python of pythons()) {
  describe(`log points on Python ${python.version}`, () => {
    for (const ending of endings) {
      test(`${hits} hits, then ${ending.name}: every line arrives in order before exited and terminated`, async () => {
        await withSession(
          python,
          { program, args: [ending.how, String(hits)] },
          async (session) => {
            await session.client.setBreakpointsRequest({ source: { path: session.file(program) }, breakpoints: [{ line: session.line(program, "log"), logMessage: "i={i}" }] });
          },
          async (session) => {
            assert.equal(await session.client.finished(), 0);
            for (const name of ["exited", "terminated"]) {
              const { before, after } = linesBefore(session.client.events, name);
              assert.deepEqual(after, [], `lines after ${name}`);
              assert.equal(before.length, hits, `lines before ${name}`);
              assert.deepEqual(before, expected);
            }
            const line = session.client.events.find((e) => e.event === "output" && e.body.category === "console" && e.body.output === "i=0\n");
            assert.equal((line?.body.source as { path?: string } | undefined)?.path, session.file(program));
            assert.equal(line?.body.line, session.line(program, "log"));
          },
        );
      });
    }

    test(`${hits} hits in a thread, then a stop in another: every line arrives before the stop`, async () => {
      await withSession(
        python,
        { program, args: ["thread", String(hits)] },
        async (session) => {
          await session.client.setBreakpointsRequest({
            source: { path: session.file(program) },
            breakpoints: [{ line: session.line(program, "log"), logMessage: "i={i}" }, { line: session.line(program, "after") }],
          });
        },
        async (session) => {
          const stop = await stopped(session.client, "breakpoint");
          const { before } = linesBefore(session.client.events, "stopped");
          assert.deepEqual(before, expected);
          await session.client.continueRequest({ threadId: stop.threadId });
          assert.equal(await session.client.finished(), 0);
        },
      );
    });
  });
}
