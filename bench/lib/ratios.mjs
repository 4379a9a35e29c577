// The table of ratios: every program in every configuration on every Python, plain and
// under each debugger, the runs of one cell interleaved (plain, Dapper, debugpy, in an
// order that rotates from run to run) so that a slow minute of the machine hits all three.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DAPPER, DEBUGPY } from "./adapters.mjs";
import { PLAIN, PLAIN_AGAIN, runDebugged, runPlain } from "./measure.mjs";
import { programsDir } from "./paths.mjs";
import { BIG_TABLE_MODULE, bigTableSource, breakpointsFor, formatRatio, sizeFor } from "./programs.mjs";
import { median, minimum, pairedRatios } from "./stats.mjs";

/** A run that takes longer than this is a failure of that run, not a hang of the benchmark. */
const RUN_TIMEOUT_MS = 180_000;

/** The order of the modes in run `index`: a rotation, so none is always first or last. */
export function modeOrder(modes, index) {
  const shift = index % modes.length;
  return [...modes.slice(shift), ...modes.slice(0, shift)];
}

/**
 * @param pythons [{version, venvPython}]
 * @param programs entries of PROGRAMS to run
 * @param onCell called with the cells so far after each one (the run saves its results)
 * @returns cells: [{python, program, config, size, seconds: {plain, dapper, debugpy}, hwmKb, errors}]
 */
export async function measureRatios({ pythons, programs, runs, quick, debuggers, log, onCell = () => undefined }) {
  const cells = [];
  for (const python of pythons) {
    for (const program of programs) {
      for (const config of program.configs) {
        const modes = measuresNoise(config) ? [PLAIN, PLAIN_AGAIN, ...debuggers] : [PLAIN, ...debuggers];
        const size = sizeFor(program, config, quick);
        const cell = { python: python.version, program: program.name, config, size, seconds: {}, hwmKb: {}, errors: {} };
        for (const mode of modes) {
          cell.seconds[mode] = [];
          cell.hwmKb[mode] = [];
        }
        for (let run = 0; run < runs; run++) {
          for (const mode of modeOrder(modes, run)) {
            // A mode that failed once in this cell is not tried again: the failure is the figure.
            if (cell.errors[mode]) continue;
            try {
              const report = await runOnce({ mode, python, program, config, size });
              cell.seconds[mode][run] = report.seconds;
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

async function runOnce({ mode, python, program, config, size }) {
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
    });
  } finally {
    if (generatedDir) rmSync(generatedDir, { recursive: true, force: true });
  }
}

/** Whether a configuration's cells also measure the noise (their targets are near 1×). */
export function measuresNoise(config) {
  return config === "none" || config === "elsewhere";
}

/** The figures of a cell: median and min of the paired ratios per debugger (or PLAIN_AGAIN). */
export function summarizeCell(cell, debugger_) {
  const ratios = pairedRatios(cell.seconds[debugger_] ?? [], cell.seconds[PLAIN] ?? []);
  return { median: median(ratios), min: minimum(ratios), count: ratios.length, error: cell.errors[debugger_] ?? (cell.errors[PLAIN] ? `plain: ${cell.errors[PLAIN]}` : undefined) };
}

function describeCell(cell, debuggers) {
  const plain = median(cell.seconds[PLAIN]);
  const parts = [`${cell.python} ${cell.program}/${cell.config} (n=${cell.size}): plain ${plain === undefined ? "failed" : `${(plain * 1000).toFixed(1)} ms`}`];
  if (cell.seconds[PLAIN_AGAIN]) {
    const noise = summarizeCell(cell, PLAIN_AGAIN);
    parts.push(`noise ${formatRatio(noise.median)}`);
  }
  for (const debugger_ of debuggers) {
    const summary = summarizeCell(cell, debugger_);
    parts.push(summary.error && summary.count === 0 ? `${debugger_} failed` : `${debugger_} ${formatRatio(summary.median)} (min ${formatRatio(summary.min)})`);
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
