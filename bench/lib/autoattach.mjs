// Terminal auto-attach's bootstrap (extension/python/autoattach, docs/auto-attach.md):
// what it adds to every Python started in a VS Code terminal while auto-attach is on.
// `python -c pass` with a terminal's environment in smart mode (it decides not to
// attach) against the same without the bootstrap, run in turn; and a workspace script
// that decides to attach while the window is gone (its broker's port refuses). Whole
// processes, wall time, paired differences; and `-X importtime`'s figure for
// `sitecustomize`.
import { spawnSync } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { benchDir, root } from "./paths.mjs";
import { formatMs, median } from "./stats.mjs";

export const BOOTSTRAP_DIR = path.join(root, "extension", "python", "autoattach");
// A script in a folder the terminal names as the workspace: smart mode attaches it.
const WORKSPACE = path.join(benchDir, "programs");
const SCRIPT = path.join(WORKSPACE, "trivial.py");

/** A loopback port nothing listens on (the window that is gone). */
function closedPort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** The environment of a terminal without auto-attach, and of one in smart mode. */
export function environments(base, brokerPort) {
  const plain = Object.fromEntries(Object.entries(base).filter(([name]) => !name.startsWith("DAPPER_") && name !== "PYTHONPATH"));
  const terminal = {
    ...plain,
    PYTHONPATH: BOOTSTRAP_DIR,
    DAPPER_AUTO_ATTACH: "smart",
    DAPPER_AUTO_ATTACH_BROKER: `127.0.0.1:${brokerPort}`,
    DAPPER_AUTO_ATTACH_SECRET: "0".repeat(64),
    DAPPER_AUTO_ATTACH_FOLDERS: WORKSPACE,
  };
  return { plain, terminal };
}

function wallMs(python, args, env) {
  const started = performance.now();
  const result = spawnSync(python, args, { env, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`${python} ${args.join(" ")} failed (${result.status}): ${result.stderr}`);
  return elapsed;
}

/** `sitecustomize`'s cumulative import time in µs, from `-X importtime`; undefined when none is imported. */
export function sitecustomizeMicros(importtime) {
  // `site` imports it, one level below site's own line (a chained one is a level deeper).
  for (const line of importtime.split("\n")) {
    const match = /^import time:\s+\d+ \|\s+(\d+) \| {3}sitecustomize$/.exec(line.trimEnd());
    if (match) return Number(match[1]);
  }
  return undefined;
}

/** The median of paired differences a[i] - b[i]. */
function pairedDifference(a, b) {
  return median(a.map((value, index) => value - b[index]));
}

/** Measures `runs` pairs of each kind with `python`. Returns a summary, or { error }. */
export async function measureAutoAttach({ python, runs = 40 }) {
  try {
    const { plain, terminal } = environments(process.env, await closedPort());
    // The bootstrap's bytecode is written on its first start, as on a user's.
    wallMs(python, ["-c", "pass"], terminal);
    const samples = { plain: [], terminal: [], plainScript: [], goneScript: [], importPlain: [], importTerminal: [] };
    for (let i = 0; i < runs; i++) {
      // In turn, the order alternating, so that a drift of the machine's speed hits both.
      const pair = [
        () => samples.plain.push(wallMs(python, ["-c", "pass"], plain)),
        () => samples.terminal.push(wallMs(python, ["-c", "pass"], terminal)),
      ];
      for (const run of i % 2 === 0 ? pair : pair.reverse()) run();
      samples.plainScript.push(wallMs(python, [SCRIPT], plain));
      samples.goneScript.push(wallMs(python, [SCRIPT], terminal));
      for (const [env, into] of [
        [plain, samples.importPlain],
        [terminal, samples.importTerminal],
      ]) {
        const result = spawnSync(python, ["-X", "importtime", "-c", "pass"], { env, encoding: "utf8" });
        into.push(sitecustomizeMicros(result.stderr) ?? 0);
      }
    }
    return {
      runs,
      plainMs: median(samples.plain),
      terminalMs: median(samples.terminal),
      extraMs: pairedDifference(samples.terminal, samples.plain),
      goneExtraMs: pairedDifference(samples.goneScript, samples.plainScript),
      importMicros: { plain: median(samples.importPlain), terminal: median(samples.importTerminal) },
    };
  } catch (error) {
    return { error: String(error.message).trim().split("\n")[0] };
  }
}

/** One line for the console. */
export function describeAutoAttach(result) {
  if (result.error) return `failed: ${result.error}`;
  return `python -c pass: ${formatMs(result.plainMs)} plain, ${formatMs(result.terminalMs)} with the bootstrap (paired difference ${formatMs(result.extraMs)}); sitecustomize ${result.importMicros.terminal} µs (${result.importMicros.plain} µs without)`;
}

/** The section of RESULTS.md; empty when the part did not run. */
export function renderAutoAttach(version, result) {
  if (result === undefined) return "";
  const lines = ["", `## Terminal auto-attach's bootstrap (Python ${version})`, ""];
  if (result.error) return [...lines, `_Failed: ${result.error}_`, ""].join("\n");
  lines.push(
    `Whole processes, wall time, medians of ${result.runs} runs each (bench/lib/autoattach.mjs): every Python started in a VS Code terminal while \`dapper.autoAttach\` is on imports the bootstrap; in smart mode \`python -c pass\` decides not to attach.`,
    "",
    "| measure | value |",
    "|---|---|",
    `| \`python -c pass\` without the bootstrap | ${formatMs(result.plainMs)} |`,
    `| \`python -c pass\` with it (decides not to attach) | ${formatMs(result.terminalMs)} |`,
    `| paired difference, median | ${formatMs(result.extraMs)} |`,
    `| \`-X importtime\` sitecustomize, cumulative (without the bootstrap: the interpreter's own) | ${result.importMicros.terminal} µs (${result.importMicros.plain} µs) |`,
    `| a workspace script that decides to attach while VS Code is gone (refused connection), paired difference | ${formatMs(result.goneExtraMs)} |`,
    "",
  );
  return lines.join("\n");
}
