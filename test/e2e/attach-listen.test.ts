// Attach the other way round: the adapter listens (attach "listen") and the program
// connects, started with `python -m dapperdbg --connect` or calling dapperdbg.connect();
// the in-code API's listen side; the children of attached programs, both ways; what a
// detach and an exit report. Real adapters, real Pythons, real sockets.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { attachWith, ensureGone, freePort, startDapper, startListening, startPython } from "./attach-support";
import { SessionTree } from "./children-support";
import { fixtures, isAlive, marker, pythons, RecordingClient, startServer, waitUntil } from "./support";

const TICKER = "attach/ticker.py";
const tickLine = marker(TICKER, "tick");
const IN_CODE = "attach/in_code.py";
const apiLine = marker(IN_CODE, "api");
const WORKER = path.join(fixtures, "children", "worker.py");
const workerLine = marker("children/worker.py", "worker");

/** Waits for the adapter's "Waiting for the program to connect on …" line. */
async function waitingFor(client: RecordingClient, port: number): Promise<void> {
  await waitUntil(() => client.output("console").includes(`Waiting for the program to connect on 127.0.0.1:${port}`), 15000, "the waiting message");
}

async function topOfStop(client: RecordingClient): Promise<{ line: number; threadId: number; reason: string }> {
  const { event, frames } = await client.nextStop();
  return { line: frames[0].line, threadId: event.body.threadId ?? 0, reason: event.body.reason };
}

