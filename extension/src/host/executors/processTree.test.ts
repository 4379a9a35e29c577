import assert from "assert/strict";
import { spawn } from "child_process";
import { test } from "node:test";
import { delay, isAlive, waitFor } from "../../testing/standIns";
import { descendantsIn, killTree, parseProcStat, parsePsTable, readProcessTable, taskkillArguments, type ProcessEntry } from "./processTree";

test("a /proc stat line gives the parent and group, whatever the command name holds", () => {
  const cases: [string, ProcessEntry | undefined][] = [
    ["4242 (python3.12) S 4200 4242 4200 34816 4242 4194304", { ppid: 4200, pgid: 4242 }],
    ["77 (Web Content) R 1 77 77 0 -1", { ppid: 1, pgid: 77 }],
    ["90 (a) (b) c) S 12 34 34 0 -1", { ppid: 12, pgid: 34 }],
    ["no parentheses at all", undefined],
    ["5 (cut) S", undefined],
  ];
  for (const [line, expected] of cases) assert.deepEqual(parseProcStat(line), expected, line);
});

test("ps's table (POSIX ps: macOS and procps alike) gives each pid's parent and group", () => {
  const text = ["    1     0     1", "  312     1   312", "  313   312   312", "PID PPID PGID", "", "  9 8"].join("\n");
  assert.deepEqual(
    [...parsePsTable(text)],
    [
      [1, { ppid: 0, pgid: 1 }],
      [312, { ppid: 1, pgid: 312 }],
      [313, { ppid: 312, pgid: 312 }],
    ],
  );
});

test("descendants are every process whose parents lead to the pid, children first, a cycle once", () => {
  const table = new Map<number, ProcessEntry>([
    [10, { ppid: 1, pgid: 10 }],
    [11, { ppid: 10, pgid: 10 }],
    [12, { ppid: 10, pgid: 12 }],
    [13, { ppid: 11, pgid: 10 }],
    [20, { ppid: 1, pgid: 20 }],
    // A table read while pids were reused can hold a loop; the walk still ends.
    [30, { ppid: 31, pgid: 30 }],
    [31, { ppid: 30, pgid: 30 }],
  ]);
  assert.deepEqual(descendantsIn(table, 10), [11, 12, 13]);
  assert.deepEqual(descendantsIn(table, 20), []);
  assert.deepEqual(descendantsIn(table, 30), [31]);
});

test("on Windows the tree is ended by taskkill, forcefully, whatever the signal", () => {
  assert.deepEqual(taskkillArguments(4321), ["/pid", "4321", "/T", "/F"]);
});

// The Linux way (/proc) and the macOS way (ps) on real processes of this machine: a parent
// and a grandchild that left its group (as a daemon does), both reached.
for (const platform of ["linux", "darwin"] as const) {
  test(`${platform}: the table has this process, and a tree kill reaches a descendant that left the group`, { skip: process.platform === "win32" ? "POSIX process groups" : false }, async () => {
    const table = readProcessTable(platform);
    assert.equal(table.get(process.pid)?.ppid, process.ppid);

    const script = `
      const { spawn } = require("child_process");
      const daemon = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { detached: true, stdio: "ignore" });
      console.log(daemon.pid);
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ["-e", script], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
    let printed = "";
    parent.stdout.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    const daemon = await waitFor(() => (/^\d+\n/.test(printed) ? Number(printed.trim()) : undefined), "the daemon's pid");
    try {
      assert.equal(killTree(parent.pid as number, "SIGKILL", platform), true);
      await waitFor(() => (!isAlive(daemon) ? true : undefined), "the daemon to end");
      await waitFor(() => (parent.exitCode !== null || parent.signalCode !== null ? true : undefined), "the parent to end");
    } finally {
      for (const pid of [daemon, parent.pid as number]) if (isAlive(pid)) process.kill(pid, "SIGKILL");
    }
    await delay(0);
    assert.equal(killTree(parent.pid as number, "SIGTERM", platform), false, "a process that is gone is not reached");
  });
}
