// The MCP server on the programs agents meet besides a plain script, driven by the official
// MCP SDK's client: a program that starts child processes (subprocess, then
// multiprocessing), a program attached to by its process id, and a pytest run. These
// check what the server adds (child sessions in its list and its waits, the attach and
// pytest configurations, the answers); the debugging under them is the adapter's, which
// the children, attach-pid and xdist tests check on every Python. The server's code is
// the same whatever the Python, so these run on one, and CI, which runs each end-to-end
// file once per Python, pays for them once.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { cannotAttach, startRunning, useSidGdb } from "./attach-support";
import { connect, ok } from "./mcp-support";
import { fixtures, isAlive, marker, pythons, fixtureVenv, waitUntil } from "./support";

const ONE_PYTHON = "3.12";
const python = pythons().find((p) => p.version === ONE_PYTHON);
const skip = python === undefined ? `these run on Python ${ONE_PYTHON} only, which this run does not have` : false;

const pidIn = (text: string, name: string): number => {
  const match = new RegExp(`${name} \\(pid (\\d+)\\)`).exec(text);
  assert.ok(match, `no pid of ${name} in: ${text}`);
  return Number(match[1]);
};

describe(`MCP on Python ${ONE_PYTHON}`, { skip }, () => {
  const executable = python?.executable ?? "";

  test("child processes: each is a session of its own that stops, is read and continued; stopping the program ends them all", { timeout: 120_000 }, async () => {
    const workerLine = marker("children/worker.py", "worker");
    const taskLine = marker("children/tasks.py", "task");
    const mcp = await connect(path.join(fixtures, "agent"));
    const pids: number[] = [];
    try {
      ok(await mcp.call("set_breakpoint", { file: "../children/worker.py", line: workerLine }));
      ok(await mcp.call("set_breakpoint", { file: "../children/tasks.py", line: taskLine }));
      // The program's own session runs on; its wait ends at the child's stop, which says whose child it is.
      let text = ok(await mcp.call("start", { program: "family.py", python: executable, wait: 60 }));
      assert.match(text, /^Session "worker\.py \(pid \d+\)", child of "family\.py", stopped \(breakpoint\) in thread \d+\.\nAt double in \S*worker\.py:\d+/);
      assert.match(text, /\nOther sessions of this program:\n {2}"family\.py": running$/);
      pids.push(pidIn(text, "worker.py"));
      text = ok(await mcp.call("sessions"));
      assert.match(text, new RegExp(`^"family\\.py": running\\n"worker\\.py \\(pid ${pids[0]}\\)", child of "family\\.py": stopped \\(breakpoint\\) in thread \\d+ at \\S*worker\\.py:${workerLine}\\n`));

      // The one stopped session is the one the tools read when none is named.
      text = ok(await mcp.call("stack"));
      assert.match(text, /^Thread \d+ "MainThread", frames 0–1 of 2:\n#0 double {2}\S*worker\.py:\d+\n {5}\| result = value \* 2/);
      assert.match(ok(await mcp.call("variables")), /value \(int\) = 21/);
      assert.equal(ok(await mcp.call("evaluate", { expression: "value * 2" })), "42");
      text = ok(await mcp.call("control", { action: "continue", wait: 60 }));
      assert.match(text, new RegExp(`^Session "worker\\.py \\(pid ${pids[0]}\\)", child of "family\\.py", ended with exit code 3\\.`));
      assert.match(text, /Other sessions of this program:\n {2}"family\.py": running/);

      // The multiprocessing child: a wait on the program ends at its stop.
      text = ok(await mcp.call("wait", { session: "family.py", timeout: 60 }));
      assert.match(text, /^Session "SpawnProcess-1 \(pid \d+\)", child of "family\.py", stopped \(breakpoint\)[^]*\nAt square in \S*tasks\.py:\d+/);
      pids.push(pidIn(text, "SpawnProcess-1"));
      text = ok(await mcp.call("stack"));
      assert.match(text, /#0 square {2}\S*tasks\.py:\d+\n[^]*#1 report {2}\S*tasks\.py:\d+/);
      assert.match(ok(await mcp.call("variables")), /value \(int\) = 6/);

      // Stopping the program while its child is stopped ends every session and every process.
      const parent = ok(await mcp.call("output", { session: "family.py" }));
      pids.push(Number(/^parent (\d+)$/m.exec(parent)?.[1]));
      assert.match(parent, /^worker exited with 3$/m);
      assert.match(ok(await mcp.call("stop", { session: "family.py" })), /^Session "family\.py" ended\./);
      await waitUntil(() => pids.every((pid) => !isAlive(pid)), 10_000, `the program's processes (${pids.join(", ")}) to end`);
      text = ok(await mcp.call("sessions"));
      assert.match(text, /^"family\.py": ended[^\n]*\n"worker\.py \(pid \d+\)", child of "family\.py": ended with exit code 3\n"SpawnProcess-1 \(pid \d+\)", child of "family\.py": ended/);
    } finally {
      await mcp.close();
      for (const pid of pids.filter((p) => p > 0 && isAlive(p))) process.kill(pid, "SIGKILL");
    }
  });

  test("attach by process id: the breakpoint stops it, both threads are seen, and it runs on after stop", { timeout: 120_000, skip: python !== undefined && cannotAttach(python) }, async () => {
    useSidGdb(pythons());
    const running = "attach/running.py";
    const program = await startRunning(python ?? { version: "", executable: "" }, running, /^started$/m);
    const mcp = await connect(fixtures, process.env.DAPPER_INJECT_DEBUGGER !== undefined ? { DAPPER_INJECT_DEBUGGER: process.env.DAPPER_INJECT_DEBUGGER } : {});
    try {
      ok(await mcp.call("set_breakpoint", { file: running, line: marker(running, "tick") }));
      let text = ok(await mcp.call("start", { pid: program.pid, wait: 60 }));
      assert.match(text, new RegExp(`^Session "pid ${program.pid}" stopped \\(breakpoint\\) in thread \\d+\\.\\nAt tick_forever in attach/running\\.py:${marker(running, "tick")}`));
      text = ok(await mcp.call("stack"));
      assert.match(text, /^Thread \d+ "MainThread", frames 0–1 of 2:/);
      assert.match(text, /\nOther threads: \d+ "worker"; give thread for one's stack\.$/);
      assert.equal(ok(await mcp.call("evaluate", { expression: "ticks > 0" })), "True");
      ok(await mcp.call("remove_breakpoint", { all: true }));
      assert.match(ok(await mcp.call("stop")), new RegExp(`^Session "pid ${program.pid}" ended\\.`));
      const printed = program.stdout().length;
      await waitUntil(() => program.stdout().length > printed, 5000, "the program to go on printing after the session");
      assert.ok(isAlive(program.pid));
      assert.equal(program.stderr(), "");
    } finally {
      await mcp.close();
      program.process.kill("SIGKILL");
    }
  });

  test("pytest: a breakpoint in a test stops; the failing test is in the answer at the end", { timeout: 120_000 }, async (context) => {
    // pytest from the venv the pytest-xdist test makes (the same packages), not a second one.
    const venv = fixtureVenv(python ?? { version: "", executable: "" }, "xdist");
    if (!venv.executable) return context.skip(venv.reason);
    // A copy: pytest writes its bytecode beside the tests.
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "dapper-mcp-pytest-"));
    for (const file of ["buggy.py", "test_scores.py"]) fs.copyFileSync(path.join(fixtures, "agent", file), path.join(work, file));
    const mcp = await connect(work);
    try {
      ok(await mcp.call("set_breakpoint", { file: "test_scores.py", line: marker("agent/test_scores.py", "test") }));
      let text = ok(await mcp.call("start", { pytest: "test_scores.py", args: ["-p", "no:cacheprovider"], python: venv.executable, wait: 60 }));
      assert.match(text, /^Session "test_scores\.py" stopped \(breakpoint\)[^]*\nAt test_average in test_scores\.py:\d+\n {2}\d+ \| result = average\(scores\)/);
      assert.equal(ok(await mcp.call("evaluate", { expression: "average(scores)" })), "2.6666666666666665");
      text = ok(await mcp.call("control", { action: "continue", wait: 60 }));
      assert.match(text, /^Session "test_scores\.py" ended with exit code 1\.\nLast output:\n/);
      assert.match(text, /FAILED test_scores\.py::test_average - assert 2\.6666666666666665 == 6\n=* 1 failed, 1 passed in /);
    } finally {
      await mcp.close();
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
