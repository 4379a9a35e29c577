// A test suite that starts Python processes (the goal: at most 1.3× plain): suite.py
// runs N children one after the other, plain and under Dapper with every child attached
// as a session of its own (started as VS Code starts one, with no breakpoint). Dapper
// only: debugpy's child sessions need a client of their own per child, and the goal is
// Dapper's own.
//
// Rounds are paired and interleaved: each round runs plain, Dapper and plain again, in an
// order that rotates; a ratio is the median over rounds of the ratio of two runs of the
// same round, and plain÷plain (the second plain run to the first) is the machine's own
// spread at that moment. Wall time is the program's own (its loop of children); CPU time
// is its process's and its children's over the same loop. The engine's CPU time (the
// adapter server, read from /proc around each run) is reported beside it, per child: it
// runs on the other core, and is not the program's.
import path from "node:path";
import { adapterSpec, countDebuggedChildren, DAPPER, runWithChildrenAttached, startDapperServer } from "./adapters.mjs";
import { parseReport, PLAIN, PLAIN_AGAIN, runPlain } from "./measure.mjs";
import { programsDir } from "./paths.mjs";
import { processCpu } from "./procstat.mjs";
import { modeOrder } from "./ratios.mjs";
import { formatMs, median, medianAndRange } from "./stats.mjs";

/** The goal for a suite's run under Dapper, as a multiple of its plain run. */
export const SUITE_TARGET = 1.3;

const TIMEOUT_MS = 120_000;
const program = path.join(programsDir, "suite.py");

/** One run's figures: wall and CPU seconds (the program's and its children's). */
function figures(report) {
  const { seconds, cpuSeconds, childrenCpuSeconds } = report;
  if (cpuSeconds === undefined || childrenCpuSeconds === undefined) throw new Error("suite.py printed no CPU times");
  return { wall: seconds, cpu: cpuSeconds + childrenCpuSeconds };
}

async function underDapper(spec, server, children) {
  const before = processCpu(server.pid);
  const text = await runWithChildrenAttached(spec, server, { program, args: [String(children)], children, timeoutMs: TIMEOUT_MS });
  const after = processCpu(server.pid);
  return { ...figures(parseReport(text)), engineCpu: before === undefined || after === undefined ? undefined : after - before };
}

/** Each mode's run of one round, in the round's order. */
async function round({ spec, server, venvPython, children, index }) {
  const runs = {};
  for (const mode of modeOrder([PLAIN, DAPPER, PLAIN_AGAIN], index)) {
    runs[mode] =
      mode === DAPPER
        ? await underDapper(spec, server, children)
        : figures(await runPlain({ python: venvPython, program, args: [String(children)], timeoutMs: TIMEOUT_MS }));
  }
  return runs;
}

/** The figures of the part from its rounds ([{plain, dapper, plainAgain}]). */
export function summarizeSuite(rounds, children) {
  const ratios = (mode, field) => medianAndRange(rounds.map((r) => r[mode][field] / r[PLAIN][field]));
  return {
    rounds: rounds.length,
    children,
    plain: { wall: median(rounds.map((r) => r[PLAIN].wall)), cpu: median(rounds.map((r) => r[PLAIN].cpu)) },
    dapper: { wall: median(rounds.map((r) => r[DAPPER].wall)), cpu: median(rounds.map((r) => r[DAPPER].cpu)) },
    ratio: { wall: ratios(DAPPER, "wall"), cpu: ratios(DAPPER, "cpu") },
    spread: { wall: ratios(PLAIN_AGAIN, "wall"), cpu: ratios(PLAIN_AGAIN, "cpu") },
    // Per child, in seconds.
    addedPerChild: { wall: median(rounds.map((r) => (r[DAPPER].wall - r[PLAIN].wall) / children)), cpu: median(rounds.map((r) => (r[DAPPER].cpu - r[PLAIN].cpu) / children)) },
    engineCpuPerChild: median(rounds.map((r) => r[DAPPER].engineCpu / children)),
  };
}

