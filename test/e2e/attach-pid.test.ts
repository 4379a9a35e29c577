// Attach by process id to Python programs started without the debugger, on every CPython
// of the machine: 3.14+ through sys.remote_exec, 3.9-3.13 through gdb (Debian sid's: this
// machine's own gdb 13.1 kills the target, see below). Breakpoints set before and after
// the attach, both threads, stepping, pause, variables; disconnect leaves the program
// running with its output unchanged, and a second attach works. Then each refusal.
// On macOS and Windows the same tests run where the product attaches there (injectTarget's
// rule: 3.14+ on Windows; on macOS only as root, which reading another process's memory
// needs), and each skip says why.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { attachWith, cannotAttach, startRunning, useSidGdb, type RunningProgram } from "./attach-support";
import { SessionTree } from "./children-support";
import { fixtures, isAlive, marker, pythons, RecordingClient, startServer, waitUntil, type Python } from "./support";

const WORKER = path.join(fixtures, "children", "worker.py");
const workerLine = marker("children/worker.py", "worker");

const RUNNING = "attach/running.py";
const tickLine = marker(RUNNING, "tick");
const beatLine = marker(RUNNING, "beat");
const all = pythons();

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

useSidGdb(all);

const programs: RunningProgram[] = [];
after(() => {
  for (const program of programs) program.process.kill("SIGKILL");
});

async function run(python: Python, env: NodeJS.ProcessEnv = {}): Promise<RunningProgram> {
  const program = await startRunning(python, RUNNING, /^started$/m, env);
  programs.push(program);
  return program;
}

function attachTo(pid: number | string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: "dapper", request: "attach", name: "attach by pid", processId: pid, ...extra };
}

/** The stop that comes next: its top frame and that frame's locals. */
async function stopIn(client: RecordingClient, reason: string): Promise<{ threadId: number; name: string; line: number; locals: Map<string, string> }> {
  const { event, frames } = await client.nextStop();
  assert.equal(event.body.reason, reason);
  const top = frames[0];
  const scopes = await client.scopesRequest({ frameId: top.id });
  const values = await client.values(scopes.body.scopes[0].variablesReference);
  const locals = new Map([...values].map(([name, variable]) => [name, variable.value]));
  return { threadId: Number(event.body.threadId), name: top.name, line: top.line, locals };
}

/** Every line the program printed is its own: the debugger added nothing and took nothing. */
function assertOwnOutput(program: RunningProgram): void {
  const lines = program.stdout().trimEnd().split("\n");
  assert.deepEqual(lines.filter((line) => !/^(started|tick \d+)$/.test(line)), [], program.stdout());
  const ticks = lines.slice(1).map((line) => Number(line.split(" ")[1]));
  ticks.forEach((tick, index) => assert.equal(tick, 25 * (index + 1), `ticks printed in order: ${ticks.join(",")}`));
}

