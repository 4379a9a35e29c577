// Session logs (docs/session-logs.md): `node dist/adapter.js --log FILE` records a real
// session of each kind (launch, attach to `python -m dapperdbg --listen`, a child process);
// each log replays through the engine with no difference and holds no session token, and
// `npm run replay` tells a faithful log (0) from an altered one (1) and a malformed one (2).
// core/tests/transcripts/session_log_launch.txt is such a log, replayed by the Rust harness.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { formatReplay, replaySessionLog } from "../../extension/src/host/sessionLog";
import { wrapEngine, type DapperCoreModule, type EngineFactory } from "../../extension/src/host/wasm";
import { attachWith, ensureGone, startListening } from "./attach-support";
import { SessionTree } from "./children-support";
import { fixtures, later, marker, pythons, RecordingClient, root, startServer, tokenOf, waitUntil } from "./support";

const createEngine: EngineFactory = (options) => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(path.join(root, "wasm-pkg", "dapper_core.js")) as DapperCoreModule;
  return wrapEngine(new module.WasmEngine(options), module.engineMemory?.());
};

/** Runs `npm run replay FILE` (scripts/replay.mjs) and returns its exit code and output. */
function npmReplay(file: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [path.join(root, "scripts", "replay.mjs"), file], { encoding: "utf8" });
  return { status: run.status, output: run.stdout + run.stderr };
}

/** The log replays with no difference, in the library and through `npm run replay`. */
function assertReplays(file: string, kind: RegExp): string {
  const log = fs.readFileSync(file, "utf8");
  assert.match(log, kind, "the log has the session");
  const result = replaySessionLog(log, createEngine);
  assert.equal(result.failure, undefined);
  if (result.differences.length > 0) fs.copyFileSync(file, path.join(os.tmpdir(), `dapper-replay-failed-${path.basename(file)}`));
  assert.deepEqual(result.differences, [], formatReplay(result, file));
  // A whole session, not a stub: how many inputs it takes depends on how the socket reads
  // happened to group the messages (20 in a run on a loaded machine, more when idle).
  assert.ok(result.steps >= 10, `${result.steps} inputs replayed`);
  const run = npmReplay(file);
  assert.equal(run.status, 0, run.output);
  assert.match(run.output, /input\(s\) replayed, no difference/);
  return log;
}

for (const python of pythons()) {
  describe(`session logs on Python ${python.version}`, () => {
    let directory: string;
    before(() => (directory = fs.mkdtempSync(path.join(os.tmpdir(), "dapper-replay-"))));
    after(() => {
      // DAPPER_E2E_KEEP_LOGS=DIR keeps the recorded logs (core/tests/transcripts/session_log_launch.txt is one).
      const keep = process.env.DAPPER_E2E_KEEP_LOGS;
      if (keep) fs.cpSync(directory, path.join(keep, python.version), { recursive: true });
      fs.rmSync(directory, { recursive: true, force: true });
    });

    /** An adapter recording its engine's log in `name`, stopped after `body`. */
    async function recording(name: string, body: (port: number) => Promise<void>): Promise<string> {
      const file = path.join(directory, name);
      const server = await startServer(["--log", file]);
      try {
        await body(server.port);
      } finally {
        server.stop();
        await new Promise((resolve) => server.process.once("exit", resolve));
      }
      return file;
    }

    test("a launch in the terminal is recorded without its token and replays with no difference; an altered log differs", async () => {
      const tokens: string[] = [];
      const file = await recording("launch.log", async (port) => {
        const client = new RecordingClient();
        try {
          await client.start(port);
          await client.launchWith(
            { program: path.join(fixtures, "main.py"), args: ["7"], cwd: fixtures, python: python.executable, console: "integratedTerminal", env: { API_KEY: "hunter2-secret" } },
            { "helper.py": later(marker("helper.py", "helper")) },
            { supportsRunInTerminalRequest: true },
          );
          const { event } = await client.nextStop();
          tokens.push(tokenOf(client.terminalProcesses[0].pid ?? 0));
          await client.continueRequest({ threadId: event.body.threadId ?? 0 });
          assert.equal(await client.finished(), 7);
          await client.disconnectRequest({});
        } finally {
          await client.stop();
        }
      });
      const log = assertReplays(file, /\\?"command\\?":\\?"runInTerminal/);
      for (const token of tokens) assert.ok(!log.includes(token), `the log holds the session token ${token}`);
      assert.ok(!log.includes("hunter2-secret"), "the log holds the value of API_KEY");
      assert.match(log, /DAPPER_SESSION_TOKEN\\?":\\?"<random:\d+>/, "the token's place is a placeholder");

      // The interpreter's version, as the host found it, changed by hand: the replay finds
      // the engine's outputs for it no longer the recorded ones.
      const altered = path.join(directory, "launch-altered.log");
      const facts = /^> \{"type":"factsGathered".*"kind":"python".*$/m.exec(log)?.[0];
      assert.ok(facts, "the log has the interpreter's facts");
      fs.writeFileSync(altered, log.replace(facts, facts.replace(/"version":"[^"]*"/, '"version":"3.99.0"')));
      const run = npmReplay(altered);
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /the outputs differ after\n {2}> \{"type":"factsGathered"/);
      assert.match(run.output, /\+ < .*Python 3\.99\.0/);

      const malformed = path.join(directory, "malformed.log");
      fs.writeFileSync(malformed, log.replace(/^> /m, ">> "));
      const bad = npmReplay(malformed);
      assert.equal(bad.status, 2, bad.output);
      assert.match(bad.output, /is not a session log: line \d+: not a comment/);
    });

    test("an attach to python -m dapperdbg --listen replays with no difference", async () => {
      const ticker = "attach/ticker.py";
      const file = await recording("attach.log", async (port) => {
        const program = await startListening(python, [], [ticker, "30"]);
        const client = new RecordingClient();
        try {
          await client.start(port);
          await attachWith(client, { connect: { port: program.port } }, { [ticker]: [marker(ticker, "tick")] });
          const { event } = await client.nextStop();
          await client.continueRequest({ threadId: event.body.threadId ?? 0 });
          await client.nextStop();
          await client.disconnectRequest({ terminateDebuggee: true });
        } finally {
          await client.stop();
          ensureGone(program);
        }
      });
      assertReplays(file, /\\?"command\\?":\\?"attach/);
    });

    test("a session with a child process replays with no difference", async () => {
      const dir = path.join(fixtures, "children");
      const worker = path.join(dir, "worker.py");
      const file = await recording("children.log", async (port) => {
        const tree = new SessionTree(port, { [worker]: [marker("children/worker.py", "worker")] }, true);
        try {
          await tree.root.start(port);
          await tree.root.launchWith(
            { program: path.join(dir, "popen_parent.py"), args: [], cwd: dir, python: python.executable, console: "internalConsole" },
            {},
            { supportsStartDebuggingRequest: true, supportsDapperEvents: true },
          );
          assert.equal(await tree.root.finished(), 0);
          await waitUntil(() => tree.children.length >= 1 && tree.children.every((child) => child.ended), 20000, "the child session to end");
          assert.equal(tree.children[0].stops.length, 1, "the child stopped at its breakpoint");
        } finally {
          await tree.stop();
        }
      });
      assertReplays(file, /__dapperChildSessionId/);
    });
  });
}