/** Plain and Dapper runs of suite.py in paired, interleaved rounds. */
export async function measureSuite({ python, venvPython, children, rounds, log }) {
  const spec = adapterSpec(DAPPER, { python: venvPython });
  const server = await startDapperServer();
  try {
    // A first session warms the engine (its WebAssembly, the start bundle), as every
    // session after the first finds them in use, and shows it how the client gives
    // children their breakpoints, as the runs before show an editor's engine.
    const warmUp = { program, args: ["2"], children: 2, timeoutMs: TIMEOUT_MS };
    await underDapper(spec, server, warmUp.children);
    // Once, through a server that logs it, after the same first run: every child was
    // debugged, with a session or ended before it needed one.
    const debugged = await countDebuggedChildren(spec, { program, args: [String(children)], children, timeoutMs: TIMEOUT_MS }, warmUp);
    if (debugged.quiet + debugged.withSession !== children) throw new Error(`${debugged.quiet + debugged.withSession} of the ${children} children were debugged`);
    log(`children debugged: ${debugged.withSession} with a session, ${debugged.quiet} ended before they needed one`);
    const measured = [];
    for (let index = 0; index < rounds; index++) {
      const runs = await round({ spec, server, venvPython, children, index });
      measured.push(runs);
      log(`round ${index + 1}: plain ${formatMs(runs[PLAIN].wall * 1000)}, Dapper ${formatMs(runs[DAPPER].wall * 1000)}, plain again ${formatMs(runs[PLAIN_AGAIN].wall * 1000)}`);
    }
    return { python, debugged, ...summarizeSuite(measured, children) };
  } finally {
    server.stop();
  }
}

/** One line for the run's log. */
export function describeSuite(result) {
  if (result.error) return `failed: ${result.error}`;
  return `plain ${formatMs(result.plain.wall * 1000)}, Dapper ${formatMs(result.dapper.wall * 1000)}: ${result.ratio.wall.median.toFixed(2)}× (CPU ${result.ratio.cpu.median.toFixed(2)}×; plain÷plain ${result.spread.wall.median.toFixed(2)}×)`;
}

const times = (figure) => `${figure.median.toFixed(2)}× (${figure.low.toFixed(2)}–${figure.high.toFixed(2)})`;
const ms = (seconds) => formatMs(seconds * 1000);

/** The section of RESULTS.md; empty when the part did not run. */
export function renderSuite(result) {
  if (result === undefined) return "";
  const lines = ["", "## A test suite that starts Python processes", ""];
  if (result.error) return [...lines, `_Failed: ${result.error}_`, ""].join("\n");
  lines.push(
    `programs/suite.py starts ${result.children} Python children one after the other (each a little work and its answer), timed by the program itself; under Dapper every child is debugged, and a child that needs a session of its own gets one, started as VS Code starts one (bench/lib/suite.mjs): ${result.debugged ? `in a run through a server that logs each child, after a first run as the measured ones come after one, ${result.debugged.withSession} of the ${result.children} had a session and ${result.debugged.quiet} ended, with nothing to show, before they needed one` : "how many had a session was not counted"}. Python ${result.python}, ${result.rounds} paired, interleaved rounds (plain, Dapper, plain again, in an order that rotates). Wall / CPU time: CPU is the program's and its children's over the same loop; a ratio is the median over rounds of the ratio of two runs of the same round, with its range; plain÷plain is the second plain run of a round to its first, the machine's own spread. The engine's CPU (the adapter server's, on the other core) is per child and not in the ratios.`,
    "",
    "| plain | Dapper | Dapper ÷ plain | plain ÷ plain | added per child | engine CPU per child | target | met? |",
    "|---|---|---|---|---|---|---|---|",
    `| ${ms(result.plain.wall)} / ${ms(result.plain.cpu)} | ${ms(result.dapper.wall)} / ${ms(result.dapper.cpu)} | ${times(result.ratio.wall)} / ${times(result.ratio.cpu)} | ${times(result.spread.wall)} / ${times(result.spread.cpu)} | ${ms(result.addedPerChild.wall)} / ${ms(result.addedPerChild.cpu)} | ${ms(result.engineCpuPerChild)} | ≤ ${SUITE_TARGET}× wall | ${result.ratio.wall.median <= SUITE_TARGET ? "✓" : "✗"} |`,
    "",
  );
  return lines.join("\n");
}
