// Signals a process together with everything it started. On POSIX a spawned debuggee
// leads its own process group, so one group signal reaches it and its children; children
// that left the group (setsid, daemons) are found by walking parent ids, read from /proc
// on Linux and from ps elsewhere (macOS has no /proc). On Windows, which has neither
// signals nor process groups of this kind, taskkill /T does the walk.
//
// The platform is a parameter so that each platform's way is tested on any machine: ps
// runs on Linux too, and taskkill's command line is data.

import { execFileSync, spawn } from "child_process";
import * as fs from "fs";
import type { KillSignal } from "../protocol";

/**
 * Sends the signal to the pid and its descendants. The list of descendants is taken before
 * any signal is sent, because once a parent dies its children are adopted by init and can no
 * longer be told apart. Synchronous on POSIX so it also works inside process.on("exit").
 * Returns false when nothing could be signalled (the process is already gone).
 */
export function killTree(pid: number, signal: KillSignal, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === "win32") {
    const child = spawn("taskkill", taskkillArguments(pid), { stdio: "ignore", windowsHide: true });
    child.on("error", () => undefined);
    return true;
  }
  const table = readProcessTable(platform);
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

/**
 * taskkill's arguments for a process and its descendants. Windows has no signals to ask
 * a program to end (Node's process.kill ends it at once whatever the signal), so /F
 * (forcefully) is the only kind: every signal ends the tree.
 */
export function taskkillArguments(pid: number): string[] {
  return ["/pid", String(pid), "/T", "/F"];
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

export interface ProcessEntry {
  ppid: number;
  pgid: number;
}

/** Every process in the table whose chain of parents reaches pid, children before grandchildren. */
export function descendantsIn(table: Map<number, ProcessEntry>, pid: number): number[] {
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
export function readProcessTable(platform: NodeJS.Platform = process.platform): Map<number, ProcessEntry> {
  if (platform === "linux") return readProcTable();
  try {
    return parsePsTable(execFileSync("ps", PS_TABLE_ARGS, { encoding: "utf8", timeout: 2000 }));
  } catch {
    // Without ps only the process group is reached.
    return new Map();
  }
}

/** pid, parent and group of every process, without headers: POSIX ps, so macOS's and procps' alike. */
export const PS_TABLE_ARGS = ["-A", "-o", "pid=,ppid=,pgid="] as const;

/** Parses `ps -A -o pid=,ppid=,pgid=`; lines that are not three numbers are skipped. */
export function parsePsTable(text: string): Map<number, ProcessEntry> {
  const table = new Map<number, ProcessEntry>();
  for (const line of text.split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)/.exec(line);
    if (match) table.set(Number(match[1]), { ppid: Number(match[2]), pgid: Number(match[3]) });
  }
  return table;
}

/**
 * The parent and group in a /proc/PID/stat line. The command name in parentheses may
 * itself hold spaces and parentheses, so the fields are read after the last ")".
 */
export function parseProcStat(stat: string): ProcessEntry | undefined {
  const close = stat.lastIndexOf(")");
  if (close < 0) return undefined;
  const fields = stat.slice(close + 2).split(" ");
  const ppid = Number(fields[1]);
  const pgid = Number(fields[2]);
  return Number.isInteger(ppid) && Number.isInteger(pgid) ? { ppid, pgid } : undefined;
}

function readProcTable(): Map<number, ProcessEntry> {
  const table = new Map<number, ProcessEntry>();
  let entries: string[] = [];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return table;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parsed = parseProcStat(fs.readFileSync(`/proc/${entry}/stat`, "utf8"));
      if (parsed) table.set(Number(entry), parsed);
    } catch {
      // The process ended while we looked.
    }
  }
  return table;
}
