// What a session and a line breakpoint cost a whole process, from its start to its exit:
// - a session with no breakpoint: a program that does next to nothing, plain and under
//   Dapper (the launch request to the `exited` event, through an adapter server already
//   running, against the spawn to the exit of `python program`);
// - one line breakpoint (a condition that never holds, on the first line of a function the
//   program calls once) in a generated module of 300 and of 3,000 lines, imported by the
//   program after the breakpoint is set, or by the interpreter before the program (a
//   sitecustomize imports it, as the interpreter imports threading.py: its functions are
//   live when the breakpoint comes), with the debugger's cache warm (every later process
//   of a session, every later run) and empty (the first process to meet the file).
// Bytecode is written and read as a user's programs do (PYTHONDONTWRITEBYTECODE, which
// this machine's shells set, is taken out of every run's environment): a module that was
// run before has its .pyc.
// Each variant runs once per round, in an order that rotates, for `rounds` rounds; every
// figure is a median over the rounds of the difference between two runs of the same round
// (with and without the breakpoint; Dapper and plain), in the CPU time of the process (the
// program prints time.process_time() as it ends: every thread, the debugger's included)
// and in wall time. Two plain runs per round show the machine's own spread.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { spawn } from "node:child_process";
import { adapterSpec, DAPPER, endSession, startDapperServer, startSession } from "./adapters.mjs";
import { DapClient } from "./dap-client.mjs";
import { formatMs, median } from "./stats.mjs";

const TIMEOUT_MS = 60_000;
export const SIZES = [300, 3000];
export const TARGETS_MS = { session: 50, 300: 5, 3000: 20 };

const PROGRAM = `import sys, time
import setupmod
setupmod.target(1)
sys.stdout.write(f"BENCH_CPU_SECONDS={time.process_time()!r}\\n")
`;
const TRIVIAL = `import sys, time
sys.stdout.write(f"BENCH_CPU_SECONDS={time.process_time()!r}\\n")
`;

/** A module of about `lines` lines of ordinary code, with `target` half-way; its line. */
export function generateModule(lines) {
  const block = (i) => [
    `def function_${i}(values, limit=${i}):`,
    `    """Sum the values below the limit, doubled."""`,
    "    total = 0",
    "    for value in values:",
    "        if value < limit:",
    "            total += value * 2",
    "        else:",
    "            total -= 1",
    "    return total",
    "",
    "",
    `class Record${i}:`,
    `    def __init__(self, name, size=${i}):`,
    "        self.name = name",
    "        self.size = size",
    "",
    "    def describe(self):",
    `        return f"{self.name}: {self.size}"`,
    "",
    "",
  ];
  const blocks = Math.max(1, Math.round((lines - 4) / block(0).length));
  const text = ['"""A generated module for the breakpoint set-up benchmark."""', ""];
  let targetLine;
  for (let i = 0; i < blocks; i++) {
    if (i === Math.floor(blocks / 2)) {
      text.push("def target(x):");
      targetLine = text.length + 1;
      text.push("    y = x + 1", "    return y", "", "");
    }
    text.push(...block(i));
  }
  return { text: text.join("\n") + "\n", lines: text.length, targetLine };
}

