// Real work: CPython's own regression-test modules run as `python -m test <module>`,
// plain, under Dapper and under debugpy, each as a whole run. The same program runs in
// the three modes, programs/realwork.py: it runs the test module in its own process and
// prints its wall time and the CPU time of its whole process tree (itself from its start,
// every child it waited for, theirs too). Under the debuggers:
// - both adapters run as DAP servers (Dapper: `dist/adapter.js --port 0`, one for the
//   whole part and warmed by its first session, as VS Code hosts one engine; debugpy:
//   `python -m debugpy.adapter --port N`, one per run, since it serves one session);
// - justMyCode is off, and a conditional breakpoint whose condition never holds sits on
//   the first line of each of PLANTED, standard-library functions these modules go
//   through; the same breakpoints are set in every child session, as VS Code sends them
//   (every file's setBreakpoints at once);
// - every child process is attached: both debuggers ask for a session per child with
//   `startDebugging` (Dapper's subprocessAutoAttach, debugpy's subProcess), which is
//   started as VS Code starts one (Dapper: a new connection to the same engine; debugpy:
//   one to the port its configuration names);
// - no exception filter is set, so nothing should stop; a stop is continued and counted.
// The wall time of a whole run is taken from outside: plain, the spawn to the exit of
// `python realwork.py <module>`; debugged, the `initialize` request to the last
// `terminated` event of the session and its children. The adapters' own CPU time (read
// from /proc around the run) is reported beside the debuggee's.
// Rounds are paired and interleaved: each round runs plain, Dapper, debugpy and a second
// plain run, in an order that rotates; ratios are medians over rounds of the ratio of
// two runs of the same round, and plain÷plain (the second plain run to the first) is the
// machine's own spread at that moment.
import { spawn, execFileSync } from "node:child_process";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { adapterSpec, connectWithRetry, DAPPER, DEBUGPY, startDapperServer, startDebugpyServer, startSession } from "./adapters.mjs";
import { DapClient } from "./dap-client.mjs";
import { programsDir, root } from "./paths.mjs";
import { processCpu } from "./procstat.mjs";
import { modeOrder } from "./ratios.mjs";
import { median, minimum } from "./stats.mjs";

/** A run of a module (any mode) may take this long before it counts as hung. */
const TIMEOUT_MS = 900_000;
export const TARGET_RATIO = 2;
const program = path.join(programsDir, "realwork.py");

/**
 * The modules: twelve of CPython's test modules that run in a few seconds at most, two of
 * which start many Python children (test_json's json.tool tests, test_exceptions' crash
 * and recursion tests). A run's words are split on spaces, so that regrtest's options can
 * narrow one down (`test_exceptions -m test_memory_error_in_PyErr_PrintEx`).
 */
export const MODULES = [
  "test_copy",
  "test_functools",
  "test_json",
  "test_exceptions",
  "test_inspect",
  "test_textwrap",
  "test_dataclasses",
  "test_re",
  "test_pprint",
  "test_traceback",
  "test_argparse",
  "test_difflib",
];

/** Standard-library functions those modules call (module:qualified name), one breakpoint each. */
export const PLANTED = [
  "copy:deepcopy",
  "copy:copy",
  "functools:update_wrapper",
  "functools:total_ordering",
  "functools:singledispatch",
  "json:dumps",
  "json.encoder:JSONEncoder.encode",
  "json.decoder:JSONDecoder.decode",
  "inspect:signature",
  "inspect:_signature_from_callable",
  "re:_compile",
  "textwrap:TextWrapper.wrap",
  "dataclasses:_process_class",
  "pprint:PrettyPrinter.pformat",
  "traceback:TracebackException.__init__",
  "argparse:ArgumentParser.parse_known_args",
  "difflib:SequenceMatcher.get_opcodes",
  "threading:Thread.start",
  "subprocess:Popen.__init__",
  "unittest.case:TestCase.run",
];