for (const python of pythons()) {
  describe(`attach by listening on Python ${python.version}`, () => {
    test("--connect: the program waits for the configuration, stops at its breakpoints, and its exit gives exited then terminated", async () => {
      const client = new RecordingClient();
      const port = await freePort();
      let program: ReturnType<typeof startDapper> | undefined;
      try {
        await client.start();
        const attached = attachWith(client, { type: "dapper", request: "attach", name: "listen", listen: { port } }, { [TICKER]: [tickLine] });
        attached.catch(() => undefined);
        await waitingFor(client, port);
        program = startDapper(python, ["--connect", String(port), TICKER, "0.5"]);
        await attached;
        const processEvent = await client.next("process");
        assert.equal(processEvent.body.startMethod, "attach");
        assert.equal(processEvent.body.systemProcessId, program.process.pid);
        // Its first line ran under the debugger.
        const stop = await topOfStop(client);
        assert.deepEqual([stop.reason, stop.line], ["breakpoint", tickLine]);
        await client.setBreakpointsRequest({ source: { path: path.join(fixtures, TICKER) }, breakpoints: [] });
        await client.continueRequest({ threadId: stop.threadId });
        assert.equal(await client.finished(), 5);
        assert.deepEqual(client.order("exited", "terminated"), ["exited", "terminated"]);
        assert.equal((await program.exited).code, 5);
      } finally {
        await client.stop();
        ensureGone(program);
      }
    });

    test("dapperdbg.connect() in the program's code: the stop of dapperdbg.breakpoint()", async () => {
      const client = new RecordingClient();
      const port = await freePort();
      let program: ReturnType<typeof startPython> | undefined;
      try {
        await client.start();
        const attached = attachWith(client, { type: "dapper", request: "attach", listen: { host: "127.0.0.1", port } });
        attached.catch(() => undefined);
        await waitingFor(client, port);
        program = startPython(python, [IN_CODE, "connect", String(port)]);
        await attached;
        const stop = await topOfStop(client);
        assert.deepEqual([stop.reason, stop.line], ["breakpoint", apiLine]);
        await client.continueRequest({ threadId: stop.threadId });
        assert.equal(await client.finished(), 7);
        assert.equal((await program.exited).code, 7);
        assert.match(program.stdout(), /attached: True, answer 42/);
      } finally {
        await client.stop();
        ensureGone(program);
      }
    });

    test("dapperdbg.listen(0) and wait_for_client() in the program's code: attach with connect, stop at dapperdbg.breakpoint(), detach gives terminated only", async () => {
      const client = new RecordingClient();
      let program: ReturnType<typeof startPython> | undefined;
      try {
        program = startPython(python, [IN_CODE, "listen"]);
        const started = program;
        await waitUntil(() => /listening on /.test(started.stdout()), 15000, "the program's port");
        const [, host, port] = /listening on (\S+):(\d+)/.exec(started.stdout()) ?? [];
        await client.start();
        await attachWith(client, { type: "dapper", request: "attach", connect: { host, port: Number(port) } });
        const stop = await topOfStop(client);
        assert.deepEqual([stop.reason, stop.line], ["breakpoint", apiLine]);
        await client.disconnectRequest({});
        await client.next("terminated");
        assert.deepEqual(client.order("exited", "terminated"), ["terminated"], "a detach reports no exit");
        // Detached, the program runs on to its own end.
        assert.equal((await started.exited).code, 7);
        assert.match(started.stdout(), /attached: False, answer 42/);
      } finally {
        await client.stop();
        ensureGone(program);
      }
    });

    test("a port already in use fails the attach with a clear error", async () => {
      const client = new RecordingClient();
      let program: Awaited<ReturnType<typeof startListening>> | undefined;
      try {
        program = await startListening(python, [], [TICKER, "30"]);
        await client.start();
        await client.initializeRequest({ adapterID: "dapper" });
        await assert.rejects(
          client.attachRequest({ type: "dapper", request: "attach", listen: { port: program.port } } as never),
          new RegExp(`could not listen on 127\\.0\\.0\\.1:${program.port} for the program to connect \\(.*EADDRINUSE`),
        );
      } finally {
        await client.stop();
        ensureGone(program);
      }
    });
  });

  describe(`children of attached programs on Python ${python.version}`, () => {
    let server: Awaited<ReturnType<typeof startServer>>;
    before(async () => (server = await startServer()));
    after(() => server.stop());
    const initialize = { supportsStartDebuggingRequest: true, supportsDapperEvents: true } as const;

    test("listen: a subprocess child of a program that connected is a child session and stops at its breakpoint", async () => {
      const tree = new SessionTree(server.port, { [WORKER]: [workerLine] }, true);
      const port = await freePort();
      let program: ReturnType<typeof startDapper> | undefined;
      try {
        await tree.root.start(server.port);
        const attached = attachWith(tree.root, { type: "dapper", request: "attach", listen: { port } }, {}, initialize);
        attached.catch(() => undefined);
        await waitingFor(tree.root, port);
        program = startDapper(python, ["--connect", String(port), "children/popen_parent.py"]);
        await attached;
        const child = await tree.nextChild();
        assert.equal(await tree.root.finished(), 0);
        await waitUntil(() => child.ended, 20000, "the child session's end");
        assert.deepEqual(child.stops, [`worker.py:${workerLine}`]);
        assert.deepEqual(child.all("exited").map((body) => body.exitCode), [3]);
        assert.equal((await program.exited).code, 0);
        assert.match(program.stdout(), /parent saw 3/);
      } finally {
        await tree.stop();
        ensureGone(program);
      }
    });

    test("connect: a multiprocessing child of a --listen program is a child session", async () => {
      const tasks = path.join(fixtures, "children", "tasks.py");
      const tree = new SessionTree(server.port, { [tasks]: [marker("children/tasks.py", "task")] }, true);
      let program: Awaited<ReturnType<typeof startListening>> | undefined;
      try {
        program = await startListening(python, ["--wait-for-client"], ["children/mp_parent.py", "spawn"]);
        await tree.root.start(server.port);
        await attachWith(tree.root, { type: "dapper", request: "attach", connect: { host: program.host, port: program.port } }, {}, initialize);
        const child = await tree.nextChild();
        await waitUntil(() => child.ended, 20000, "the child session's end");
        assert.deepEqual(child.stops, [`tasks.py:${marker("children/tasks.py", "task")}`]);
        assert.equal(await tree.root.finished(), 0);
        assert.equal((await program.exited).code, 0);
        assert.match(program.stdout(), /parent saw 4/);
      } finally {
        await tree.stop();
        ensureGone(program);
      }
    });

    test("re-attach: the child still running from the first debugger is announced to the next one, stops at its breakpoints, and ends when its session is stopped", async () => {
      const loopChild = path.join(fixtures, "attach", "loop_child.py");
      const childTick = marker("attach/loop_child.py", "child-tick");
      const first = new SessionTree(server.port, { [loopChild]: [childTick] });
      const second = new SessionTree(server.port, { [loopChild]: [childTick] });
      let program: Awaited<ReturnType<typeof startListening>> | undefined;
      let childPid = 0;
      try {
        program = await startListening(python, ["--wait-for-client"], ["attach/loop_parent.py", "60"]);
        const configuration = { type: "dapper", request: "attach", connect: { host: program.host, port: program.port } };
        await first.root.start(server.port);
        await attachWith(first.root, configuration, {}, initialize);
        const firstChild = await first.nextChild();
        const stopped = await firstChild.nextStop();
        assert.equal(stopped.frames[0].line, childTick);
        const started = program;
        await waitUntil(() => /child pid \d+/.test(started.stdout()), 10000, "the child's pid");
        childPid = Number(/child pid (\d+)/.exec(started.stdout())?.[1]);
        // Detach: both sessions end; the program and its child run on.
        await first.root.disconnectRequest({});
        await first.root.next("terminated");
        await waitUntil(() => firstChild.ended, 10000, "the child session's end");
        assert.ok(isAlive(childPid), "the child runs on");

        await second.root.start(server.port);
        await attachWith(second.root, configuration, {}, initialize);
        const again = await second.nextChild();
        const announced = second.root.all("dapper/childProcess");
        assert.deepEqual(announced.map((body) => body.pid), [childPid]);
        const stop = await again.nextStop();
        assert.equal(stop.frames[0].line, childTick);
        assert.equal((await again.next("process")).body.systemProcessId, childPid);
        // Stopping the child's session ends the child: it is asked to end itself, as the
        // engine never signals a pid that a child of the user's program gave.
        await again.terminateRequest({});
        await waitUntil(() => !isAlive(childPid), 15000, "the child's end");
      } finally {
        await second.stop();
        await first.stop();
        ensureGone(program);
        if (childPid !== 0 && isAlive(childPid)) process.kill(childPid, "SIGKILL");
      }
    });
  });
}
