// What a child's session adds to its start, in instructions: the same parent as the
// child-start part (programs/child_start.py), its children run under valgrind's
// callgrind, which counts the instructions a process executes. Wall and CPU time on this
// machine move by ±6–9 ms between two identical plain runs, more than most changes to a
// start are worth; a plain child's count does not move, a debugged one's by about 1% (the
// session's threads meet at other points from run to run), so two builds can be told
// apart by one run each.
//
// The interpreter the parent is given is a wrapper script that runs the real one under
// callgrind with --trace-children, so every process it starts is counted too, in a file
// of its own: plain, the parent's children; under Dapper (a real adapter server and a real
// client, every child attached, as the child-start part runs it), the launcher's children
// and the engine's probes of the interpreter, which are told apart by their command lines.
// Hash randomisation is off (PYTHONHASHSEED=0) so that the same build counts the same.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { adapterSpec, DAPPER, runWithChildrenAttached, startDapperServer } from "./adapters.mjs";
import { programsDir } from "./paths.mjs";
import { medianAndRange } from "./stats.mjs";

const CHILDREN = 5;
// The C function of the child's first line (programs/child_start.py's children call
// time.process_time() there, which nothing before it does): callgrind writes what was
// counted until it is entered to a file of its own (cg.PID.1), and the rest at the exit.
const FIRST_LINE_FUNCTION = "time_process_time";
const TIMEOUT_MS = 300_000;
const program = path.join(programsDir, "child_start.py");
export const INSTRUCTION_KINDS = ["code", "script"];

/** Whether valgrind can run here (it is a Linux tool; CI machines have it installed). */
export function haveValgrind() {
  if (process.platform !== "linux") return false;
  const probe = spawnSync("valgrind", ["--version"], { encoding: "utf8" });
  return probe.status === 0;
}

/**
 * One callgrind output file's process: its command line and the instructions it ran
 * (the `summary:` line; `totals:` where there is no summary).
 */
export function parseCallgrindFile(text) {
  const command = /^cmd:\s*(.*)$/m.exec(text)?.[1];
  const total = /^summary:\s*(\d+)/m.exec(text)?.[1] ?? /^totals:\s*(\d+)/m.exec(text)?.[1];
  if (command === undefined || total === undefined) return undefined;
  return { command, instructions: Number(total) };
}

/**
 * Which child of child_start.py a process is, from its command line: "plain" (a child
 * the parent started itself), "dapper" (a child under the launcher: it has a session id
 * and runs the child's code or script) or undefined (the parent, the engine's probes).
 */
export function classifyChild(command) {
  const isChildTarget = command.includes("child_start_script.py") || command.includes("import time; print(time.time(), time.process_time())");
  if (!isChildTarget || command.includes("child_start.py ")) return undefined;
  return command.includes("--session-id") ? "dapper" : "plain";
}

function plainEnvironment() {
  const env = { ...process.env, PYTHONHASHSEED: "0" };
  delete env.PYTHONDONTWRITEBYTECODE;
  return env;
}

/** A script that runs `python` under callgrind, every process it starts included. */
function writeWrapper(directory, python) {
  const wrapper = path.join(directory, "python");
  const quote = (text) => `'${text.replaceAll("'", `'\\''`)}'`;
  writeFileSync(
    wrapper,
    `#!/bin/sh\nexec valgrind --tool=callgrind --trace-children=yes --dump-before=${FIRST_LINE_FUNCTION} --callgrind-out-file=${quote(path.join(directory, "out"))}/cg.%p ${quote(python)} "$@"\n`,
    { mode: 0o755 },
  );
  return wrapper;
}

/**
 * The children's counts in callgrind's output files ({name, text}), by kind of child: to
 * the first line (the file written as it was reached) and the whole process (every part).
 */
export function countsIn(files) {
  const byProcess = new Map();
  for (const { name, text } of files) {
    const match = /^cg\.(\d+)(?:\.(\d+))?$/.exec(name);
    const parsed = match && parseCallgrindFile(text);
    if (!parsed) continue;
    const entry = byProcess.get(match[1]) ?? { command: parsed.command, parts: [] };
    entry.parts.push({ part: match[2] === undefined ? Infinity : Number(match[2]), instructions: parsed.instructions });
    byProcess.set(match[1], entry);
  }
  const counts = { plain: [], dapper: [] };
  for (const { command, parts } of byProcess.values()) {
    const kind = classifyChild(command);
    const firstLine = parts.find((part) => part.part === 1);
    if (!kind || !firstLine) continue;
    counts[kind].push({ firstLine: firstLine.instructions, whole: parts.reduce((sum, part) => sum + part.instructions, 0) });
  }
  return counts;
}

function readOutputs(directory) {
  return readdirSync(directory).map((name) => ({ name, text: readFileSync(path.join(directory, name), "utf8") }));
}