/** Valid in any frame (a module global) and never true: the condition is evaluated, never holds. */
export const CONDITION = '__name__ == "never"';

/** Prints {file: [line]} for PLANTED: each function's first line after its `def`. */
const LOCATE = path.join(root, "test", "fixtures", "first_body_lines.py");

/** The breakpoints of PLANTED on this interpreter, as [{path, line, condition}]. */
export function plantedBreakpoints(python) {
  const found = JSON.parse(execFileSync(python, [LOCATE, ...PLANTED], { encoding: "utf8" }));
  return Object.entries(found).flatMap(([file, lines]) => lines.map((line) => ({ path: file, line, condition: CONDITION })));
}

/** Parses what realwork.py prints after the tests (and regrtest's verdict); throws when the timing lines are missing. */
export function parseRealWork(text) {
  const number = (name) => {
    const match = new RegExp(`^BENCH_${name}=([0-9.eE+-]+)\\s*$`, "m").exec(text);
    if (!match) throw new Error(`realwork.py printed no BENCH_${name} line; its output ended with: ${JSON.stringify(text.slice(-300))}`);
    const value = Number(match[1]);
    if (!Number.isFinite(value) || value < 0) throw new Error(`BENCH_${name} is not a duration: ${match[1]}`);
    return value;
  };
  const exit = /^BENCH_EXIT=(.*)$/m.exec(text);
  // regrtest's last verdict: "Result: SUCCESS" (3.12+), "Tests result: SUCCESS" (older).
  const verdicts = [...text.matchAll(/^(?:Tests )?[Rr]esult: ([A-Z][\w ,]*\w)\s*$/gm)];
  return {
    seconds: number("SECONDS"),
    cpuSeconds: number("CPU_SECONDS"),
    childrenCpuSeconds: number("CHILDREN_CPU_SECONDS"),
    exit: exit ? exit[1].trim() : undefined,
    verdict: verdicts.length > 0 ? verdicts.at(-1)[1] : undefined,
  };
}

/** The environment of every mode: what a user's shell has, without this machine's PYTHONDONTWRITEBYTECODE and any PYTHONPATH. */
function cleanEnvironment() {
  const env = { ...process.env };
  delete env.PYTHONDONTWRITEBYTECODE;
  delete env.PYTHONPATH;
  return env;
}

export function runPlain({ venvPython, module }) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(venvPython, [program, ...module.split(" ")], { cwd: programsDir, stdio: ["ignore", "pipe", "pipe"], env: cleanEnvironment() });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`plain run of ${module} took over ${TIMEOUT_MS / 1000} s`));
    }, TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", () => {
      clearTimeout(timer);
      const wall = (performance.now() - started) / 1000;
      try {
        resolve({ wall, ...parseRealWork(stdout + stderr), children: undefined, stops: 0 });
      } catch (error) {
        reject(new Error(`${error.message}\nstderr: ${stderr.trim().slice(-1000)}`));
      }
    });
  });
}

/** Continues every stop of a session (none is expected) and counts them; ends when the session does. */
async function continueStops(client, counter) {
  for (;;) {
    let event;
    try {
      event = await client.nextEvent("stopped", TIMEOUT_MS);
    } catch {
      return;
    }
    counter.stops++;
    client.request("continue", { threadId: event.body?.threadId }).catch(() => undefined);
  }
}

/**
 * One whole run under a debugger. `extra`: launch settings over the part's own (for
 * finding where the time goes: a session without children attached, say).
 */
