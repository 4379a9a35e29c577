// Terminal auto-attach end to end, outside VS Code: the window's broker (the module the
// extension uses, extension/src/autoAttach/broker.ts) starts a real adapter session
// (dist/adapter.js) with the attach configuration the extension would start, and a real
// Python started with a terminal's environment (the bootstrap's folder on PYTHONPATH and
// the broker's variables) asks, connects and stops at its breakpoint before running on.
import { spawn, type ChildProcess } from "node:child_process";
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { attachConfiguration, AutoAttachBroker, bootstrapDirOf, sessionName, type AttachingProgram, type ListenAt } from "../../extension/src/autoAttach/broker";
import { attachWith, ensureGone } from "./attach-support";
import { SessionTree } from "./children-support";
import { fixtures, marker, pythons, RecordingClient, root, startServer, waitUntil } from "./support";

const TICKER = "attach/ticker.py";
const tickLine = marker(TICKER, "tick");
const WORKER = path.join(fixtures, "children", "worker.py");
const workerLine = marker("children/worker.py", "worker");

interface Run {
  process: ChildProcess;
  stdout: () => string;
  exited: Promise<number | null>;
}

/** `python args…` in the fixtures folder with the environment of a terminal of the window. */
function inTerminal(python: string, args: string[], broker: AutoAttachBroker, mode: "smart" | "always" = "smart"): Run {
  const environment = broker.terminalEnvironment({ mode, workspaceFolders: [fixtures], smartPatterns: [] });
  const env = { ...process.env, ...environment, PYTHONPATH: bootstrapDirOf(path.join(root, "extension", "python")), PYTHONUNBUFFERED: "1" };
  const child = spawn(python, args, { cwd: fixtures, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", () => undefined);
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return { process: child, stdout: () => stdout, exited };
}

/** A broker whose sessions are real adapter sessions, each with a breakpoint at the tick. */
async function brokerWithSessions(): Promise<{ broker: AutoAttachBroker; sessions: Promise<{ client: RecordingClient; program: AttachingProgram }> }> {
  let started!: (session: { client: RecordingClient; program: AttachingProgram }) => void;
  const sessions = new Promise<{ client: RecordingClient; program: AttachingProgram }>((resolve) => (started = resolve));
  const broker = await AutoAttachBroker.open((program: AttachingProgram, listen: ListenAt) => {
    const client = new RecordingClient();
    void client.start().then(() => {
      const attached = attachWith(client, attachConfiguration(program, listen), { [TICKER]: [tickLine] });
      attached.catch(() => undefined);
      started({ client, program });
    });
  });
  return { broker, sessions };
}

for (const python of pythons()) {
  describe(`terminal auto-attach on Python ${python.version}`, () => {
    test("a workspace script run in the terminal is debugged: stops at its breakpoint before running on, and Disconnect lets it run to its end", async () => {
      const { broker, sessions } = await brokerWithSessions();
      let run: Run | undefined;
      let client: RecordingClient | undefined;
      try {
        run = inTerminal(python.executable, [TICKER, "0.5"], broker);
        const session = await sessions;
        client = session.client;
        assert.equal(session.program.pid, run.process.pid);
        assert.equal(session.program.program, path.join(fixtures, TICKER));
        const processEvent = await client.next("process");
        assert.equal(processEvent.body.systemProcessId, run.process.pid);
        const { event, frames } = await client.nextStop();
        assert.deepEqual([event.body.reason, frames[0].line], ["breakpoint", tickLine]);
        // The debug console names the program on its way; nothing is for the user to start.
        const waiting = client.output("console");
        const expected = `Waiting for \`${sessionName(session.program)} (pid ${run.process.pid})\`, started in a terminal, to connect on 127.0.0.1:`;
        assert.ok(waiting.startsWith(expected), `${JSON.stringify(waiting)} starts with ${JSON.stringify(expected)}`);
        assert.doesNotMatch(waiting, /--connect/);
        await client.disconnectRequest({ terminateDebuggee: false });
        assert.equal(await run.exited, 5);
        assert.match(run.stdout(), /done after \d+ ticks/);
      } finally {
        await client?.stop();
        broker.close();
        if (run) ensureGone(run);
      }
    });

    test("Stop ends the program", async () => {
      const { broker, sessions } = await brokerWithSessions();
      let run: Run | undefined;
      let client: RecordingClient | undefined;
      try {
        run = inTerminal(python.executable, [TICKER, "30"], broker, "always");
        client = (await sessions).client;
        await client.nextStop();
        // VS Code's Stop on an attach session: disconnect with terminateDebuggee.
        await client.disconnectRequest({ terminateDebuggee: true });
        assert.notEqual(await run.exited, 5);
        assert.doesNotMatch(run.stdout(), /done after/);
      } finally {
        await client?.stop();
        broker.close();
        if (run) ensureGone(run);
      }
    });

    describe("children", () => {
      let server: Awaited<ReturnType<typeof startServer>>;
      before(async () => (server = await startServer()));
      after(() => server.stop());

      test("a subprocess child of an auto-attached program is a child session of its session, not a session of its own", async () => {
        const tree = new SessionTree(server.port, { [WORKER]: [workerLine] }, true);
        const asked: AttachingProgram[] = [];
        const broker = await AutoAttachBroker.open((program, listen) => {
          asked.push(program);
          void tree.root.start(server.port).then(() => {
            const attached = attachWith(tree.root, attachConfiguration(program, listen), {}, { supportsStartDebuggingRequest: true, supportsDapperEvents: true });
            attached.catch(() => undefined);
          });
        });
        let run: Run | undefined;
        try {
          run = inTerminal(python.executable, ["children/popen_parent.py"], broker);
          const child = await tree.nextChild();
          assert.equal(await tree.root.finished(), 0);
          await waitUntil(() => child.ended, 20000, "the child session's end");
          assert.deepEqual(child.stops, [`worker.py:${workerLine}`]);
          assert.equal(await run.exited, 0);
          assert.match(run.stdout(), /parent saw 3/);
          assert.equal(asked.length, 1, "only the program asked the broker");
        } finally {
          await tree.stop();
          broker.close();
          if (run) ensureGone(run);
        }
      });
    });
  });
}