/** The files of one module size: the program and module (imported after), the same with a sitecustomize (imported before). */
function writeFiles(folder, size) {
  const module = generateModule(size);
  const made = {};
  for (const imported of ["after", "before"]) {
    const dir = path.join(folder, `${size}-${imported}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "setupmod.py"), module.text);
    writeFileSync(path.join(dir, "program.py"), PROGRAM);
    if (imported === "before") writeFileSync(path.join(dir, "sitecustomize.py"), "import setupmod\n");
    made[imported] = { dir, program: path.join(dir, "program.py"), module: path.join(dir, "setupmod.py"), line: module.targetLine, lines: module.lines };
  }
  return made;
}

function processCpu(text) {
  const match = /BENCH_CPU_SECONDS=([0-9.eE+-]+)/.exec(text);
  if (!match) throw new Error(`the program printed no BENCH_CPU_SECONDS; its output ended with ${JSON.stringify(text.slice(-300))}`);
  return Number(match[1]);
}

/** `python program` from spawn to exit: { cpu, wall } in seconds. */
function runPlain(python, program, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const inherited = { ...process.env };
    delete inherited.PYTHONDONTWRITEBYTECODE;
    const child = spawn(python, [program], { cwd: path.dirname(program), stdio: ["ignore", "pipe", "pipe"], env: { ...inherited, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-2000)));
    child.on("error", reject);
    child.on("close", (code) => {
      const wall = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`plain ${program} exited with ${code}: ${stderr.trim()}`));
      try {
        resolve({ cpu: processCpu(stdout), wall });
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** A Dapper session of `program`, from the launch to the `exited` event: { cpu, wall }. */
async function runDapper(spec, server, program, { env, breakpoint }) {
  const client = await DapClient.connect(server.port, "Dapper (set-up)");
  const started = performance.now();
  const exited = client.nextEvent("exited", TIMEOUT_MS);
  exited.catch(() => undefined);
  const session = await startSession(spec, {
    client,
    program,
    timeoutMs: TIMEOUT_MS,
    breakpoints: breakpoint ? [{ ...breakpoint, condition: "x == -1" }] : [],
    launchExtra: { env: { ...env, PYTHONDONTWRITEBYTECODE: null } },
  });
  try {
    const event = await exited;
    await client.nextEvent("terminated", TIMEOUT_MS);
    return { cpu: processCpu(client.outputOf("stdout")), wall: (event.receivedAt - started) / 1000 };
  } finally {
    await endSession(session);
  }
}

/** The variants measured each round, by name: how to run each. */
function variants(files, spec, server, python, caches) {
  const runs = {
    "trivial plain": () => runPlain(python, files.trivial, {}),
    "trivial plain again": () => runPlain(python, files.trivial, {}),
    "trivial Dapper": () => runDapper(spec, server, files.trivial, { env: { XDG_CACHE_HOME: caches.warm } }),
  };
  for (const size of SIZES) {
    for (const imported of ["after", "before"]) {
      const made = files[size][imported];
      const pythonpath = imported === "before" ? { PYTHONPATH: made.dir } : {};
      const breakpoint = { path: made.module, line: made.line };
      const key = `${size} ${imported}`;
      runs[`${key} plain`] = () => runPlain(python, made.program, pythonpath);
      runs[`${key} plain again`] = () => runPlain(python, made.program, pythonpath);
      runs[`${key} Dapper`] = () => runDapper(spec, server, made.program, { env: { ...pythonpath, XDG_CACHE_HOME: caches.warm } });
      runs[`${key} Dapper breakpoint`] = () => runDapper(spec, server, made.program, { env: { ...pythonpath, XDG_CACHE_HOME: caches.warm }, breakpoint });
      runs[`${key} Dapper breakpoint cold`] = () => runDapper(spec, server, made.program, { env: { ...pythonpath, XDG_CACHE_HOME: caches.cold() }, breakpoint });
    }
  }
  return runs;
}

/** Medians of paired differences (a − b, per round) in ms, CPU and wall. */
function pairedMs(samples, a, b) {
  const cpu = [];
  const wall = [];
  for (const round of samples) {
    if (round[a] && round[b]) {
      cpu.push((round[a].cpu - round[b].cpu) * 1000);
      wall.push((round[a].wall - round[b].wall) * 1000);
    }
  }
  return { cpu: median(cpu), wall: median(wall) };
}

/** Medians of the absolute differences between two runs of the same round, in ms. */
function spreadMs(samples, a, b) {
  const cpu = [];
  const wall = [];
  for (const round of samples) {
    if (round[a] && round[b]) {
      cpu.push(Math.abs(round[a].cpu - round[b].cpu) * 1000);
      wall.push(Math.abs(round[a].wall - round[b].wall) * 1000);
    }
  }
  return { cpu: median(cpu), wall: median(wall) };
}

function mediansMs(samples, name) {
  const runs = samples.map((round) => round[name]).filter(Boolean);
  return { cpu: median(runs.map((r) => r.cpu * 1000)), wall: median(runs.map((r) => r.wall * 1000)) };
}

/** Runs every variant `rounds` times, interleaved; resolves with the figures. */
export async function measureSetup({ python, venvPython, rounds, log }) {
  const folder = mkdtempSync(path.join(os.tmpdir(), "dapper-bench-setup-"));
  const server = await startDapperServer();
  const spec = adapterSpec(DAPPER, { python: venvPython });
  try {
    const files = { trivial: path.join(folder, "trivial.py") };
    writeFileSync(files.trivial, TRIVIAL);
    for (const size of SIZES) files[size] = writeFiles(folder, size);
    // The debugger's cache: `warm` is filled by the unmeasured first round; each cold run
    // gets a copy of what sessions without a breakpoint leave in it (the restartable
    // compiles of the program and module), so that only the breakpoint's entries are missing.
    const warm = path.join(folder, "cache-warm");
    const template = path.join(folder, "cache-without-breakpoints");
    let colds = [];
    const caches = {
      warm,
      cold() {
        const fresh = path.join(folder, `cache-cold-${colds.length}`);
        cpSync(template, fresh, { recursive: true });
        colds.push(fresh);
        return fresh;
      },
    };
    const runs = variants(files, spec, server, venvPython, caches);
    // Unmeasured: sessions without a breakpoint, then with, fill the caches (and the plain
    // runs write the modules' .pyc files, as a program run before has).
    for (const [name, run] of Object.entries(runs)) if (!name.includes("breakpoint")) await run();
    cpSync(warm, template, { recursive: true });
    for (const [name, run] of Object.entries(runs)) if (name.includes("breakpoint") && !name.includes("cold")) await run();
    const names = Object.keys(runs);
    const samples = [];
    for (let round = 0; round < rounds; round++) {
      const measured = {};
      const offset = (round * 7) % names.length;
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + offset) % names.length];
        try {
          measured[name] = await runs[name]();
        } catch (error) {
          log(`${name}: failed: ${error.message.split("\n")[0]}`);
        }
      }
      samples.push(measured);
      for (const cold of colds) rmSync(cold, { recursive: true, force: true });
      colds = [];
      log(`round ${round + 1}: ${describeRound(measured)}`);
    }
    return summarize(python, samples);
  } finally {
    server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

function describeRound(measured) {
  const ms = (name) => (measured[name] ? `${(measured[name].cpu * 1000).toFixed(0)}` : "?");
  return `CPU ms: trivial ${ms("trivial plain")} / ${ms("trivial Dapper")}; ${SIZES.map((size) => `${size} after ${ms(`${size} after Dapper`)} → ${ms(`${size} after Dapper breakpoint`)}, before ${ms(`${size} before Dapper`)} → ${ms(`${size} before Dapper breakpoint`)}`).join("; ")}`;
}

function summarize(python, samples) {
  const session = {
    plain: mediansMs(samples, "trivial plain"),
    dapper: mediansMs(samples, "trivial Dapper"),
    added: pairedMs(samples, "trivial Dapper", "trivial plain"),
    noise: spreadMs(samples, "trivial plain again", "trivial plain"),
  };
  const rows = [];
  for (const size of SIZES) {
    for (const imported of ["after", "before"]) {
      const key = `${size} ${imported}`;
      const noise = spreadMs(samples, `${key} plain again`, `${key} plain`);
      const session = pairedMs(samples, `${key} Dapper`, `${key} plain`);
      rows.push({ size, imported, cache: "warm", plain: mediansMs(samples, `${key} plain`), session, added: pairedMs(samples, `${key} Dapper breakpoint`, `${key} Dapper`), noise });
      rows.push({ size, imported, cache: "empty", plain: mediansMs(samples, `${key} plain`), session, added: pairedMs(samples, `${key} Dapper breakpoint cold`, `${key} Dapper`), noise });
    }
  }
  return { python, rounds: samples.length, session, rows };
}

const mark = (met) => (met === undefined ? "?" : met ? "✓" : "✗");
const pair = (figures) => `${formatMs(figures.cpu)} / ${formatMs(figures.wall)}`;

/** One line for the console. */
export function describeSetup(result) {
  if (result.error) return `failed: ${result.error}`;
  const warm = result.rows.filter((row) => row.cache === "warm").map((row) => `${row.size} ${row.imported} +${formatMs(row.added.cpu)}`);
  return `session without breakpoints +${formatMs(result.session.added.wall)} wall; one breakpoint (CPU, warm cache): ${warm.join(", ")}`;
}

/** The section of RESULTS.md; empty when the part did not run. */
export function renderSetup(results) {
  if (results.length === 0) return "";
  const lines = ["", "## Breakpoint set-up", ""];
  lines.push(
    "What a session and one line breakpoint add to a whole process, from its start to its exit (bench/lib/setup.mjs). Every figure is a median over rounds of the difference between two runs of the same round, in the CPU time of the debuggee (`time.process_time()` printed as the program ends: every thread) / in wall time (plain: spawn to exit; Dapper: the `launch` request to the `exited` event, through an adapter server already running). plain÷plain: the median difference between two plain runs of the same round, the machine's own spread. Targets are judged on CPU time, which the other work on this 2-core machine disturbs far less than the wall clock. Where the cost goes: docs/instrumentation.md (*Compiling only what holds probes, and keeping it*).",
    "",
  );
  for (const result of results) {
    if (result.error) {
      lines.push(`Python ${result.python}: _failed: ${result.error}_`, "");
      continue;
    }
    const session = result.session;
    lines.push(
      `**Python ${result.python}**, ${result.rounds} rounds. A session with no breakpoint (a program that does next to nothing): plain ${pair(session.plain)}, Dapper ${pair(session.dapper)}; added ${pair(session.added)} (plain÷plain spread ${pair(session.noise)}; target ≤ ${TARGETS_MS.session} ms: ${mark(session.added.wall <= TARGETS_MS.session)} in wall time, ${mark(session.added.cpu <= TARGETS_MS.session)} in CPU).`,
      "",
      "| module | imported | debugger cache | plain | a session adds | one breakpoint in the module adds | plain÷plain spread | target | met? |",
      "|---|---|---|---|---|---|---|---|---|",
    );
    for (const row of result.rows) {
      const target = TARGETS_MS[row.size];
      const judged = row.cache === "warm";
      lines.push(
        `| ${row.size} lines | ${row.imported === "after" ? "by the program, after the breakpoint" : "before the program (sitecustomize)"} | ${row.cache} | ${pair(row.plain)} | ${pair(row.session)} | ${pair(row.added)} | ${pair(row.noise)} | ${judged ? `≤ ${target} ms` : "—"} | ${judged ? mark(row.added.cpu <= target) : "—"} |`,
      );
    }
    lines.push("");
  }
  return lines.join("\n");
}
