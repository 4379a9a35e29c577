// What a child process's session adds to its start (the goal: at most 15 ms): a parent
// (programs/child_start.py) starts ten Python children one after the other, each of
// which prints its clock on its first line, and reports for each child when its first
// line ran (wall clock from the moment before the spawn; the child's own CPU time there,
// which counts the interpreter's start and the debugger's) and when the parent's wait
// for it returned. The parent runs plain and under Dapper with every child attached as a
// session of its own, as VS Code attaches them (through an adapter server, no
// breakpoint); `python -c` children and script children are measured apart.
//
// A round runs the parent plain, under Dapper and plain again; each figure is a median
// over rounds of the round's medians over its children. "Added" is a round's Dapper
// figure less its first plain one; the two plain runs of a round show the machine's own
// spread. The engine's CPU time per child (the adapter server's, from /proc, Linux only)
// is shown beside: on a 2-core machine it is taken from the children's time.
// Bytecode is written and read as a user's programs do (PYTHONDONTWRITEBYTECODE, which
// this machine's shells set, is taken out of every run's environment).
import path from "node:path";
import { spawn } from "node:child_process";
import { adapterSpec, DAPPER, runWithChildrenAttached, startDapperServer } from "./adapters.mjs";
import { programsDir } from "./paths.mjs";
import { processCpu } from "./procstat.mjs";
import { formatMs, median, medianAndRange } from "./stats.mjs";

/** The goal: what a child's session adds to its first line, in wall time. */
export const CHILD_START_TARGET_MS = 15;
export const CHILD_KINDS = ["code", "script"];
const CHILDREN = 10;
const TIMEOUT_MS = 120_000;
const program = path.join(programsDir, "child_start.py");
const FIGURES = ["firstLine", "firstLineCpu", "whole"];

/** The parent's report: one [first line wall, first line CPU, whole] (ms) per child. */
export function parseChildren(output) {
  const match = /BENCH_CHILDREN=(\[.*\])/.exec(output);
  if (!match) throw new Error(`child_start.py printed no BENCH_CHILDREN: ${output.slice(-500)}`);
  const children = JSON.parse(match[1]);
  if (!Array.isArray(children) || children.length === 0) throw new Error("child_start.py reported no child");
  return children;
}

/** The medians over one run's children, by figure. */
export function runFigures(children) {
  return Object.fromEntries(FIGURES.map((name, index) => [name, median(children.map((child) => child[index]))]));
}

function userEnvironment() {
  const env = { ...process.env };
  delete env.PYTHONDONTWRITEBYTECODE;
  return env;
}

function runPlain(python, kind) {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [program, String(CHILDREN), kind], { stdio: ["ignore", "pipe", "pipe"], env: userEnvironment() });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`plain child_start.py exited with ${code}: ${stderr.trim()}`));
      try {
        resolve(parseChildren(stdout));
      } catch (error) {
        reject(error);
      }
    });
  });
}

async function runDapper(spec, server, kind) {
  return parseChildren(
    await runWithChildrenAttached(spec, server, { program, args: [String(CHILDREN), kind], children: CHILDREN, dapperEvents: true, launchExtra: { env: { PYTHONDONTWRITEBYTECODE: null } }, timeoutMs: TIMEOUT_MS }),
  );
}

