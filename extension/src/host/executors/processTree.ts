// Signals a process together with everything it started. On POSIX a spawned debuggee
// leads its own process group, so one group signal reaches it and its children; children
// that left the group (setsid, daemons) are found by walking parent ids. On Windows,
// taskkill /T does the walk.

import { execFileSync, spawn } from "child_process";
import * as fs from "fs";
import type { KillSignal } from "../protocol";

/**
 * Sends the signal to the pid and its descendants. The list of descendants is taken before
 * any signal is sent, because once a parent dies its children are adopted by init and can no
 * longer be told apart. Synchronous on POSIX so it also works inside process.on("exit").
 * Returns false when nothing could be signalled (the process is already gone).
 */
export function killTree(pid: number, signal: KillSignal): boolean {
  if (process.platform === "win32") {
    // taskkill only knows "forcefully": every signal ends the tree.
    const child = spawn("taskkill", ["/pid", String(pid), "/T", "/F"], { stdio: "ignore", windowsHide: true });
    child.on("error", () => undefined);
    return true;
  }
  const table = readProcessTable();
  const descendants = descendantsIn(table, pid);
  const groupReached = signalGroup(pid, signal);
  let reached = groupReached || signalPid(pid, signal);
  for (const child of descendants) {
    // A member of the group already got the signal; a second SIGINT would interrupt a
    // Python program's KeyboardInterrupt handler, so members are skipped.
    if (groupReached && table.get(child)?.pgid === pid) continue;
    if (signalPid(child, signal)) reached = true;
  }
  return reached;
}

/** Signals one process only. */
export function signalPid(pid: number, signal: KillSignal): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Signals the group the pid leads; false when it leads none. */
function signalGroup(pid: number, signal: KillSignal): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

interface ProcessEntry {
  ppid: number;
  pgid: number;
}

/** Every process in the table whose chain of parents reaches pid, children before grandchildren. */
function descendantsIn(table: Map<number, ProcessEntry>, pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const [child, { ppid: parent }] of table) {
    const list = children.get(parent);
    if (list) list.push(child);
    else children.set(parent, [child]);
  }
  const result: number[] = [];
  const queue = [pid];
  const seen = new Set<number>([pid]);
  while (queue.length > 0) {
    const current = queue.shift() as number;
    for (const child of children.get(current) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      result.push(child);
      queue.push(child);
    }
  }
  return result;
}

/** Maps each pid to its parent and group, from /proc on Linux and from ps elsewhere. */
function readProcessTable(): Map<number, ProcessEntry> {
  const table = new Map<number, ProcessEntry>();
  if (process.platform === "linux") {
    let entries: string[] = [];
    try {
      entries = fs.readdirSync("/proc");
    } catch {
      return table;
    }
    for (const entry of entries) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        // The command name in parentheses may itself contain spaces and parentheses, so
        // the fields are read after the last ")".
        const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        table.set(Number(entry), { ppid: Number(fields[1]), pgid: Number(fields[2]) });
      } catch {
        // The process ended while we looked.
      }
    }
    return table;
  }
  try {
    const text = execFileSync("ps", ["-A", "-o", "pid=,ppid=,pgid="], { encoding: "utf8", timeout: 2000 });
    for (const line of text.split("\n")) {
      const match = /^\s*(\d+)\s+(\d+)\s+(\d+)/.exec(line);
      if (match) table.set(Number(match[1]), { ppid: Number(match[2]), pgid: Number(match[3]) });
    }
  } catch {
    // Without ps only the process group is reached.
  }
  return table;
}
