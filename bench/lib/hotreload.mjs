// Hot reload in a real Dapper session: bench/programs/hotreload.py imports a generated
// 2,000-line module (extension/python/tests/bench_hotreload.py writes it), times a tight
// loop in it, and stops at a breakpoint; there the bench writes new versions of the module
// (every tenth function and method changed, the loop's function too) and reloads each with
// `dapper/hotReload`, then lets the program time the same loop again. The goals: the
// reload under 50 ms, the loop as fast after it as before.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { adapterSpec, DAPPER, endSession, startSession } from "./adapters.mjs";
import { programsDir, root } from "./paths.mjs";
import { markerLine } from "./programs.mjs";
import { formatMs, median } from "./stats.mjs";

const TIMEOUT_MS = 60_000;
const LINES = 2000;
export const HOT_RELOAD_TARGET_MS = 50;
const generator = path.join(root, "extension", "python", "tests", "bench_hotreload.py");

/** Reloads the module `reloads` times while paused; returns the figures (or `{error}`). */
export async function measureHotReload({ python, reloads }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "dapper-bench-reload-"));
  const target = path.join(dir, "bench_target.py");
  const emit = (version) => execFileSync(python, [generator, "--emit", target, "--version", String(version), "--lines", String(LINES)]);
  const program = path.join(programsDir, "hotreload.py");
  let session;
  try {
    emit(0);
    session = await startSession(adapterSpec(DAPPER, { python }), { program, args: [dir], breakpoints: [{ path: program, line: markerLine(program, "stop") }], timeoutMs: TIMEOUT_MS });
    const { client } = session;
    const stopped = await client.nextEvent("stopped", TIMEOUT_MS);
    const roundTrips = [];
    const inDebuggee = [];
    let updated = 0;
    for (let version = 1; version <= reloads; version++) {
      emit(version);
      const started = performance.now();
      const response = await client.request("dapper/hotReload", { source: { path: target } }, TIMEOUT_MS);
      roundTrips.push(response.receivedAt - started);
      inDebuggee.push(response.body.durationMs);
      updated = response.body.updated.length;
    }
    await client.request("setBreakpoints", { source: { path: program }, breakpoints: [] }, TIMEOUT_MS);
    await client.request("continue", { threadId: stopped.body.threadId }, TIMEOUT_MS);
    await client.nextEvent("terminated", TIMEOUT_MS);
    const printed = JSON.parse(client.outputOf("stdout").trim().split("\n").at(-1));
    // The loop's function of the last version: its result proves the new code ran.
    if (printed.spin3 !== 3 * (reloads + 1)) throw new Error(`the loop did not run the reloaded code (spin(3) = ${printed.spin3})`);
    return { lines: LINES, updated, roundTrip: median(roundTrips), inDebuggee: median(inDebuggee), max: Math.max(...roundTrips), samples: roundTrips.length, loopBefore: printed.before, loopAfter: printed.after };
  } catch (error) {
    return { error: String(error.message).split("\n")[0] };
  } finally {
    if (session) await endSession(session);
    rmSync(dir, { recursive: true, force: true });
  }
}

export function describeHotReload(result) {
  if (result.error) return `failed: ${result.error}`;
  return `reload of a ${result.lines}-line module while paused: median ${formatMs(result.roundTrip)} (request to response; ${formatMs(result.inDebuggee)} in the debuggee), max ${formatMs(result.max)}, n=${result.samples}; tight loop ${formatMs(result.loopBefore)} before, ${formatMs(result.loopAfter)} after (×${(result.loopAfter / result.loopBefore).toFixed(2)})`;
}

export function renderHotReload(python, result) {
  if (!result) return "";
  const body = result.error
    ? `_Failed: ${result.error}_`
    : [
        `Python ${python}, a Dapper session paused at a breakpoint; the module imported by the program has ${result.lines} lines, ${result.updated} definitions changed per reload.`,
        "",
        "| measure | value | target | met? |",
        "| --- | --- | --- | --- |",
        `| \`dapper/hotReload\` request → response (median of ${result.samples}; max ${formatMs(result.max)}) | ${formatMs(result.roundTrip)} | ≤ ${formatMs(HOT_RELOAD_TARGET_MS)} | ${result.roundTrip <= HOT_RELOAD_TARGET_MS ? "yes" : "**no**"} |`,
        `| the reload inside the debuggee (its \`durationMs\`, median) | ${formatMs(result.inDebuggee)} | — | — |`,
        `| tight loop in the module, after ÷ before the reloads | ${(result.loopAfter / result.loopBefore).toFixed(2)} (${formatMs(result.loopAfter)} / ${formatMs(result.loopBefore)}) | ≈ 1 | ${result.loopAfter / result.loopBefore <= 1.1 ? "yes" : "**no**"} |`,
      ].join("\n");
  return `\n## Hot reload\n\n${body}\n`;
}
