// One run of one benchmark program: plain (`python program args`) or under a debugger
// through a full DAP session. The program times its own work and prints
// BENCH_SECONDS=<float> (with its CPU time and memory), so session set-up is never counted.
import { spawn } from "node:child_process";
import { adapterSpec, connectWithRetry, endSession, startSession } from "./adapters.mjs";

export const PLAIN = "plain";
/**
 * A second plain run in the same round, where the targets are within a few percent: its
 * ratio to the first (plain ÷ plain) shows how precise this machine's figures are.
 */
export const PLAIN_AGAIN = "plainAgain";

/** Parses the lines benchkit.report() prints; throws when the timing line is missing. */
export function parseReport(text) {
  const seconds = /^BENCH_SECONDS=([0-9.eE+-]+)\s*$/m.exec(text);
  if (!seconds) throw new Error(`the program printed no BENCH_SECONDS line; its output ended with: ${JSON.stringify(text.slice(-300))}`);
  const value = Number(seconds[1]);
  if (!Number.isFinite(value) || value < 0) throw new Error(`BENCH_SECONDS is not a duration: ${seconds[1]}`);
  const kb = (field) => {
    const match = new RegExp(`^BENCH_${field}_KB=(\\d+)\\s*$`, "m").exec(text);
    return match ? Number(match[1]) : undefined;
  };
  // CPU times over the same window, optional (older programs; no children's on Windows):
  // the whole process's, and its waited-for children's.
  const duration = (field) => {
    const match = new RegExp(`^BENCH_${field}=([0-9.eE+-]+)\\s*$`, "m").exec(text);
    if (!match) return undefined;
    const seconds = Number(match[1]);
    if (!(Number.isFinite(seconds) && seconds >= 0)) throw new Error(`BENCH_${field} is not a duration: ${match[1]}`);
    return seconds;
  };
  return { seconds: value, cpuSeconds: duration("CPU_SECONDS"), childrenCpuSeconds: duration("CHILDREN_CPU_SECONDS"), hwmKb: kb("VMHWM"), rssKb: kb("VMRSS") };
}

/** Runs the program without a debugger. */
export function runPlain({ python, program, args, timeoutMs }) {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [program, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`plain run of ${program} took over ${timeoutMs} ms`));
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`plain run of ${program} exited with ${code}: ${stderr.trim()}`));
      try {
        resolve(parseReport(stdout));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/**
 * Runs the program under a debugger to its end. No stop is allowed (in these
 * configurations a stop means a breakpoint misbehaved); with `expectLogLines`, the log
 * lines that reached the client are counted; with `defaultExceptionFilters`, the
 * exception filters the adapter marks as defaults are set, as VS Code sets them. `server`: an adapter server to connect to
 * (from adapters.mjs `startServer`) instead of starting an adapter for this run.
 */
export async function runDebugged({ kind, python, program, args, breakpoints, timeoutMs, expectLogLines, server, defaultExceptionFilters }) {
  const spec = adapterSpec(kind, { python });
  // Through an adapter already running when `server` is given, else a fresh adapter.
  const connected = server ? await connectWithRetry(server, `${spec.label} (server)`) : undefined;
  const session = await startSession(spec, { program, args, breakpoints, timeoutMs, client: connected, defaultExceptionFilters, launchExtra: { env: { PYTHONDONTWRITEBYTECODE: "1" } } });
  const { client } = session;
  try {
    const stopped = client.nextEvent("stopped", timeoutMs).then((event) => {
      throw new Error(`${spec.label} stopped (${event.body?.reason}) although no breakpoint should stop`);
    });
    stopped.catch(() => undefined);
    await Promise.race([client.nextEvent("terminated", timeoutMs), stopped]);
    const report = parseReport(client.outputOf("stdout"));
    if (expectLogLines !== undefined) {
      // Dapper sends log lines as `console` output, debugpy as `stdout`: count both, and
      // how many arrived after the program's timing line (sent after its timed work).
      const outputs = client.events.filter((e) => e.event === "output" && ["console", "stdout"].includes(e.body?.category));
      const timingIndex = outputs.findIndex((e) => String(e.body.output ?? "").includes("BENCH_SECONDS="));
      let logged = 0;
      let late = 0;
      outputs.forEach((e, index) => {
        const lines = (String(e.body.output ?? "").match(/^i=\d+$/gm) ?? []).length;
        logged += lines;
        if (index > timingIndex) late += lines;
      });
      // A debugger that loses lines still gets its time measured; how many of the lines
      // reached the client is reported beside it (debugpy 1.8.22 was seen to drop most of
      // them when the program ends right after logging). None at all is a failure.
      if (logged === 0) throw new Error(`${spec.label} delivered none of the ${expectLogLines} logpoint lines`);
      if (logged > expectLogLines) throw new Error(`${spec.label} delivered ${logged} logpoint lines, more than the ${expectLogLines} hits`);
      report.logLines = logged;
      report.lateLogLines = late;
    }
    return report;
  } catch (error) {
    const stderr = client.outputOf("stderr").trim();
    throw new Error(`${error.message}${stderr ? `\nthe program's stderr: ${stderr.slice(-1500)}` : ""}`);
  } finally {
    await endSession(session);
  }
}
