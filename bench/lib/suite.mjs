// A test suite that starts Python processes (the goal: at most 1.3× plain): suite.py
// runs N children one after the other, plain and under Dapper with every child attached
// as a session of its own (started as VS Code starts one, with no breakpoint), and the
// ratio of the two run times is reported. Dapper only: debugpy's child sessions need a
// client of their own per child, and the goal is Dapper's own.
import path from "node:path";
import { adapterSpec, DAPPER, runWithChildrenAttached, startDapperServer } from "./adapters.mjs";
import { runPlain } from "./measure.mjs";
import { programsDir } from "./paths.mjs";
import { median, minimum } from "./stats.mjs";

/** The goal for a suite's run under Dapper, as a multiple of its plain run. */
export const SUITE_TARGET = 1.3;

const TIMEOUT_MS = 120_000;
const program = path.join(programsDir, "suite.py");

function seconds(output) {
  const match = /BENCH_SECONDS=([0-9.e-]+)/.exec(output);
  if (!match) throw new Error(`suite.py printed no BENCH_SECONDS: ${output.slice(-500)}`);
  return Number(match[1]);
}

async function underDapper(spec, server, children) {
  return seconds(await runWithChildrenAttached(spec, server, { program, args: [String(children)], children, timeoutMs: TIMEOUT_MS }));
}

/** Plain and Dapper runs of suite.py, interleaved; the median of each and their ratio. */
export async function measureSuite({ python, venvPython, children, runs, log }) {
  const spec = adapterSpec(DAPPER, { python: venvPython });
  const server = await startDapperServer();
  try {
    const plain = [];
    const dapper = [];
    for (let run = 0; run < runs; run++) {
      plain.push((await runPlain({ python: venvPython, program, args: [String(children)], timeoutMs: TIMEOUT_MS })).seconds);
      dapper.push(await underDapper(spec, server, children));
      log(`run ${run + 1}: plain ${(plain.at(-1) * 1000).toFixed(0)} ms, Dapper ${(dapper.at(-1) * 1000).toFixed(0)} ms`);
    }
    return { python, children, plain: median(plain), dapper: median(dapper), plainMin: minimum(plain), dapperMin: minimum(dapper), ratio: median(dapper) / median(plain), runs };
  } finally {
    server.stop();
  }
}

/** The section of RESULTS.md; empty when the part did not run. */
export function renderSuite(result) {
  if (result === undefined) return "";
  const lines = ["", "## A test suite that starts Python processes", ""];
  if (result.error) return [...lines, `_Failed: ${result.error}_`, ""].join("\n");
  const ms = (s) => `${(s * 1000).toFixed(0)} ms`;
  lines.push(
    `programs/suite.py starts ${result.children} Python children one after the other (each a little work and its answer), timed by the program itself; under Dapper every child is attached as a session of its own, started as VS Code starts one (bench/lib/suite.mjs). Python ${result.python}, medians of ${result.runs} interleaved runs.`,
    "",
    "| plain | Dapper | Dapper ÷ plain | target | met? |",
    "|---|---|---|---|---|",
    `| ${ms(result.plain)} (min ${ms(result.plainMin)}) | ${ms(result.dapper)} (min ${ms(result.dapperMin)}) | ${result.ratio.toFixed(2)}× | ≤ ${SUITE_TARGET}× | ${result.ratio <= SUITE_TARGET ? "✓" : "✗"} |`,
    "",
  );
  return lines.join("\n");
}
