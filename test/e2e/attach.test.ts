// Attach to programs the user started with `python -m dapperdbg --listen`, on every CPython
// of the machine: the standalone adapter connects to them (the engine's `connect`).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { attachWith, ensureGone, freePort, startListening, type ListeningProgram } from "./attach-support";
import { isAlive, marker, pythons, RecordingClient } from "./support";

const TICKER = "attach/ticker.py";
const tickLine = marker(TICKER, "tick");

function attachConfiguration(program: ListeningProgram): Record<string, unknown> {
  return { type: "dapper", request: "attach", name: "attach", connect: { host: program.host, port: program.port } };
}

/** The value of `ticks` where the thread of the last `stopped` event is stopped. */
async function ticksAtStop(client: RecordingClient): Promise<number> {
  const stopped = await client.next("stopped");
  assert.equal(stopped.body.reason, "breakpoint");
  const threadId = Number(stopped.body.threadId);
  const stack = await client.stackTraceRequest({ threadId });
  const top = stack.body.stackFrames[0];
  assert.equal(top.line, tickLine);
  assert.equal(top.name, "<module>");
  const scopes = await client.scopesRequest({ frameId: top.id });
  const locals = await client.variablesRequest({ variablesReference: scopes.body.scopes[0].variablesReference });
  const ticks = locals.body.variables.find((variable) => variable.name === "ticks");
  assert.ok(ticks !== undefined, `no 'ticks' among ${JSON.stringify(locals.body.variables.map((variable) => variable.name))}`);
  return Number(ticks.value);
}

for (const python of pythons()) {
  describe(`attach on Python ${python.version}`, () => {
    test("--wait-for-client: the program starts after configurationDone; disconnect leaves it to its own end", async () => {
      let program: ListeningProgram | undefined;
      const client = new RecordingClient();
      try {
        // Two ticks at least: the stops may take longer than the program's 1.5 s.
        program = await startListening(python, ["--wait-for-client"], [TICKER, "1.5", "2"]);
        assert.match(program.stderr(), /\(the program starts when one attaches\)/);
        await client.start();
        await attachWith(client, attachConfiguration(program), { [TICKER]: [tickLine] });
        const processEvent = await client.next("process");
        assert.equal(processEvent.body.startMethod, "attach");
        assert.equal(processEvent.body.systemProcessId, program.process.pid);
        // Its first line ran under the debugger: the first tick stops.
        assert.equal(await ticksAtStop(client), 0);
        await client.continueRequest({ threadId: 1 });
        assert.equal(await ticksAtStop(client), 1);
        await client.disconnectRequest({});
        await client.next("terminated");
        const { code } = await program.exited;
        assert.equal(code, 5, program.stderr());
        assert.match(program.stdout(), /done after \d+ ticks/);
      } finally {
        await client.stop();
        ensureGone(program);
      }
    });

    test("a running program: attach, stop, detach, attach again, then terminate ends it", async () => {
      let program: ListeningProgram | undefined;
      const first = new RecordingClient();
      const second = new RecordingClient();
      const intruder = new RecordingClient();
      try {
        program = await startListening(python, [], [TICKER, "60"]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await first.start();
        await attachWith(first, attachConfiguration(program), { [TICKER]: [tickLine] });
        const before = await ticksAtStop(first);
        assert.ok(before > 0, `the program was running before the attach (ticks ${before})`);

        // One debugger at a time.
        await intruder.start();
        await intruder.initializeRequest({ adapterID: "dapper" });
        await assert.rejects(intruder.attachRequest(attachConfiguration(program) as never), /refused the connection: another debugger is attached/);

        await first.disconnectRequest({});
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.ok(isAlive(program.process.pid ?? 0), "the program runs on after the debugger detached");

        await second.start();
        await attachWith(second, attachConfiguration(program), { [TICKER]: [tickLine] });
        const after = await ticksAtStop(second);
        assert.ok(after > before, `the program went on between the sessions (${before} then ${after})`);
        await second.terminateRequest({});
        const exited = await second.next("exited");
        assert.equal(exited.body.exitCode, 143);
        await second.next("terminated");
        const status = await program.exited;
        assert.ok(status.signal === "SIGTERM" || status.code !== null, JSON.stringify(status));
      } finally {
        await Promise.all([first.stop(), second.stop(), intruder.stop()]);
        ensureGone(program);
      }
    });
  });
}

test("attach to a port nothing listens on fails with a clear error", async () => {
  const client = new RecordingClient();
  try {
    await client.start();
    await client.initializeRequest({ adapterID: "dapper" });
    const port = await freePort();
    await assert.rejects(
      client.attachRequest({ type: "dapper", request: "attach", connect: { port } } as never),
      new RegExp(`could not connect to the program at 127\\.0\\.0\\.1:${port} \\(connect ECONNREFUSED`),
    );
  } finally {
    await client.stop();
  }
});