for (const python of all) {
  describe(`attach by process id on Python ${python.version}`, { skip: cannotAttach(python) }, () => {
    test("breakpoints before and after, both threads, step, pause; detach leaves it running; attach again", async () => {
      const program = await run(python);
      const first = new RecordingClient();
      const second = new RecordingClient();
      try {
        await first.start();
        await attachWith(first, attachTo(String(program.pid)), { [RUNNING]: [tickLine] });
        const processEvent = await first.next("process");
        assert.equal(processEvent.body.startMethod, "attach");
        assert.equal(processEvent.body.systemProcessId, program.pid);
        assert.equal(processEvent.body.name, path.join(fixtures, RUNNING));

        const atTick = await stopIn(first, "breakpoint");
        assert.deepEqual([atTick.name, atTick.line], ["tick_forever", tickLine]);
        assert.ok(Number(atTick.locals.get("ticks")) > 0, "it ran before the attach");
        const threads = await first.threadsRequest();
        const names = threads.body.threads.map((thread) => thread.name);
        assert.ok(names.includes("MainThread") && names.includes("worker"), JSON.stringify(names));

        // A breakpoint set after the attach, in the other thread's loop, which was running
        // before the attach.
        await first.setBreakpointsRequest({ source: { path: path.join(fixtures, RUNNING) }, breakpoints: [{ line: beatLine }] });
        await first.continueRequest({ threadId: atTick.threadId });
        const atBeat = await stopIn(first, "breakpoint");
        assert.deepEqual([atBeat.name, atBeat.line], ["work", beatLine]);
        const beats = Number(atBeat.locals.get("beats"));
        await first.nextRequest({ threadId: atBeat.threadId });
        const stepped = await stopIn(first, "step");
        assert.equal(stepped.line, beatLine + 1);
        assert.equal(Number(stepped.locals.get("beats")), beats + 1);

        await first.setBreakpointsRequest({ source: { path: path.join(fixtures, RUNNING) }, breakpoints: [] });
        await first.continueRequest({ threadId: atBeat.threadId });
        await new Promise((resolve) => setTimeout(resolve, 200));
        await first.pauseRequest({ threadId: atTick.threadId });
        const paused = await first.nextStop();
        assert.equal(paused.event.body.reason, "pause");

        await first.disconnectRequest({});
        await first.next("terminated");
        const printed = program.stdout().length;
        await waitUntil(() => program.stdout().length > printed, 5000, "the program to go on printing after the detach");
        assert.ok(isAlive(program.pid));

        await second.start();
        await attachWith(second, attachTo(program.pid), { [RUNNING]: [tickLine] });
        const again = await stopIn(second, "breakpoint");
        assert.ok(Number(again.locals.get("ticks")) > Number(atTick.locals.get("ticks")), "it ran on between the sessions");
        await second.disconnectRequest({});
        await second.next("terminated");
        const later = program.stdout().length;
        await waitUntil(() => program.stdout().length > later, 5000, "the program to go on printing after the second detach");
        assert.equal(program.stderr(), "", "nothing on its stderr");
        assertOwnOutput(program);
      } finally {
        await Promise.all([first.stop(), second.stop()]);
        program.process.kill("SIGKILL");
      }
    });

    test("a child process the program starts after the attach is a child session and stops at its breakpoint", async () => {
      const flag = path.join(mkdtempSync(path.join(os.tmpdir(), "dapper-e2e-spawner-")), "go");
      const program = await startRunning(python, "attach/spawner.py", /^waiting$/m, { DAPPER_TEST_FLAG: flag });
      programs.push(program);
      const server = await startServer();
      const tree = new SessionTree(server.port, { [WORKER]: [workerLine] }, true);
      try {
        await tree.root.start(server.port);
        await attachWith(tree.root, attachTo(program.pid), {}, { supportsStartDebuggingRequest: true, supportsDapperEvents: true });
        writeFileSync(flag, "");
        const child = await tree.nextChild();
        await waitUntil(() => child.ended, 20000, "the child session's end");
        assert.deepEqual(child.stops, [`worker.py:${workerLine}`]);
        assert.deepEqual(child.all("exited").map((body) => body.exitCode), [3]);
        await waitUntil(() => /parent saw 3\n/.test(program.stdout()), 20000, "the program to report its child's exit code");
      } finally {
        await tree.stop();
        server.stop();
        program.process.kill("SIGKILL");
      }
    });
  });
}

/**
 * As root, the program of another user (nobody, through setpriv, with the system's
 * Python 3.9-3.13): the bootstrap and the listener are given to that user.
 */
function asNobody(): Python | undefined {
  const system = ["/usr/bin/python3.13", "/usr/bin/python3.12", "/usr/bin/python3.11", "/usr/bin/python3.10", "/usr/bin/python3.9"].find((file) => existsSync(file));
  if (process.getuid?.() !== 0 || system === undefined || !existsSync("/usr/bin/setpriv")) return undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), "dapper-e2e-nobody-"));
  const wrapper = path.join(dir, "python");
  writeFileSync(wrapper, `#!/bin/sh\nexec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups ${system} "$@"\n`);
  chmodSync(wrapper, 0o755);
  return { version: path.basename(system).slice("python".length), executable: wrapper };
}

const nobody = asNobody();
test("root attaches to another user's program", { skip: nobody === undefined ? "needs root, setpriv and a system Python 3.9-3.13" : false }, async () => {
  const program = await run(nobody as Python);
  const client = new RecordingClient();
  try {
    await client.start();
    await attachWith(client, attachTo(program.pid), { [RUNNING]: [tickLine] });
    const stop = await stopIn(client, "breakpoint");
    assert.deepEqual([stop.name, stop.line], ["tick_forever", tickLine]);
    await client.disconnectRequest({});
    await client.next("terminated");
    const printed = program.stdout().length;
    await waitUntil(() => program.stdout().length > printed, 5000, "the program to go on printing after the detach");
    assert.equal(program.stderr(), "");
  } finally {
    await client.stop();
    program.process.kill("SIGKILL");
  }
});

const lldbTarget = all.find((python) => Number(python.version.split(".")[1]) < 14 && cannotAttach(python) === false);
test("lldb named by debuggerPath", { skip: lldbTarget === undefined || !existsSync("/usr/bin/lldb") ? "needs /usr/bin/lldb and a Python 3.9-3.13 this machine attaches to" : false }, async () => {
  const program = await run(lldbTarget as Python);
  const client = new RecordingClient();
  try {
    await client.start();
    await attachWith(client, attachTo(program.pid, { debuggerPath: "/usr/bin/lldb" }), { [RUNNING]: [tickLine] });
    const stop = await stopIn(client, "breakpoint");
    assert.deepEqual([stop.name, stop.line], ["tick_forever", tickLine]);
    await client.disconnectRequest({});
    await client.next("terminated");
    const printed = program.stdout().length;
    await waitUntil(() => program.stdout().length > printed, 5000, "the program to go on printing after the detach");
    assertOwnOutput(program);
  } finally {
    await client.stop();
    program.process.kill("SIGKILL");
  }
});

