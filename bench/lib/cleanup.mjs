// Processes the benchmark started in process groups of their own (adapters, the Dapper
// server) and debuggees it learned about: all are killed when the benchmark exits, also on
// Ctrl-C, so that an interrupted run leaves nothing behind on a shared machine.
//
// Pids are reused quickly here (pid_max is 32768 and a run starts thousands of
// processes), and other people's tests run on the same machine: a process is only ever
// signalled while /proc shows it is still one of the benchmark's (its command line names
// an adapter, a launcher or a benchmark program). Elsewhere than Linux nothing is killed
// by pid; adapters still get their stdin closed by the client.
import { readdirSync, readFileSync } from "node:fs";

const MARKERS = ["debugpy", "dist/adapter.js", "dapperdbg.launcher", "/bench/programs/", "dapper-bench-"];

const groups = new Set();
const pids = new Set();
let installed = false;

function install() {
  if (installed) return;
  installed = true;
  process.on("exit", killAll);
  for (const [signal, number] of [["SIGINT", 2], ["SIGTERM", 15], ["SIGHUP", 1]]) {
    process.once(signal, () => {
      killAll();
      process.exit(128 + number);
    });
  }
}

/** Whether a live process is one the benchmark started (see the header). */
export function isOurs(pid) {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
    return MARKERS.some((marker) => cmdline.includes(marker));
  } catch {
    return false;
  }
}

/** The live processes whose process group is `pgid`, from /proc. */
function membersOf(pgid) {
  const members = [];
  let entries;
  try {
    entries = readdirSync("/proc");
  } catch {
    return members;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command (which may hold spaces) start after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid) members.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return members;
}

function killIfOurs(pid) {
  if (!isOurs(pid)) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

export function killAll() {
  for (const pgid of groups) for (const pid of membersOf(pgid)) killIfOurs(pid);
  for (const pid of pids) killIfOurs(pid);
  groups.clear();
  pids.clear();
}

/** A process group (its leader's pid) to kill on exit. */
export function trackGroup(pgid) {
  install();
  if (pgid) groups.add(pgid);
}

/** Kills what is left of a tracked group now and forgets it. */
export function killGroup(pgid) {
  if (!pgid) return;
  for (const pid of membersOf(pgid)) killIfOurs(pid);
  groups.delete(pgid);
}

/** A single process (a debuggee in a group of its own) to kill on exit. */
export function trackPid(pid) {
  install();
  if (pid) pids.add(pid);
}

export function killPid(pid) {
  if (!pid) return;
  killIfOurs(pid);
  pids.delete(pid);
}
