// Data breakpoints' cost in a real Dapper session: bench/programs/
// databreakpoints.py times three loops of N iterations; the bench runs it plain, then
// under Dapper stopped at its start with no data breakpoint, with one on a local of the
// first loop's frame (which the loop leaves unchanged), and with one on an attribute
// changed elsewhere (which the second loop cannot change, the third loop's code could:
// it stores an attribute of that name on another object). With no data breakpoint, the
// loops must run as they do plain (3.12+) or as under any Dapper session (3.9-3.11).
import { execFileSync } from "node:child_process";
import path from "node:path";
import { adapterSpec, DAPPER, endSession, startSession } from "./adapters.mjs";
import { programsDir } from "./paths.mjs";
import { markerLine } from "./programs.mjs";
import { formatMs, median } from "./stats.mjs";

const TIMEOUT_MS = 120_000;
const program = path.join(programsDir, "databreakpoints.py");
const LOOPS = ["spin", "other", "same_name"];
/** What each configuration watches (an expression in spin's frame), or nothing. */
export const WATCHES = { none: undefined, local: "count", attribute: "BOX.value" };

async function runDapper(python, n, watch, tracer) {
  const session = await startSession(adapterSpec(DAPPER, { python }), {
    program,
    args: [String(n)],
    breakpoints: [{ path: program, line: markerLine(program, "stop") }],
    launchExtra: tracer ? { env: { DAPPER_TRACER: tracer } } : {},
    timeoutMs: TIMEOUT_MS,
  });
  try {
    const { client } = session;
    const stopped = await client.nextEvent("stopped", TIMEOUT_MS);
    const threadId = stopped.body.threadId;
    await client.request("setBreakpoints", { source: { path: program }, breakpoints: [] }, TIMEOUT_MS);
    if (watch) {
      const stack = await client.request("stackTrace", { threadId }, TIMEOUT_MS);
      const info = await client.request("dataBreakpointInfo", { name: watch, frameId: stack.body.stackFrames[0].id }, TIMEOUT_MS);
      if (!info.body.dataId) throw new Error(`no dataId for ${watch}: ${info.body.description}`);
      const set = await client.request("setDataBreakpoints", { breakpoints: [{ dataId: info.body.dataId }] }, TIMEOUT_MS);
      if (!set.body.breakpoints[0].verified) throw new Error(`${watch} not verified: ${set.body.breakpoints[0].message}`);
    }
    await client.request("continue", { threadId }, TIMEOUT_MS);
    await client.nextEvent("terminated", TIMEOUT_MS);
    return JSON.parse(client.outputOf("stdout").trim().split("\n").at(-1));
  } finally {
    await endSession(session);
  }
}

function runPlain(python, n) {
  return JSON.parse(execFileSync(python, [program, String(n)], { encoding: "utf8" }).trim().split("\n").at(-1));
}

/** Medians of `runs` runs per configuration, in seconds per loop (or `{error}`). */
export async function measureDataBreakpoints({ python, n, runs, tracer }) {
  try {
    const samples = { plain: [] };
    for (const name of Object.keys(WATCHES)) samples[name] = [];
    for (let run = 0; run < runs; run++) {
      samples.plain.push(runPlain(python, n));
      for (const [name, watch] of Object.entries(WATCHES)) samples[name].push(await runDapper(python, n, watch, tracer));
    }
    const medians = {};
    for (const [name, list] of Object.entries(samples)) {
      medians[name] = Object.fromEntries(LOOPS.map((loop) => [loop, median(list.map((sample) => sample[loop]))]));
    }
    return { n, runs, tracer: tracer ?? "default", medians };
  } catch (error) {
    return { error: String(error.message).split("\n")[0] };
  }
}

const LABELS = {
  spin: "loop in the watched local's frame",
  other: "loop in code that stores no such attribute",
  same_name: "loop storing `.value` on another object",
};

function cell(result, config, loop) {
  const seconds = result.medians[config][loop];
  return `${formatMs(seconds * 1000)} (×${(seconds / result.medians.plain[loop]).toFixed(2)})`;
}

export function describeDataBreakpoints(result) {
  if (result.error) return `failed: ${result.error}`;
  return LOOPS.map((loop) => `${loop}: plain ${formatMs(result.medians.plain[loop] * 1000)}; ${Object.keys(WATCHES).map((config) => `${config} ${cell(result, config, loop)}`).join(", ")}`).join("\n   ");
}

export function renderDataBreakpoints(results) {
  if (results.length === 0) return "";
  const parts = results.map(({ python, result }) => {
    if (result.error) return `Python ${python}: _failed: ${result.error}_`;
    const rows = LOOPS.map((loop) => `| ${LABELS[loop]} | ${formatMs(result.medians.plain[loop] * 1000)} | ${cell(result, "none", loop)} | ${cell(result, "local", loop)} | ${cell(result, "attribute", loop)} |`);
    return [
      `Python ${python} (${result.tracer} tracer), ${result.n.toLocaleString("en-US")} iterations per loop, median of ${result.runs} runs (× plain):`,
      "",
      "| loop | plain | Dapper, no data breakpoint | watching local `count` | watching `BOX.value` |",
      "| --- | --- | --- | --- | --- |",
      ...rows,
    ].join("\n");
  });
  return `\n## Data breakpoints\n\n${parts.join("\n\n")}\n`;
}
