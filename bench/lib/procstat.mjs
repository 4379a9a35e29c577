// A process's own CPU time, read from /proc (Linux): the benchmark's parts read the
// adapter server's around the runs they time, since its work is not the debuggee's.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** User plus system CPU seconds of a process from its /proc/<pid>/stat line (fields 14 and 15, in clock ticks). */
export function parseProcStat(text, ticksPerSecond) {
  // The command name (field 2) is in parentheses and may hold spaces: count after its end.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (the state): utime is field 14, stime 15.
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

let ticks;

/** The CPU seconds process `pid` has used so far; undefined where /proc has no such process. */
export function processCpu(pid) {
  ticks ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"), ticks);
  } catch {
    return undefined;
  }
}
