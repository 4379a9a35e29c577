// The table of ratios: every program in every configuration on every Python, plain and
// under each debugger, the runs of one cell interleaved (plain, Dapper, debugpy, in an
// order that rotates from run to run) so that a slow minute of the machine hits all three.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DAPPER, DEBUGPY, startServer } from "./adapters.mjs";
import { PLAIN, PLAIN_AGAIN, runDebugged, runPlain } from "./measure.mjs";
import { programsDir } from "./paths.mjs";
import { BIG_TABLE_MODULE, bigTableSource, breakpointsFor, formatRatio, sizeFor, targetNearOne } from "./programs.mjs";
import { median, minimum, pairedRatios } from "./stats.mjs";

/** A run that takes longer than this is a failure of that run, not a hang of the benchmark. */
const RUN_TIMEOUT_MS = 180_000;

/** The order of the modes in run `index`: a rotation, so none is always first or last. */
export function modeOrder(modes, index) {
  const shift = index % modes.length;
  return [...modes.slice(shift), ...modes.slice(0, shift)];
}

/**
 * The rounds of a cell: `runs`, or `nearRuns` for a cell whose target is near 1×. The
 * rounds past `runs` leave debugpy out (its ratios are far from 1× or it would double the
 * run's length), so that its figure keeps `runs` rounds and Dapper's gets them all.
 */
export function cellRounds({ python, program, config, modes, runs, nearRuns }) {
  const count = targetNearOne({ python, program, config }) ? Math.max(runs, nearRuns ?? runs) : runs;
  return Array.from({ length: count }, (_, run) => modeOrder(run < runs ? modes : modes.filter((mode) => mode !== DEBUGPY), run));
}

/**
 * @param pythons [{version, venvPython}]
 * @param programs entries of PROGRAMS to run
 * @param onCell called with the cells so far after each one (the run saves its results)
 * @returns cells: [{python, program, config, size, seconds: {plain, dapper, debugpy}, cpuSeconds, hwmKb, errors}]
 */
export async function measureRatios({ pythons, programs, runs, nearRuns, quick, debuggers, log, coldAdapter = false, onCell = () => undefined }) {
  // Dapper's sessions go through one adapter server, warmed by a first session that is
  // not measured, as VS Code hosts one engine for the whole extension host. A freshly
  // started adapter compiles its WebAssembly in the background for a while: 120-150 ms
  // of CPU measured inside the timed window of a 0.15 s program, which on 2 cores is
  // taken from the program (a warm adapter: 0-10 ms). `coldAdapter` starts one per run.
  const server = debuggers.includes(DAPPER) && !coldAdapter ? await warmDapperServer(pythons[0]) : undefined;
  try {
    return await measureCells({ pythons, programs, runs, nearRuns, quick, debuggers, log, onCell, server });
  } finally {
    server?.stop();
  }
}

async function warmDapperServer(python) {
  const server = await startServer(DAPPER, { python: python.venvPython });
  try {
    await runDebugged({ kind: DAPPER, python: python.venvPython, program: path.join(programsDir, "fib.py"), args: ["15"], breakpoints: [], timeoutMs: RUN_TIMEOUT_MS, server });
  } catch (error) {
    server.stop();
    throw new Error(`the warm-up session of the Dapper adapter server failed: ${error.message}`);
  }
  return server;
}

async function measureCells({ pythons, programs, runs, nearRuns, quick, debuggers, log, onCell, server }) {
  const cells = [];
  for (const python of pythons) {
    for (const program of programs) {
      for (const config of program.configs) {
        const modes = measuresNoise(config) ? [PLAIN, PLAIN_AGAIN, ...debuggers] : [PLAIN, ...debuggers];
        const size = sizeFor(program, config, quick);
        const cell = { python: python.version, program: program.name, config, size, seconds: {}, cpuSeconds: {}, hwmKb: {}, errors: {} };
        for (const mode of modes) {
          cell.seconds[mode] = [];
          cell.cpuSeconds[mode] = [];
          cell.hwmKb[mode] = [];
        }
        const rounds = cellRounds({ python: python.version, program: program.name, config, modes, runs, nearRuns });
        for (const [run, order] of rounds.entries()) {
          for (const mode of order) {
            // A mode that failed once in this cell is not tried again: the failure is the figure.
            if (cell.errors[mode]) continue;
            try {
              const report = await runOnce({ mode, python, program, config, size, server: mode === DAPPER ? server : undefined });
              cell.seconds[mode][run] = report.seconds;
              cell.cpuSeconds[mode][run] = report.cpuSeconds;
              cell.hwmKb[mode][run] = report.hwmKb;
              if (report.logLines !== undefined) {
                (cell.logLines ??= {})[mode] = report.logLines;
                (cell.lateLogLines ??= {})[mode] = report.lateLogLines;
              }
            } catch (error) {
              cell.errors[mode] = compactError(error.message);
            }
          }
        }
        cells.push(cell);
        log(describeCell(cell, debuggers));
        onCell(cells);
      }
    }
  }
  return cells;
}

