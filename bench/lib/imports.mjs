// What importing the user's code costs when its functions are compiled restartable (so that
// Restart Frame can run a reloaded function's new code): a generated 2,000-line module
// imported in fresh processes, plain from its .pyc and restartable from the debugger's
// cache (warm) and with an empty one (the first run after an edit), interleaved, then
// more modules of the same text and copies of standard-library modules, by
// extension/python/tests/bench_restartable.py, which times the imports inside the process
// (the interpreter's own start left out) and prints its medians as JSON.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { root } from "./paths.mjs";
import { formatMs } from "./stats.mjs";

const script = path.join(root, "extension", "python", "tests", "bench_restartable.py");
export const LINES = 2000;
// Warm cache: at most this ratio to a plain import, and at most this many ms added.
export const TARGET_RATIO = 1.2;
export const TARGET_ADDED_MS = 5;

/** The script's medians for one Python: {wall, cpu, callNs} per cell, and the noise. */
export async function measureImports({ python, rounds }) {
  const { stdout } = await promisify(execFile)(python, [script, "--lines", String(LINES), "--rounds", String(rounds)], { timeout: 600_000 });
  return parseImports(stdout);
}

/** The last line of the script's output (JSON: cell -> [wall s, cpu s, call s, later wall
 * s, later cpu s]; stdlib: module or "all" -> [plain cpu s, restartable cpu s, lines]). */
export function parseImports(stdout) {
  const last = stdout.trim().split("\n").pop();
  const raw = JSON.parse(last);
  const cell = (name) => ({ wall: raw[name][0] * 1000, cpu: raw[name][1] * 1000, callNs: raw[name][2] * 1e9, laterWall: raw[name][3] * 1000, laterCpu: raw[name][4] * 1000 });
  const plain = cell("plain");
  const warm = cell("restartable, warm cache");
  const cold = cell("restartable, empty cache");
  return {
    plain,
    warm,
    cold,
    noise: raw.noise,
    ratio: warm.cpu / plain.cpu,
    addedMs: warm.cpu - plain.cpu,
    laterRatio: warm.laterCpu / plain.laterCpu,
    laterAddedMs: warm.laterCpu - plain.laterCpu,
    stdlib: Object.entries(raw.stdlib).map(([name, [plainS, warmS, lines]]) => ({
      name,
      lines,
      plainMs: plainS * 1000,
      warmMs: warmS * 1000,
      ratio: warmS / plainS,
      addedMs: (warmS - plainS) * 1000,
    })),
  };
}

/** The standard-library modules imported as the user's code, all together (or undefined). */
const stdlibAll = (result) => result.stdlib.find((each) => each.name === "all");

const mark = (met) => (met ? "✓" : "✗");

export function describeImports(result) {
  if (result.error) return `failed: ${result.error}`;
  const all = stdlibAll(result);
  const stdlib = all ? `; standard-library modules as the user's ${all.ratio.toFixed(2)}×, +${formatMs(all.addedMs)}` : "";
  return `plain ${formatMs(result.plain.cpu)}, restartable (warm cache) ${formatMs(result.warm.cpu)}: ${result.ratio.toFixed(2)}×, +${formatMs(result.addedMs)}; a later module ${result.laterRatio.toFixed(2)}×, +${formatMs(result.laterAddedMs)}${stdlib} (plain÷plain ${result.noise.toFixed(2)}×)`;
}

/** The section of RESULTS.md; empty when the part did not run. */
export function renderImports(results) {
  if (results.length === 0) return "";
  const lines = [
    "",
    "## Importing the user's code restartable",
    "",
    `A generated ${LINES.toLocaleString("en")}-line module imported in a fresh process (extension/python/tests/bench_restartable.py; the import timed inside the process, medians of interleaved rounds, CPU time / wall time). Restartable: every function compiled with the handler that lets Restart Frame run its reloaded code (docs/hot-reload.md), read from the debugger's cache (warm) or compiled (empty cache: the first import after an edit). A later module: the mean of the eight modules of the same text imported next in the same process (what the first paid once, the loader's and the cache's set-up, is not paid again), in CPU time; a mean, because the garbage collector runs every 2,000 or so allocations and one module pays for a collection or for none by where it falls, the same in every round. The generated module is dense: a small function every six lines, where the restart handler is the largest share of the code. Standard library as the user's: copies of argparse, difflib, configparser and dataclasses imported last as the user's code (their own imports done first, not timed), all four together in CPU time: modules as people write them. A call: one call of a small function of the module, plain and restartable. Target: warm ≤ ${TARGET_RATIO}× plain and ≤ ${TARGET_ADDED_MS} ms added, for each.`,
    "",
    "| Python | rounds | plain | plain÷plain (noise) | restartable, warm cache | ratio | added | a later module: plain / restartable, ratio | standard library as the user's: plain / restartable, ratio | restartable, empty cache | a call, plain / restartable | met? |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const { python, rounds, result } of results) {
    if (result.error) {
      lines.push(`| ${python} | ${rounds} | _failed: ${result.error}_ | | | | | | | | | |`);
      continue;
    }
    const pair = (cell) => `${formatMs(cell.cpu)} / ${formatMs(cell.wall)}`;
    const within = (ratio, added) => ratio <= TARGET_RATIO && added <= TARGET_ADDED_MS;
    const all = stdlibAll(result);
    const stdlib = all ? `${formatMs(all.plainMs)} / ${formatMs(all.warmMs)}, ${all.ratio.toFixed(2)}×` : "—";
    const met = [
      `${mark(within(result.ratio, result.addedMs))} first`,
      `${mark(within(result.laterRatio, result.laterAddedMs))} later`,
      ...(all ? [`${mark(within(all.ratio, all.addedMs))} standard library`] : []),
    ].join(", ");
    lines.push(
      `| ${python} | ${rounds} | ${pair(result.plain)} | ${result.noise.toFixed(2)}× | ${pair(result.warm)} | ${result.ratio.toFixed(2)}× | ${formatMs(result.addedMs)} | ${formatMs(result.plain.laterCpu)} / ${formatMs(result.warm.laterCpu)}, ${result.laterRatio.toFixed(2)}× | ${stdlib} | ${pair(result.cold)} | ${result.plain.callNs.toFixed(0)} ns / ${result.warm.callNs.toFixed(0)} ns | ${met} |`,
    );
  }
  lines.push("");
  return lines.join("\n");
}