/** An attach that must fail with `message`. */
async function refused(attach: Record<string, unknown>, message: RegExp): Promise<void> {
  const client = new RecordingClient();
  try {
    await client.start();
    await client.initializeRequest({ adapterID: "dapper" });
    await assert.rejects(client.attachRequest(attach as never), message);
  } finally {
    await client.stop();
  }
}

describe("attach by process id refused", () => {
  test("a process that does not exist", async () => {
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => gone.once("exit", resolve));
    await refused(attachTo(gone.pid ?? 0), new RegExp(`there is no process with id ${gone.pid} \\(has it exited\\?\\)`));
  });

  test("a process that is not Python", async () => {
    const sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    try {
      await refused(attachTo(sleeper.pid ?? 0), new RegExp(`process ${sleeper.pid} is not a Python process \\(it runs ${escaped(process.execPath)}\\)`));
      assert.equal(sleeper.exitCode, null, "it runs on");
    } finally {
      sleeper.kill("SIGKILL");
    }
  });

  const older = all.find((python) => Number(python.version.split(".")[1]) < 14);
  test("Windows: Python 3.9-3.13 is refused, naming the way that works", { skip: process.platform !== "win32" || older === undefined ? "Windows, with a Python 3.9-3.13" : false }, async () => {
    const program = await run(older as Python);
    try {
      await refused(attachTo(program.pid), /which Dapper attaches to by process id on Windows only from Python 3\.14 on .*--listen/);
      assert.ok(isAlive(program.pid));
    } finally {
      program.process.kill("SIGKILL");
    }
  });

  test("no debugger to inject into Python 3.9-3.13 with", { skip: older === undefined || process.platform === "win32" }, async () => {
    const program = await run(older as Python);
    try {
      await refused(attachTo(program.pid, { debuggerPath: "/nonexistent/gdb" }), /the debugger "\/nonexistent\/gdb" \(the attach configuration's "debuggerPath" or DAPPER_INJECT_DEBUGGER\) does not exist/);
      assert.ok(isAlive(program.pid));
    } finally {
      program.process.kill("SIGKILL");
    }
  });

  test("a process another tracer holds (strace), on Python 3.9-3.13", { skip: older === undefined || process.platform !== "linux" || !existsSync("/usr/bin/strace") }, async () => {
    const program = await run(older as Python);
    const strace = spawn("/usr/bin/strace", ["-p", String(program.pid), "-o", "/dev/null"], { stdio: "ignore" });
    try {
      await waitUntil(() => /TracerPid:\s*[1-9]/.test(readFileSync(`/proc/${program.pid}/status`, "utf8")), 5000, "strace to attach");
      await refused(attachTo(program.pid), new RegExp(`process ${program.pid} is being traced already by process ${strace.pid} \\(strace\\)`));
      assert.ok(isAlive(program.pid));
    } finally {
      strace.kill("SIGKILL");
      program.process.kill("SIGKILL");
    }
  });

  test("a program Dapper debugs already", { skip: older === undefined }, async () => {
    const launched = new RecordingClient();
    try {
      await launched.start();
      await launched.launchWith({ type: "dapper", request: "launch", program: path.join(fixtures, RUNNING), python: (older as Python).executable, console: "internalConsole" });
      const processEvent = await launched.next("process");
      const pid = Number(processEvent.body.systemProcessId);
      await waitUntil(() => launched.output("stdout").includes("started"), 10000, "the launched program to run");
      await refused(attachTo(pid), new RegExp(`Dapper could not attach to process ${pid}: it is debugged by Dapper already`));
      assert.ok(isAlive(pid));
      // The first session goes on: a breakpoint still stops.
      await launched.setBreakpointsRequest({ source: { path: path.join(fixtures, RUNNING) }, breakpoints: [{ line: tickLine }] });
      const stop = await stopIn(launched, "breakpoint");
      assert.equal(stop.line, tickLine);
    } finally {
      await launched.stop();
    }
  });

  // Only Linux lets Dapper read the target's environment; elsewhere sys.remote_exec finds it off.
  const newer = all.find((python) => Number(python.version.split(".")[1]) >= 14 && cannotAttach(python) === false);
  test("remote debugging disabled on Python 3.14+", { skip: newer === undefined }, async () => {
    const program = await run(newer as Python, { PYTHON_DISABLE_REMOTE_DEBUG: "1" });
    try {
      const why = process.platform === "linux" ? "\\(PYTHON_DISABLE_REMOTE_DEBUG is set in its environment\\)" : "\\(PYTHON_DISABLE_REMOTE_DEBUG is set, or";
      await refused(attachTo(program.pid), new RegExp(`remote debugging is disabled in process \\d+ ${why}`));
      assert.ok(isAlive(program.pid));
    } finally {
      program.process.kill("SIGKILL");
    }
  });
});
