// Latencies a user feels, Dapper and debugpy side by side, each the median of many
// repetitions: time to the first breakpoint, `next`, a step with the requests VS Code
// sends after it, big frames and containers, evaluate.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { adapterSpec, connectWithRetry, DEBUGPY, endSession, startServer, startSession } from "./adapters.mjs";
import { programsDir } from "./paths.mjs";
import { markerLine } from "./programs.mjs";
import { median, minimum } from "./stats.mjs";

const TIMEOUT_MS = 30_000;
export const LOCALS_COUNT = 1000;
export const BIG_LIST_LENGTH = 1_000_000;
export const PAGE = { start: BIG_LIST_LENGTH - 100, count: 100 };

export const LATENCIES = {
  startToStop: "adapter start → first `stopped` (breakpoint on line 2 of a trivial script)",
  warmStartToStop: "same, through an adapter already running (as VS Code hosts Dapper's engine)",
  next: "`next` → `stopped`",
  nextInspect: "`next` + stackTrace + scopes + variables",
  locals: "variables of a frame with 1,000 locals",
  page: "a page of 100 children at the end of a 1,000,000-item list",
  evaluate: "evaluate (`v0001 + v0002` in a frame)",
  child: "a child process: `python child.py` spawned → its session `stopped` at a breakpoint",
  attachPid: "attach by process id (a running program's loop) → first `stopped`, through an adapter already running",
};

/** The issue's targets, in milliseconds (median). */
export const LATENCY_TARGETS_MS = { startToStop: 250, warmStartToStop: 250, next: 2, nextInspect: 5, locals: 5, page: 5 };

/** Source of the program the inspection latencies stop in (see LATENCIES). */
export function inspectTargetSource() {
  const lines = ["def inner():"];
  for (let i = 0; i < LOCALS_COUNT; i++) lines.push(`    v${String(i).padStart(4, "0")} = ${i}`);
  lines.push("    return v0000  # BENCH:stop");
  lines.push("", "", "def outer():", `    big = list(range(${BIG_LIST_LENGTH}))`, "    return inner() + len(big)", "", "", "outer()");
  return lines.join("\n") + "\n";
}

/** Measures every latency for one debugger; a failure is recorded per latency. */
export async function measureLatencies({ kind, python, reps, log }) {
  const spec = adapterSpec(kind, { python });
  const results = {};
  const record = async (name, body) => {
    // Each latency is recorded once; a failed session does not overwrite earlier figures.
    if (results[name]) return;
    try {
      results[name] = await body();
    } catch (error) {
      results[name] = { error: String(error.message).split("\n")[0] };
    }
    const r = results[name];
    const text = r.unavailable ?? (r.error ? `failed: ${r.error}` : `median ${r.median.toFixed(3)} ms over ${r.samples.length}${r.note ? ` (${r.note})` : ""}`);
    log(`  ${spec.label} ${name}: ${text}`);
  };
  await record("startToStop", () => startToStop(spec, reps));
  await record("warmStartToStop", () => warmStartToStop(spec, kind, python, reps));
  await record("next", () => stepping(spec, reps, false));
  await record("nextInspect", () => stepping(spec, reps, true));
  await inspection(spec, reps, record);
  return results;
}

function summary(samples, note) {
  return { samples, median: median(samples), min: minimum(samples), note };
}

async function firstStop(session) {
  const stopped = await session.client.nextEvent("stopped", TIMEOUT_MS);
  const threadId = stopped.body.threadId;
  const stack = await session.client.request("stackTrace", { threadId, startFrame: 0, levels: 20 }, TIMEOUT_MS);
  return { stopped, threadId, frames: stack.body.stackFrames };
}

async function startToStop(spec, reps) {
  const program = path.join(programsDir, "trivial.py");
  const line = markerLine(program, "stop");
  const samples = [];
  const phases = { initializeAnswered: [], initialized: [], configurationDone: [] };
  for (let i = 0; i < reps; i++) {
    const session = await startSession(spec, { program, breakpoints: [{ path: program, line }], timeoutMs: TIMEOUT_MS });
    try {
      const { stopped, frames } = await firstStop(session);
      if (frames[0]?.line !== line) throw new Error(`stopped at line ${frames[0]?.line}, not ${line}`);
      samples.push(stopped.receivedAt - session.startedAt);
      for (const name of Object.keys(phases)) phases[name].push(session.phases[name]);
    } finally {
      await endSession(session);
    }
  }
  // Where the time goes, as medians from the adapter's start: the adapter answering
  // `initialize`, the debuggee connected (`initialized`), `configurationDone` answered.
  const at = (name) => `${median(phases[name]).toFixed(0)} ms`;
  return summary(samples, `initialize answered at ${at("initializeAnswered")}, initialized at ${at("initialized")}, configurationDone answered at ${at("configurationDone")}`);
}