/** Plain and Dapper runs of child_start.py on one Python, both kinds of child. */
export async function measureChildStart({ python, venvPython, rounds, log }) {
  const spec = adapterSpec(DAPPER, { python: venvPython });
  const server = await startDapperServer();
  try {
    // A first session warms the engine (its WebAssembly, the package's bytecode, the
    // start bundle), as every session after the first finds them in use.
    await runDapper(spec, server, "code");
    const rows = [];
    for (const kind of CHILD_KINDS) {
      const perRound = [];
      for (let round = 0; round < rounds; round++) {
        const plain = runFigures(await runPlain(venvPython, kind));
        const before = processCpu(server.pid);
        const dapper = runFigures(await runDapper(spec, server, kind));
        const after = processCpu(server.pid);
        const plainAgain = runFigures(await runPlain(venvPython, kind));
        perRound.push({ plain, dapper, plainAgain, engineMs: before === undefined || after === undefined ? undefined : ((after - before) * 1000) / CHILDREN });
        log?.(`${kind} round ${round + 1}: first line plain ${plain.firstLine.toFixed(1)} ms, Dapper ${dapper.firstLine.toFixed(1)} ms`);
      }
      const of = (pick) => Object.fromEntries(FIGURES.map((name) => [name, medianAndRange(perRound.map((round) => pick(round, name)))]));
      rows.push({
        kind,
        plain: of((round, name) => round.plain[name]),
        added: of((round, name) => round.dapper[name] - round.plain[name]),
        spread: of((round, name) => round.plainAgain[name] - round.plain[name]),
        engineMs: medianAndRange(perRound.map((round) => round.engineMs)),
      });
    }
    return { python, rounds, children: CHILDREN, rows };
  } finally {
    server.stop();
  }
}

export function describeChildStart(result) {
  if (result.error) return `failed: ${result.error}`;
  return result.rows.map((row) => `${row.kind}: a session adds ${formatMs(row.added.firstLine.median)} to the first line (CPU ${formatMs(row.added.firstLineCpu.median)}), ${formatMs(row.added.whole.median)} to the whole child`).join("; ");
}

const signed = (ms) => (ms === undefined || !Number.isFinite(ms) ? "—" : `${ms < 0 ? "−" : "+"}${formatMs(Math.abs(ms))}`);
const spread = (figure) => `${signed(figure.median)} (${signed(figure.low)} … ${signed(figure.high)})`;

/** The section of RESULTS.md; empty when the part did not run. */
export function renderChildStart(results) {
  if (results.length === 0) return "";
  const lines = [
    "",
    "## A child's start",
    "",
    `What a child process's session adds to its start (bench/lib/childstart.mjs): programs/child_start.py starts ${CHILDREN} children one after the other, plain and under Dapper with every child attached as a session of its own (an adapter server, as VS Code attaches them; no breakpoint), and each child prints its clock on its first line. First line: the spawn to the child's first line (wall) / the child's CPU time there (the interpreter's start included); whole: the spawn to the parent's wait returning. A round runs plain, Dapper, plain again; each figure is the median over rounds of the round's medians over its children, "added" a round's Dapper figure less its plain one, and plain−plain the second plain run less the first (median, and range over the rounds): the machine's own spread. Engine CPU: the adapter server's CPU time per child session (its client's connection, the child's, their requests), which this 2-core machine takes from the children. Target: a session adds ≤ ${CHILD_START_TARGET_MS} ms to the first line.`,
    "",
    "| Python | child | rounds | plain first line (wall / CPU) | added to the first line (wall / CPU) | added to the whole child | plain−plain, first line | engine CPU per child | target | met? |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const result of results) {
    if (result.error) {
      lines.push(`| ${result.python} | — | — | _failed: ${result.error}_ | | | | | | |`);
      continue;
    }
    for (const row of result.rows) {
      const added = row.added.firstLine.median;
      lines.push(
        `| ${result.python} | ${row.kind === "code" ? "`python -c`" : "script"} | ${result.rounds} | ${formatMs(row.plain.firstLine.median)} / ${formatMs(row.plain.firstLineCpu.median)} | ${signed(added)} / ${signed(row.added.firstLineCpu.median)} | ${signed(row.added.whole.median)} | ${spread(row.spread.firstLine)} | ${formatMs(row.engineMs.median)} | ≤ ${CHILD_START_TARGET_MS} ms | ${added <= CHILD_START_TARGET_MS ? "✓" : "✗"} |`,
      );
    }
  }
  lines.push("");
  return lines.join("\n");
}
