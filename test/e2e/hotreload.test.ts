// Hot reload end to end, on every CPython of the machine: a real DAP client stops in the loop
// of a program's main script, the test edits the file, sends `dapper/hotReload`, and checks
// what the program does next: the new code runs, the loop did not restart, module state is
// kept, breakpoints in the new code stop, a compile error changes nothing, and restartFrame
// re-enters the edited function from its first line with its new code (restart-frame.test.ts
// has the rest of edit and continue).
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { SessionTree } from "./children-support";
import { fixtures, type InitializeArguments, type Python, pythons, RecordingClient, startServer } from "./support";
import { failure, stopped } from "./control-support";

// The main script: its loop is at the top level, so re-running the module would restart it
// (and print "starting" twice). Each marker names a line.
const APP = `import sys

print("starting", flush=True)
state = {"calls": 0}


def greet(n):
    state["calls"] += 1  # BP:greet
    return "old %d" % n


def shout(text):
    return text.upper()


results = []
for i in range(3):
    results.append(greet(i))  # BP:loop
print(results, state["calls"], flush=True)
`;

const NEW_GREET = `def greet(n):
    state["calls"] += 1  # BP:greet
    word = "new"  # BP:word
    return "%s %d" % (word, n)
`;

const OLD_GREET = `def greet(n):
    state["calls"] += 1  # BP:greet
    return "old %d" % n
`;

interface App {
  dir: string;
  file: string;
  line(name: string): number;
  edit(from: string, to: string): void;
}

function makeApp(): App {
  const dir = mkdtempSync(path.join(tmpdir(), "dapper-hotreload-"));
  const file = path.join(dir, "app.py");
  writeFileSync(file, APP);
  return {
    dir,
    file,
    line: (name) => {
      const index = readFileSync(file, "utf8").split("\n").findIndex((text) => text.includes(`# BP:${name}`));
      assert.ok(index >= 0, `marker ${name}`);
      return index + 1;
    },
    edit: (from, to) => {
      const source = readFileSync(file, "utf8");
      assert.ok(source.includes(from), "the edit applies");
      writeFileSync(file, source.replace(from, to));
    },
  };
}