export async function runDebugged({ kind, venvPython, module, breakpoints, dapperServer, extra = {} }) {
  const spec = adapterSpec(kind, { python: venvPython });
  spec.env = cleanEnvironment();
  const server = kind === DAPPER ? dapperServer : await startDebugpyServer({ python: venvPython });
  const counter = { stops: 0 };
  const sessions = [];
  const childEnds = [];
  let children = 0;
  try {
    const adapterCpuBefore = processCpu(server.pid);
    const client = await connectWithRetry(server, `${spec.label} (${module})`);
    sessions.push({ client });
    const started = performance.now();
    client.reverseRequestHandler = (request) => {
      if (request.command !== "startDebugging") throw new Error(`unexpected reverse request ${request.command}`);
      const { request: command, configuration } = request.arguments;
      const port = configuration?.connect?.port ?? server.port;
      children++;
      childEnds.push(
        (async () => {
          const child = await DapClient.connect(port, `${spec.label} (${module} child)`);
          sessions.push({ client: child });
          continueStops(child, counter);
          await startSession(spec, { client: child, timeoutMs: TIMEOUT_MS, launchArguments: [command, configuration], breakpoints, concurrentBreakpoints: true, dapperEvents: kind === DAPPER });
          return (await child.nextEvent("terminated", TIMEOUT_MS)).receivedAt;
        })(),
      );
      return {};
    };
    continueStops(client, counter);
    const launchExtra = { ...(kind === DAPPER ? { justMyCode: false, subprocessAutoAttach: true } : { justMyCode: false, subProcess: true }), ...extra };
    await startSession(spec, { program, args: module.split(" "), client, breakpoints, concurrentBreakpoints: true, timeoutMs: TIMEOUT_MS, launchExtra, dapperEvents: kind === DAPPER });
    const ended = await client.nextEvent("terminated", TIMEOUT_MS);
    // Every child asked for has been asked for by the time its parent ended.
    const childEnded = await Promise.all(childEnds);
    const wall = (Math.max(ended.receivedAt, ...childEnded) - started) / 1000;
    const adapterCpuAfter = processCpu(server.pid);
    const adapterCpu = adapterCpuBefore !== undefined && adapterCpuAfter !== undefined ? adapterCpuAfter - adapterCpuBefore : undefined;
    // Under Dapper a child that ends within 100 ms with nothing to show has no session:
    // its parent's session announced it (dapper/childProcess, which this part's clients
    // ask for where VS Code's does not), and it was debugged.
    const announced = sessions.reduce((sum, { client }) => sum + client.events.filter((event) => event.event === "dapper/childProcess").length, 0);
    return { wall, ...parseRealWork(client.outputOf("stdout") + client.outputOf("stderr")), children: kind === DAPPER ? announced : children, stops: counter.stops, adapterCpu };
  } finally {
    // Children first, then the parent: a disconnect ends only what has not ended.
    for (const { client } of sessions.reverse()) await client.dispose();
    if (kind === DEBUGPY) server.stop();
  }
}

const ratiosOf = (runs, mode, field, base = "plain") =>
  runs.map((round) => (round[mode]?.[field] !== undefined && round[base]?.[field] > 0 ? round[mode][field] / round[base][field] : undefined)).filter(Number.isFinite);

/** One module's figures from its rounds ([{plain, plainAgain, dapper, debugpy}], a failed run an {error}). */
export function summarizeModule(module, runs, debuggers) {
  const of = (mode, field) => runs.map((round) => round[mode]?.[field]).filter(Number.isFinite);
  const spread = (field) => {
    const ratios = ratiosOf(runs, "plainAgain", field);
    return { median: median(ratios), min: minimum(ratios), max: ratios.length ? Math.max(...ratios) : undefined };
  };
  const row = {
    module,
    rounds: runs.length,
    plain: { wall: median(of("plain", "wall")), cpu: median(of("plain", "cpuSeconds")), childrenCpu: median(of("plain", "childrenCpuSeconds")), verdict: runs.find((r) => r.plain?.verdict)?.plain.verdict },
    spread: { wall: spread("wall"), cpu: spread("cpuSeconds") },
  };
  for (const kind of debuggers) {
    const wallRatios = ratiosOf(runs, kind, "wall");
    row[kind] = {
      wall: median(of(kind, "wall")),
      cpu: median(of(kind, "cpuSeconds")),
      childrenCpu: median(of(kind, "childrenCpuSeconds")),
      wallRatio: median(wallRatios),
      cpuRatio: median(ratiosOf(runs, kind, "cpuSeconds")),
      adapterCpu: median(of(kind, "adapterCpu")),
      children: median(of(kind, "children")),
      stops: runs.reduce((sum, round) => sum + (round[kind]?.stops ?? 0), 0),
      failed: runs.filter((round) => round[kind]?.error).map((round) => round[kind].error),
      verdicts: [...new Set(runs.map((round) => round[kind]?.verdict).filter(Boolean))],
      measured: wallRatios.length,
    };
  }
  return row;
}

