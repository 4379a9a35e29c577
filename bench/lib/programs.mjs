// The benchmark programs, the configurations they run in, their sizes and the issue's
// targets. Pure data and pure functions, so that the tests can check them.
import { readFileSync } from "node:fs";
import path from "node:path";
import { programsDir } from "./paths.mjs";

export const CONFIGS = {
  none: "no breakpoints",
  elsewhere: "breakpoint in another file, never hit",
  conditional: "conditional breakpoint in the hot function, always false",
  logpoint: "logpoint hit on every call",
};

/**
 * Sizes: `full` is what the default run uses for the configurations that cost little
 * (plain python takes about 0.1 s), `hot` for the ones where debugpy is 100-800× slower
 * (so that the whole run stays near 15 minutes on 2 cores), `quick` for smoke tests. The
 * ratio always compares the same size. bigdict's `hot` size is small because debugpy
 * took ~80× plain on that import once a breakpoint was in the generated file (measured
 * at 5,000 entries), which at 50,000 entries would take minutes a run.
 */
export const PROGRAMS = [
  {
    name: "fib",
    file: "fib.py",
    description: "recursive fib(n)",
    configs: ["none", "elsewhere", "conditional"],
    condition: "n == -1",
    sizes: { full: 30, hot: 22, quick: 18 },
  },
  {
    name: "loop",
    file: "loop.py",
    description: "tight loop over a dict and a list (rounds of 500 + 500)",
    configs: ["none", "elsewhere", "conditional"],
    condition: "key < 0",
    sizes: { full: 1500, hot: 100, quick: 20 },
  },
  {
    name: "calls",
    file: "calls.py",
    hotFile: "calls_helpers.py",
    description: "small calls across two modules",
    configs: ["none", "elsewhere", "conditional"],
    condition: "a is None",
    sizes: { full: 300000, hot: 15000, quick: 5000 },
  },
  {
    name: "threads",
    file: "threads.py",
    description: "4 threads, each a loop",
    configs: ["none", "elsewhere", "conditional"],
    condition: "i < 0",
    sizes: { full: 400000, hot: 25000, quick: 5000 },
  },
  {
    name: "profiled",
    file: "profiled.py",
    hotFile: "fib.py",
    description: "recursive fib(n) under cProfile, which the program runs itself",
    configs: ["none", "elsewhere", "conditional"],
    condition: "n == -1",
    sizes: { full: 30, hot: 22, quick: 18 },
  },
  {
    name: "deepcopy",
    file: "deepcopy.py",
    description: "copy.deepcopy of nested records (an audited id() per object)",
    configs: ["none", "elsewhere"],
    sizes: { full: 40, hot: 40, quick: 5 },
  },
  {
    name: "exceptions",
    file: "exceptions.py",
    description: "exceptions raised and caught in a loop (a lookup, a parse, 5 frames unwound)",
    configs: ["none", "elsewhere"],
    // The exception filters VS Code sends by default (the adapter's own defaults): what
    // a session pays for them on every raise is the point of this program.
    defaultExceptionFilters: true,
    sizes: { full: 25000, hot: 25000, quick: 2000 },
  },
  {
    name: "bigdict",
    file: "bigdict.py",
    // The hot "function" is the generated module's body; its breakpoint goes on the line
    // after the literal, which runs once.
    generated: true,
    description: "import of a module with an N-entry dict literal",
    configs: ["none", "elsewhere", "conditional"],
    condition: "len(TABLE) < 0",
    sizes: { full: 50000, hot: 2000, quick: 2000 },
  },
  {
    name: "logpoint",
    file: "logpoint.py",
    description: "a function called N times, a logpoint in it",
    configs: ["logpoint"],
    logMessage: "i={i}",
    sizes: { full: 10000, hot: 10000, quick: 1000 },
  },
];

export function sizeFor(program, config, quick) {
  if (quick) return program.sizes.quick;
  return config === "none" || config === "elsewhere" ? program.sizes.full : program.sizes.hot;
}

/** The 1-based line of `# BENCH:<name>` in a file. */
export function markerLine(file, name) {
  const lines = readFileSync(file, "utf8").split("\n");
  const index = lines.findIndex((line) => line.includes(`# BENCH:${name}`));
  if (index < 0) throw new Error(`no marker BENCH:${name} in ${file}`);
  return index + 1;
}

/** Source of the module bigdict.py imports: an N-entry dict literal, then a line that runs once. */
export function bigTableSource(entries) {
  const lines = ["TABLE = {"];
  for (let i = 0; i < entries; i++) lines.push(`    "key${String(i).padStart(6, "0")}": (${i}, "value ${i}", ${i * 0.5}),`);
  lines.push("}");
  lines.push("SIZE = len(TABLE)  # BENCH:hot");
  return lines.join("\n") + "\n";
}

export const BIG_TABLE_MODULE = "bench_big_table.py";

/**
 * The breakpoints of a configuration. `generatedDir` is where bigdict's module was
 * written for this run.
 */
export function breakpointsFor(program, config, generatedDir) {
  if (config === "none") return [];
  if (config === "elsewhere") {
    const file = path.join(programsDir, "benchkit.py");
    return [{ path: file, line: markerLine(file, "elsewhere") }];
  }
  const hotFile = program.generated ? path.join(generatedDir, BIG_TABLE_MODULE) : path.join(programsDir, program.hotFile ?? program.file);
  const line = markerLine(hotFile, "hot");
  if (config === "conditional") return [{ path: hotFile, line, condition: program.condition }];
  if (config === "logpoint") return [{ path: hotFile, line, logMessage: program.logMessage }];
  throw new Error(`unknown configuration ${config}`);
}

/**
 * The target for one cell, as {limit, text} where the Dapper median ratio must be
 * at most `limit`; null when the issue sets none. `debugpyMedian` is needed for the
 * conditional configuration, whose target is a tenth of debugpy's ratio.
 */
export function targetFor({ python, program, config, debugpyMedian }) {
  const minor = Number(python.split(".")[1]);
  if (config === "conditional") {
    if (debugpyMedian === undefined || !Number.isFinite(debugpyMedian)) return { limit: undefined, text: "≤ debugpy÷10 (no debugpy figure)" };
    return { limit: debugpyMedian / 10, text: `≤ ${formatRatio(debugpyMedian / 10)} (debugpy÷10)` };
  }
  if (config === "none" || config === "elsewhere") {
    // Code that raises and catches many exceptions: at most 5% on every version.
    if (program === "exceptions" && minor >= 11) return { limit: 1.05, text: "≤ 1.05×" };
    if (minor >= 12) return program === "bigdict" ? { limit: 1.1, text: "≤ 1.1×" } : { limit: 1.03, text: "≤ 1.03×" };
    if (minor === 11) return { limit: 1.3, text: "≤ 1.3×" };
  }
  return null;
}

/**
 * Whether a cell's target is within 5% of 1× (3.12+ with no breakpoint hit, bigdict
 * aside): its figures are of the size of the machine's noise, so it gets more rounds.
 */
export function targetNearOne({ python, program, config }) {
  const target = targetFor({ python, program, config });
  return target !== null && target.limit !== undefined && target.limit <= 1.05;
}

export function formatRatio(ratio) {
  if (ratio === undefined || !Number.isFinite(ratio)) return "—";
  if (ratio >= 100) return `${ratio.toFixed(0)}×`;
  if (ratio >= 10) return `${ratio.toFixed(1)}×`;
  return `${ratio.toFixed(2)}×`;
}