async function withApp(python: Python, breakpoints: string[], body: (client: RecordingClient, app: App) => Promise<void>): Promise<void> {
  const app = makeApp();
  const client = new RecordingClient();
  client.on("dapper/hotReloadResult", (event: DebugProtocol.Event) => client.events.push({ event: "dapper/hotReloadResult", body: event.body as Record<string, unknown> }));
  await client.start();
  try {
    // dapper/* events (dapper/hotReloadResult) go to clients that ask for them.
    const initialize = await client.initializeRequest({ adapterID: "dapper", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path", supportsDapperEvents: true } as InitializeArguments);
    assert.equal(initialize.body?.supportsRestartFrame, true);
    assert.equal((initialize.body as Record<string, unknown> | undefined)?.supportsHotReload, true);
    const initialized = client.next("initialized");
    const launched = client.launchRequest({ program: app.file, cwd: app.dir, console: "internalConsole", python: python.executable } as DebugProtocol.LaunchRequestArguments);
    launched.catch(() => undefined);
    await Promise.race([initialized, launched]);
    await initialized;
    await setBreakpoints(client, app, breakpoints);
    await client.configurationDoneRequest();
    await launched;
    await body(client, app);
  } finally {
    await client.stop();
    rmSync(app.dir, { recursive: true, force: true });
  }
}

async function setBreakpoints(client: RecordingClient, app: App, names: string[]): Promise<DebugProtocol.Breakpoint[]> {
  const response = await client.setBreakpointsRequest({ source: { path: app.file }, breakpoints: names.map((name) => ({ line: app.line(name) })) });
  return response.body.breakpoints;
}

interface ReloadBody {
  path: string;
  reloadedModule: string;
  updated: string[];
  added: string[];
  warnings: string[];
  framesRunningOldCode: { frameId?: number; name?: string; line?: number }[];
  reboundFrames: number;
  durationMs: number;
}

async function reload(client: RecordingClient, app: App): Promise<ReloadBody> {
  const response = await client.customRequest("dapper/hotReload", { source: { path: app.file } });
  return response.body as ReloadBody;
}

for (const python of pythons()) {
  describe(`hot reload on Python ${python.version}`, () => {
    test("an edited function runs its new code; the main script's loop goes on; module state is kept", async () => {
      await withApp(python, ["loop"], async (client, app) => {
        const first = await stopped(client, "breakpoint");
        assert.equal(first.frames[0].name, "<module>");
        app.edit(OLD_GREET, NEW_GREET);
        const result = await reload(client, app);
        assert.equal(result.path, app.file);
        assert.equal(result.reloadedModule, "__main__");
        assert.deepEqual(result.updated, ["greet"]);
        assert.ok(result.durationMs >= 0);
        // The event carries the same body as the response.
        const event = await client.next("dapper/hotReloadResult");
        assert.deepEqual(event.body.updated, ["greet"]);
        // Everything runs on from here without stopping again.
        await setBreakpoints(client, app, []);
        await client.continueRequest({ threadId: first.threadId });
        assert.equal(await client.finished(), 0);
        assert.equal(client.output("stdout"), "starting\n['new 0', 'new 1', 'new 2'] 3\n");
      });
    });

    test("a breakpoint on a line of the new code stops there", async () => {
      await withApp(python, ["loop"], async (client, app) => {
        const first = await stopped(client, "breakpoint");
        app.edit(OLD_GREET, NEW_GREET);
        await reload(client, app);
        const [bp] = await setBreakpoints(client, app, ["word"]);
        assert.equal(bp.verified, true);
        assert.equal(bp.line, app.line("word"));
        await client.continueRequest({ threadId: first.threadId });
        const hit = await stopped(client, "breakpoint");
        assert.deepEqual([hit.frames[0].name, hit.frames[0].line], ["greet", app.line("word")]);
        await setBreakpoints(client, app, []);
        await client.continueRequest({ threadId: hit.threadId });
        assert.equal(await client.finished(), 0);
        assert.equal(client.output("stdout"), "starting\n['new 0', 'new 1', 'new 2'] 3\n");
      });
    });

    test("a compile error is reported with its line and changes nothing", async () => {
      await withApp(python, ["loop"], async (client, app) => {
        const first = await stopped(client, "breakpoint");
        app.edit(OLD_GREET, `${NEW_GREET}\ndef broken(:\n    pass\n`);
        const message = await failure(client.customRequest("dapper/hotReload", { source: { path: app.file } }));
        const brokenLine = readFileSync(app.file, "utf8").split("\n").findIndex((text) => text.startsWith("def broken(")) + 1;
        assert.match(message, new RegExp(`line ${brokenLine}\\b`));
        await setBreakpoints(client, app, []);
        await client.continueRequest({ threadId: first.threadId });
        assert.equal(await client.finished(), 0);
        assert.equal(client.output("stdout"), "starting\n['old 0', 'old 1', 'old 2'] 3\n");
      });
    });

    test("clear refusals: not stopped, not loaded, not Python", async () => {
      await withApp(python, ["loop"], async (client, app) => {
        const first = await stopped(client, "breakpoint");
        const other = path.join(app.dir, "never_imported.py");
        writeFileSync(other, "x = 1\n");
        assert.match(await failure(client.customRequest("dapper/hotReload", { source: { path: other } })), /not loaded/);
        const text = path.join(app.dir, "notes.txt");
        writeFileSync(text, "hello\n");
        assert.match(await failure(client.customRequest("dapper/hotReload", { source: { path: text } })), /not a Python source/);
        await setBreakpoints(client, app, []);
        await client.continueRequest({ threadId: first.threadId });
        assert.equal(await client.finished(), 0);
      });
    });

    test("restartFrame re-enters the edited function from its first line and runs its new code", async () => {
      await withApp(python, ["greet"], async (client, app) => {
        const first = await stopped(client, "breakpoint");
        assert.equal(first.frames[0].name, "greet");
        app.edit(OLD_GREET, NEW_GREET);
        const result = await reload(client, app);
        const old = result.framesRunningOldCode.find((frame) => frame.frameId === first.frames[0].id);
        assert.ok(old, `the stopped frame runs old code: ${JSON.stringify(result.framesRunningOldCode)}`);
        await setBreakpoints(client, app, []);
        const restart = await client.restartFrameRequest({ frameId: first.frames[0].id });
        assert.equal((restart.body as { runsOldCode?: boolean } | undefined)?.runsOldCode, false);
        const again = await stopped(client, "restart");
        assert.deepEqual(again.frames.map((frame) => frame.name), first.frames.map((frame) => frame.name));
        assert.equal(again.frames[0].line, app.line("greet"));
        // A step goes to a line only the new code has.
        await client.nextRequest({ threadId: again.threadId });
        const step = await stopped(client, "step");
        assert.equal(step.frames[0].line, app.line("word"));
        await client.continueRequest({ threadId: again.threadId });
        assert.equal(await client.finished(), 0);
        // Every call ran the new code. The stop came before the counter's line ran, so it
        // counts three calls.
        assert.equal(client.output("stdout"), "starting\n['new 0', 'new 1', 'new 2'] 3\n");
      });
    });
    describe("in a child process's session", () => {
      let server: Awaited<ReturnType<typeof startServer>>;
      before(async () => (server = await startServer()));
      after(() => server.stop());

      test("a child session reloads the child's file", async () => {
        // Copies of the fixtures: the test edits the worker.
        const dir = mkdtempSync(path.join(tmpdir(), "dapper-hotreload-child-"));
        for (const name of ["popen_parent.py", "worker.py"]) copyFileSync(path.join(fixtures, "children", name), path.join(dir, name));
        const worker = path.join(dir, "worker.py");
        const source = readFileSync(worker, "utf8");
        const line = source.split("\n").findIndex((text) => text.includes("# BP:worker")) + 1;
        const tree = new SessionTree(server.port, { [worker]: [line] }, false);
        try {
          await tree.root.start(tree.port);
          await tree.root.launchWith({ program: path.join(dir, "popen_parent.py"), cwd: dir, python: python.executable, console: "internalConsole" }, {}, { supportsStartDebuggingRequest: true });
          const child = await tree.nextChild();
          child.on("dapper/hotReloadResult", (event: DebugProtocol.Event) => child.events.push({ event: "dapper/hotReloadResult", body: event.body as Record<string, unknown> }));
          const { frames } = await child.nextStop();
          writeFileSync(worker, source.replace("    return result\n", "    return result + 1000\n"));
          const response = await child.customRequest("dapper/hotReload", { source: { path: worker } });
          const body = response.body as ReloadBody;
          assert.equal(body.reloadedModule, "__main__");
          assert.deepEqual(body.updated, ["double"]);
          assert.deepEqual(body.framesRunningOldCode.map((frame) => frame.frameId), [frames[0].id]);
          assert.deepEqual((await child.next("dapper/hotReloadResult")).body.updated, ["double"]);
          await child.continueRequest({ threadId: 1 });
          assert.equal(await tree.root.finished(), 0);
          // The stopped call finished its old code.
          assert.ok(tree.root.output("stdout").includes("worker 21 -> 42\nparent saw 3\n"));
        } finally {
          await tree.stop();
          rmSync(dir, { recursive: true, force: true });
        }
      });
    });
  });
}