/** Every module, `rounds` interleaved rounds each, on one interpreter. */
export async function measureRealWork({ python, venvPython, rounds, debuggers, modules = MODULES, log, onModule }) {
  const breakpoints = plantedBreakpoints(venvPython);
  const modes = ["plain", ...debuggers, "plainAgain"];
  // The adapter servers pass their environment on to the debuggees: the same clean one as
  // the plain runs (restored when the part ends).
  const saved = { ...process.env };
  for (const name of Object.keys(process.env)) if (!(name in cleanEnvironment())) delete process.env[name];
  const rows = [];
  let dapperServer;
  try {
    dapperServer = debuggers.includes(DAPPER) ? await startDapperServer() : undefined;
    // An unmeasured session warms the engine, as in every other part through a server.
    if (dapperServer) await runDebugged({ kind: DAPPER, venvPython, module: "test_textwrap", breakpoints, dapperServer }).catch(() => undefined);
    for (const module of modules) {
      const runs = [];
      for (let round = 0; round < rounds; round++) {
        const result = {};
        for (const mode of modeOrder(modes, round)) {
          try {
            result[mode] = mode === "plain" || mode === "plainAgain" ? await runPlain({ venvPython, module }) : await runDebugged({ kind: mode, venvPython, module, breakpoints, dapperServer });
          } catch (error) {
            result[mode] = { error: error.message.split("\n")[0] };
          }
        }
        runs.push(result);
        log(`${module} round ${round + 1}: ${modes.map((mode) => `${mode} ${result[mode].error ? `failed (${result[mode].error})` : `${result[mode].wall.toFixed(2)} s / ${result[mode].cpuSeconds.toFixed(2)} s CPU${result[mode].children !== undefined ? `, ${result[mode].children} children` : ""}`}`).join("; ")}`);
      }
      rows.push(summarizeModule(module, runs, debuggers));
      onModule?.({ python, rounds, breakpoints: breakpoints.length, debuggers, rows });
    }
  } finally {
    dapperServer?.stop();
    Object.assign(process.env, saved);
  }
  return { python, rounds, breakpoints: breakpoints.length, debuggers, rows };
}

/** A line for the console. */
export function describeRealWork(result) {
  if (result.error) return `failed: ${result.error}`;
  return result.rows.map((row) => `${row.module}: plain ${row.plain.wall?.toFixed(2)} s, ${result.debuggers.map((kind) => `${kind} ${formatRatio(row[kind].wallRatio)}`).join(", ")}`).join("; ");
}

const formatRatio = (ratio) => (ratio === undefined ? "—" : `${ratio.toFixed(2)}×`);
const formatSeconds = (seconds) => (seconds === undefined ? "—" : `${seconds.toFixed(2)} s`);
const mark = (met) => (met === undefined ? "?" : met ? "✓" : "✗");

function debuggerCell(cell) {
  if (cell === undefined) return "not run";
  if (cell.measured === 0) return `_failed: ${cell.failed[0] ?? "no run"}_`;
  return `${formatRatio(cell.wallRatio)} / ${formatRatio(cell.cpuRatio)}`;
}