/** Sessions through one adapter server: connect, launch, first stop; the adapter's own start is not counted. */
async function warmStartToStop(spec, kind, python, reps) {
  if (kind === DEBUGPY) {
    // Seen here with 1.8.22: after the first session's disconnect the server process exits.
    return { unavailable: "not measurable: debugpy's adapter in debugServer mode (--port) serves one session and exits" };
  }
  const program = path.join(programsDir, "trivial.py");
  const line = markerLine(program, "stop");
  const server = await startServer(kind, { python });
  try {
    const samples = [];
    // One session first, not counted: the server's first session loads what later ones reuse.
    for (let i = 0; i <= reps; i++) {
      const startedAt = performance.now();
      const client = await connectWithRetry(server, `${spec.label} (server)`);
      const session = await startSession(spec, { program, client, breakpoints: [{ path: program, line }], timeoutMs: TIMEOUT_MS });
      try {
        const { stopped, frames } = await firstStop(session);
        if (frames[0]?.line !== line) throw new Error(`stopped at line ${frames[0]?.line}, not ${line}`);
        if (i > 0) samples.push(stopped.receivedAt - startedAt);
      } finally {
        await endSession(session);
      }
    }
    return summary(samples);
  } finally {
    server.stop();
  }
}

async function stepping(spec, reps, inspect) {
  const program = path.join(programsDir, "stepping.py");
  const session = await startSession(spec, { program, breakpoints: [{ path: program, line: markerLine(program, "stop") }], timeoutMs: TIMEOUT_MS });
  const { client } = session;
  try {
    const { threadId } = await firstStop(session);
    // Breakpoints stay set; the loop body has no other breakpoint line than the first,
    // and a step that lands on it still reports `step`, so every `next` is one step.
    const step = async () => {
      const started = performance.now();
      const stopped = client.nextEvent("stopped", TIMEOUT_MS);
      await client.request("next", { threadId }, TIMEOUT_MS);
      await stopped;
      if (!inspect) return performance.now() - started;
      const stack = await client.request("stackTrace", { threadId, startFrame: 0, levels: 20 }, TIMEOUT_MS);
      const scopes = await client.request("scopes", { frameId: stack.body.stackFrames[0].id }, TIMEOUT_MS);
      const locals = scopes.body.scopes[0];
      const variables = await client.request("variables", { variablesReference: locals.variablesReference }, TIMEOUT_MS);
      const elapsed = performance.now() - started;
      if (!variables.body.variables.some((v) => v.name === "total")) throw new Error("the locals after a step do not include `total`");
      return elapsed;
    };
    for (let i = 0; i < 3; i++) await step(); // warm-up: first steps compile and cache
    const samples = [];
    for (let i = 0; i < reps; i++) samples.push(await step());
    return summary(samples);
  } finally {
    await endSession(session);
  }
}

async function timed(reps, body) {
  await body(); // warm-up
  const samples = [];
  let last;
  for (let i = 0; i < reps; i++) {
    const started = performance.now();
    last = await body();
    samples.push(performance.now() - started);
  }
  return { samples, last };
}

async function inspection(spec, reps, record) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "dapper-bench-"));
  const program = path.join(dir, "inspect_target.py");
  writeFileSync(program, inspectTargetSource());
  let session;
  try {
    session = await startSession(spec, { program, breakpoints: [{ path: program, line: markerLine(program, "stop") }], timeoutMs: TIMEOUT_MS });
    const { client } = session;
    const { frames } = await firstStop(session);
    const [inner, outer] = frames;
    const localsOf = async (frame) => (await client.request("scopes", { frameId: frame.id }, TIMEOUT_MS)).body.scopes[0].variablesReference;
    const innerLocals = await localsOf(inner);

    await record("locals", async () => {
      const { samples, last } = await timed(reps, () => client.request("variables", { variablesReference: innerLocals }, TIMEOUT_MS));
      const names = last.body.variables.filter((v) => /^v\d{4}$/.test(v.name)).length;
      return summary(samples, `${last.body.variables.length} variables returned, ${names} of the ${LOCALS_COUNT} locals`);
    });

    await record("page", async () => {
      const outerVariables = await client.request("variables", { variablesReference: await localsOf(outer) }, TIMEOUT_MS);
      const big = outerVariables.body.variables.find((v) => v.name === "big");
      if (!big || !big.variablesReference) throw new Error("the outer frame has no expandable `big`");
      const { samples, last } = await timed(reps, () => client.request("variables", { variablesReference: big.variablesReference, filter: "indexed", ...PAGE }, TIMEOUT_MS));
      const children = last.body.variables;
      const range = children.length ? `${children[0].name} … ${children[children.length - 1].name}` : "nothing";
      const honoured = children.length === PAGE.count && children[0].name.replace(/\D/g, "") === String(PAGE.start);
      return summary(samples, `asked for [${PAGE.start}, ${PAGE.start + PAGE.count}): got ${children.length} children, ${range}${honoured ? "" : " — paging ignored"}`);
    });

    await record("evaluate", async () => {
      const { samples, last } = await timed(reps, () => client.request("evaluate", { expression: "v0001 + v0002", frameId: inner.id, context: "watch" }, TIMEOUT_MS));
      if (last.body.result !== "3") throw new Error(`evaluate gave ${JSON.stringify(last.body.result)}, not "3"`);
      return summary(samples);
    });
  } catch (error) {
    // The session itself failed: every inspection latency not yet measured fails with it.
    for (const name of ["locals", "page", "evaluate"]) await record(name, () => Promise.reject(error));
  } finally {
    if (session) await endSession(session);
    rmSync(dir, { recursive: true, force: true });
  }
}