function runPlain(wrapper, kind, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(wrapper, [program, String(CHILDREN), kind], { stdio: ["ignore", "ignore", "pipe"], env });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`plain child_start.py under valgrind exited with ${code}: ${stderr.trim().split("\n").slice(-3).join(" ")}`));
      else resolve();
    });
  });
}

/** Plain and Dapper children of child_start.py on one Python, counted by callgrind. */
export async function measureChildInstructions({ python, venvPython, log }) {
  const directory = mkdtempSync(path.join(os.tmpdir(), "dapper-callgrind-"));
  const server = await startDapperServer();
  try {
    const rows = [];
    // A first session, not counted, leaves the start bundle current for this Python.
    await runWithChildrenAttached(adapterSpec(DAPPER, { python: venvPython }), server, { program, args: ["1", "code"], children: 1, dapperEvents: true, launchExtra: { env: { PYTHONDONTWRITEBYTECODE: null } }, timeoutMs: TIMEOUT_MS });
    for (const kind of INSTRUCTION_KINDS) {
      const plainDirectory = mkdtempSync(path.join(directory, `plain-${kind}-`));
      const dapperDirectory = mkdtempSync(path.join(directory, `dapper-${kind}-`));
      for (const target of [plainDirectory, dapperDirectory]) mkdirSync(path.join(target, "out"));
      await runPlain(writeWrapper(plainDirectory, venvPython), kind, plainEnvironment());
      const wrapper = writeWrapper(dapperDirectory, venvPython);
      await runWithChildrenAttached(adapterSpec(DAPPER, { python: wrapper }), server, {
        program,
        args: [String(CHILDREN), kind],
        children: CHILDREN,
        launchExtra: { env: { PYTHONDONTWRITEBYTECODE: null, PYTHONHASHSEED: "0" } },
        timeoutMs: TIMEOUT_MS,
      });
      const plain = countsIn(readOutputs(path.join(plainDirectory, "out"))).plain;
      const dapper = countsIn(readOutputs(path.join(dapperDirectory, "out"))).dapper;
      if (plain.length !== CHILDREN || dapper.length !== CHILDREN) {
        throw new Error(`callgrind counted ${plain.length} plain and ${dapper.length} Dapper children of ${kind}, not ${CHILDREN} each`);
      }
      const of = (counts, figure) => medianAndRange(counts.map((count) => count[figure]));
      rows.push({ kind, plain: of(plain, "firstLine"), dapper: of(dapper, "firstLine"), plainWhole: of(plain, "whole"), dapperWhole: of(dapper, "whole") });
      log?.(`${kind}: to the first line, plain ${millions(rows.at(-1).plain.median)}, Dapper ${millions(rows.at(-1).dapper.median)} instructions a child`);
    }
    return { python, children: CHILDREN, rows };
  } finally {
    server.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

const millions = (count) => `${(count / 1e6).toFixed(2)} M`;

export function describeChildInstructions(result) {
  if (result.error) return `failed: ${result.error}`;
  return result.rows.map((row) => `${row.kind}: a session adds ${millions(row.dapper.median - row.plain.median)} instructions to a child's first line (plain ${millions(row.plain.median)}), ${millions(row.dapperWhole.median - row.plainWhole.median)} to the whole child`).join("; ");
}

/** The section of RESULTS.md; empty when the part did not run. */
export function renderChildInstructions(results) {
  if (results.length === 0) return "";
  const lines = [
    "",
    "## A child's start, in instructions",
    "",
    `The children of *A child's start* counted by valgrind's callgrind (bench/lib/childinstructions.mjs): ${CHILDREN} children of each kind, plain and under Dapper (an adapter server, every child attached, no breakpoint), hash randomisation off; each child from its \`exec\` to its first line (callgrind writes its count when the line's \`time.process_time()\` is entered), and to its exit. A plain child counts the same each time; a debugged one moves by about 1% between identical runs (its threads, and the messages of its session's client that come before it ends or after), far less than its time does: the figure to tell two builds apart by. Instructions are not time (a cache miss costs more than an addition), and a child's time also holds its waits: the time above is what the goal is judged on.`,
    "",
    "| Python | child | to the first line: plain (median, range) | Dapper (median, range) | added | Dapper ÷ plain | added to the whole child |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const result of results) {
    if (result.error) {
      lines.push(`| ${result.python} | — | _failed: ${result.error}_ | | | | |`);
      continue;
    }
    for (const row of result.rows) {
      const range = (figure) => `${millions(figure.median)} (${millions(figure.low)} … ${millions(figure.high)})`;
      lines.push(
        `| ${result.python} | ${row.kind === "code" ? "`python -c`" : "script"} | ${range(row.plain)} | ${range(row.dapper)} | +${millions(row.dapper.median - row.plain.median)} | ${(row.dapper.median / row.plain.median).toFixed(2)}× | +${millions(row.dapperWhole.median - row.plainWhole.median)} |`,
      );
    }
  }
  lines.push("");
  return lines.join("\n");
}