/** The section of RESULTS.md; empty when the part did not run. */
export function renderRealWork(results) {
  if (results.length === 0) return "";
  const lines = [
    "",
    "## Real work: CPython's test modules",
    "",
    `\`python -m test <module>\` for CPython's own test modules, as a whole run: plain, under Dapper and under debugpy, each through its adapter as a DAP server, with justMyCode off, a conditional breakpoint whose condition never holds (\`${CONDITION}\`) on the first line of each of ${PLANTED.length} standard-library functions these tests call (${PLANTED.map((p) => `\`${p.replace(":", ".")}\``).join(", ")}), set in the session of every child process too, and every child process attached (Dapper's subprocessAutoAttach, debugpy's subProcess; no exception filter). bench/lib/realwork.mjs, bench/programs/realwork.py. Wall time of the whole run (plain: the spawn to the exit; debugged: \`initialize\` to the last \`terminated\` of the session and its children) / CPU time of the debuggee's whole process tree (user + system, waited-for children included, read with getrusage as the run ends). Each cell is the median over paired, interleaved rounds of the ratio of two runs of the same round; plain÷plain is the second plain run of a round to its first, median (range): the machine's own spread. Children: child processes debugged under Dapper (those its sessions announced, with a session of their own or, for those that ended within 100 ms with nothing to show, without) / attached under debugpy, per run. Adapter CPU: the adapter process's own CPU time per run (Dapper's engine in Node; debugpy's adapter), not in the ratios. Target: every module ≤ ${TARGET_RATIO}× plain under Dapper, wall time.`,
    "",
  ];
  for (const result of results) {
    if (result.error) {
      lines.push(`Python ${result.python}: _failed: ${result.error}_`, "");
      continue;
    }
    const kinds = result.debuggers;
    const label = (kind) => (kind === DAPPER ? "Dapper" : "debugpy");
    lines.push(
      `**Python ${result.python}**, ${result.rounds} rounds per module, ${result.breakpoints} breakpoints.`,
      "",
      `| module | children | plain (wall / CPU) | ${kinds.map((kind) => `${label(kind)} × (wall / CPU)`).join(" | ")} | plain÷plain (wall / CPU) | adapter CPU (${kinds.map(label).join(" / ")}) | ≤ ${TARGET_RATIO}×? |`,
      `|---|---|---|${kinds.map(() => "---|").join("")}---|---|---|`,
    );
    for (const row of result.rows) {
      const children = kinds.map((kind) => (row[kind]?.children === undefined ? "—" : String(Math.round(row[kind].children)))).join(" / ");
      const spread = (s) => (s.median === undefined ? "—" : `${s.median.toFixed(2)}× (${s.min.toFixed(2)}–${s.max.toFixed(2)})`);
      const notes = [];
      for (const kind of kinds) {
        const cell = row[kind];
        if (!cell) continue;
        if (cell.stops > 0) notes.push(`${label(kind)} stopped ${cell.stops} times`);
        if (cell.failed.length > 0 && cell.measured > 0) notes.push(`${label(kind)}: ${cell.failed.length} runs failed (${cell.failed[0]})`);
        const differing = cell.verdicts.filter((verdict) => verdict !== row.plain.verdict);
        if (differing.length > 0) notes.push(`regrtest said ${differing.join(", ")} under ${label(kind)}, ${row.plain.verdict ?? "nothing"} plain`);
      }
      const dapper = row[DAPPER];
      const met = dapper?.wallRatio === undefined ? undefined : dapper.wallRatio <= TARGET_RATIO;
      lines.push(
        `| ${row.module} | ${children} | ${formatSeconds(row.plain.wall)} / ${formatSeconds(row.plain.cpu)} | ${kinds.map((kind) => debuggerCell(row[kind])).join(" | ")} | ${spread(row.spread.wall)} / ${spread(row.spread.cpu)} | ${kinds.map((kind) => formatSeconds(row[kind]?.adapterCpu)).join(" / ")} | ${mark(met)}${notes.length ? ` (${notes.join("; ")})` : ""} |`,
      );
    }
    lines.push("");
  }
  return lines.join("\n");
}