async function runOnce({ mode, python, program, config, size, server }) {
  // bigdict imports a module written fresh for every run, so no cached bytecode exists.
  const generatedDir = program.generated ? mkdtempSync(path.join(os.tmpdir(), "dapper-bench-")) : undefined;
  try {
    if (generatedDir) writeFileSync(path.join(generatedDir, BIG_TABLE_MODULE), bigTableSource(size));
    const file = path.join(programsDir, program.file);
    const args = generatedDir ? [generatedDir] : [String(size)];
    if (mode === PLAIN || mode === PLAIN_AGAIN) return await runPlain({ python: python.venvPython, program: file, args, timeoutMs: RUN_TIMEOUT_MS });
    return await runDebugged({
      kind: mode,
      python: python.venvPython,
      program: file,
      args,
      breakpoints: breakpointsFor(program, config, generatedDir),
      timeoutMs: RUN_TIMEOUT_MS,
      expectLogLines: config === "logpoint" ? size : undefined,
      defaultExceptionFilters: program.defaultExceptionFilters === true,
      server,
    });
  } finally {
    if (generatedDir) rmSync(generatedDir, { recursive: true, force: true });
  }
}

/** Whether a configuration's cells also measure the noise (their targets are near 1×). */
export function measuresNoise(config) {
  return config === "none" || config === "elsewhere";
}

/**
 * The figures of a cell: median and min of the paired ratios per debugger (or PLAIN_AGAIN),
 * of the wall-clock times, or with `field` "cpuSeconds" of the process's CPU times.
 */
export function summarizeCell(cell, debugger_, field = "seconds") {
  const times = cell[field] ?? {};
  const ratios = pairedRatios(times[debugger_] ?? [], times[PLAIN] ?? []);
  return { median: median(ratios), min: minimum(ratios), count: ratios.length, error: cell.errors[debugger_] ?? (cell.errors[PLAIN] ? `plain: ${cell.errors[PLAIN]}` : undefined) };
}

function describeCell(cell, debuggers) {
  const plain = median(cell.seconds[PLAIN]);
  const rounds = cell.seconds[PLAIN].length;
  const parts = [`${cell.python} ${cell.program}/${cell.config} (n=${cell.size}, ${rounds} round${rounds === 1 ? "" : "s"}): plain ${plain === undefined ? "failed" : `${(plain * 1000).toFixed(1)} ms`}`];
  // CPU-time ratios beside the wall-clock ones, where the programs report them.
  const cpu = (mode) => {
    const summary = summarizeCell(cell, mode, "cpuSeconds");
    return summary.count > 0 ? `, CPU ${formatRatio(summary.median)}` : "";
  };
  if (cell.seconds[PLAIN_AGAIN]) {
    const noise = summarizeCell(cell, PLAIN_AGAIN);
    parts.push(`noise ${formatRatio(noise.median)}${cpu(PLAIN_AGAIN)}`);
  }
  for (const debugger_ of debuggers) {
    const summary = summarizeCell(cell, debugger_);
    parts.push(summary.error && summary.count === 0 ? `${debugger_} failed` : `${debugger_} ${formatRatio(summary.median)} (min ${formatRatio(summary.min)}${cpu(debugger_)})`);
  }
  return parts.join(", ");
}

/** The first line of an error and, for a traceback, its last line (the exception). */
export function compactError(text) {
  const lines = String(text).split("\n").map((line) => line.trim()).filter(Boolean);
  if (lines.length <= 1) return lines[0] ?? "unknown error";
  return `${lines[0]} … ${lines[lines.length - 1]}`;
}

export { DAPPER, DEBUGPY };
