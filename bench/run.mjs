#!/usr/bin/env node
// `npm run bench`: Dapper against plain python and debugpy, side by side, on every
// CPython 3.11+ of the machine. Prints the results and writes them to bench/RESULTS.md
// (a --quick smoke run writes .cache/bench/RESULTS-quick.md instead, so that it never
// replaces real figures). See bench/README.md.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { run, step } from "../scripts/lib.mjs";
import { describeActivation, measureActivation, renderActivation } from "./lib/activation.mjs";
import { describeAutoAttach, measureAutoAttach, renderAutoAttach } from "./lib/autoattach.mjs";
import { describeSuite, measureSuite, renderSuite } from "./lib/suite.mjs";
import { describeSetup, measureSetup, renderSetup } from "./lib/setup.mjs";
import { describeDataBreakpoints, measureDataBreakpoints, renderDataBreakpoints } from "./lib/databreakpoints.mjs";
import { describeHotReload, measureHotReload, renderHotReload } from "./lib/hotreload.mjs";
import { describeImports, measureImports, renderImports } from "./lib/imports.mjs";
import { describeRealWork, measureRealWork, renderRealWork } from "./lib/realwork.mjs";
import { DAPPER, DEBUGPY } from "./lib/adapters.mjs";
import { AttachUnavailable, measureAttachPidLatency } from "./lib/attachpid.mjs";
import { FeatureMissing, measureChildLatency } from "./lib/child.mjs";
import { describeChildInstructions, haveValgrind, measureChildInstructions, renderChildInstructions } from "./lib/childinstructions.mjs";
import { describeChildStart, measureChildStart, renderChildStart } from "./lib/childstart.mjs";
import { measureWasmThroughput, MIXES } from "./lib/engine-throughput.mjs";
import { choosePythons, DEBUGPY_VERSION, ensureBuilt, ensureVenv, machineFacts } from "./lib/environment.mjs";
import { measureLatencies } from "./lib/latency.mjs";
import { measureAdapterGrowth } from "./lib/memory.mjs";
import { parseOptions, selected, USAGE } from "./lib/options.mjs";
import { benchCacheDir, benchDir, root } from "./lib/paths.mjs";
import { PROGRAMS } from "./lib/programs.mjs";
import { measureRatios } from "./lib/ratios.mjs";
import { renderResults } from "./lib/report.mjs";

const log = (text) => console.log(`   ${text}`);

async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2), { programNames: PROGRAMS.map((p) => p.name) });
  } catch (error) {
    process.stderr.write(`bench: ${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return;
  }
  const debuggers = options.debugpy ? [DAPPER, DEBUGPY] : [DAPPER];

  ensureBuilt();
  const chosen = choosePythons(options.pythons);
  const pythons = chosen.map((python) => ensureVenv(python, { withDebugpy: options.debugpy }));
  const machine = machineFacts();
  const versions = { pythons: pythons.map((p) => p.fullVersion), debugpy: options.debugpy ? pythons[0].debugpy : undefined };
  step("Benchmark");
  log(`${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB; Node ${machine.node}; Dapper ${machine.dapper}`);
  log(`Python ${versions.pythons.join(", ")}; debugpy ${versions.debugpy ?? "not run"} (pinned ${DEBUGPY_VERSION})`);

  const newest = pythons[pythons.length - 1];
  const notes = [
    `Latencies, the child process and memory were measured on Python ${newest.version} only (the newest chosen; \`--python\` picks another).`,
    "Sizes differ by configuration (lib/programs.mjs): smaller where debugpy is 100–800× slower, so that the run stays near 15 minutes; each ratio compares runs of the same size. " +
      "bigdict's conditional configuration imports a 2,000-entry literal with the breakpoint on the line after it; its other configurations, 50,000 entries.",
    "The conditional breakpoint's condition is always false and valid on its line; a stop fails the run (the table then says failed). Logpoint lines that never reached the client are counted and reported.",
    options.coldAdapter
      ? "Slowdown runs under Dapper each started a fresh adapter (`--cold-adapter`): its WebAssembly compiles in the background during the first part of the program's run (about 120-150 ms of CPU measured), which on a 2-core machine is taken from the program."
      : "Slowdown runs under Dapper went through one adapter server started (and warmed by one unmeasured session) before them, as VS Code hosts one engine for all sessions; debugpy's adapter is started per session, as the Python extension does. `--cold-adapter` starts a fresh Dapper adapter per run instead.",
  ];
  const output = options.output ? path.resolve(options.output) : options.quick ? path.join(benchCacheDir, "RESULTS-quick.md") : path.join(benchDir, "RESULTS.md");
  let cells = [];
  const latency = {};
  const throughput = [];
  const memory = {};
  let activation;
  let hotReload;
  let autoAttach;
  let suite;
  const dataBreakpoints = [];
  const setups = [];
  const imports = [];
  const realWork = [];
  const childStarts = [];
  const childInstructions = [];
  // The results are written after every part, so that a run cut short still leaves what
  // it measured (marked unfinished until the end).
  const save = (partial) => {
    const text = renderResults({ machine, versions, options, cells, latency, throughput, memory, debuggers, notes: partial ? ["**Unfinished run**: the parts not shown were still running.", ...notes] : notes }) + renderActivation(activation) + renderHotReload(newest.version, hotReload) + renderAutoAttach(newest.version, autoAttach) + renderSuite(suite) + renderChildStart(childStarts) + renderChildInstructions(childInstructions) + renderSetup(setups) + renderImports(imports) + renderRealWork(realWork) + renderDataBreakpoints(dataBreakpoints);
    mkdirSync(path.dirname(output), { recursive: true });
    writeFileSync(output, text);
    return text;
  };

  // Runs unless --only names other parts; it takes a few seconds.
  if (selected(options, "activation")) {
    step("Extension activation (fresh Node processes, stand-in vscode module)");
    activation = measureActivation({ runs: options.quick ? 5 : 25 });
    log(describeActivation(activation));
    save(true);
  }

  const programs = PROGRAMS.filter((program) => selected(options, program.name));
  if (programs.length > 0) {
    step(`Slowdown ratios (${options.runs} run${options.runs === 1 ? "" : "s"} per cell${options.nearRuns > options.runs ? `, ${options.nearRuns} where the target is near 1×` : ""})`);
    const onCell = (sofar) => {
      cells = sofar;
      save(true);
    };
    cells = await measureRatios({ pythons, programs, runs: options.runs, nearRuns: options.nearRuns, quick: options.quick, debuggers, log, coldAdapter: options.coldAdapter, onCell });
  }

  // Latencies and the child process are measured on one interpreter, the newest chosen:
  // they are about the adapters and the IPC, and doing every Python would double the run.
  if (selected(options, "latency")) {
    step(`Latencies on Python ${newest.version} (median of ${options.reps})`);
    latency[newest.version] = {};
    for (const kind of debuggers) latency[newest.version][kind] = await measureLatencies({ kind, python: newest.venvPython, reps: options.reps, log });
    save(true);
  }

  if (selected(options, "throughput")) {
    step("Engine throughput");
    const rounds = options.quick ? 500 : 5000;
    for (const mix of Object.keys(MIXES)) {
      for (const framing of ["messages", "contentLength"]) {
        try {
          // A first pass warms the JIT; of the next three the best is kept, because on a
          // shared machine the slower passes measure the neighbours rather than the engine.
          measureWasmThroughput({ framing, mix, rounds: Math.ceil(rounds / 5) });
          const passes = [0, 1, 2].map(() => measureWasmThroughput({ framing, mix, rounds }));
          const best = passes.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
          throughput.push({ engine: "WebAssembly", ...best });
        } catch (error) {
          throughput.push({ engine: "WebAssembly", mix, framing, error: error.message.split("\n")[0] });
        }
        log(describeThroughput(throughput[throughput.length - 1]));
      }
    }
    for (const result of nativeThroughput(rounds)) {
      throughput.push(result);
      log(describeThroughput(result));
    }
    save(true);
  }

  if (selected(options, "memory")) {
    step("Memory of the extension host per session");
    try {
      memory.adapter = await measureAdapterGrowth({ python: newest.venvPython, sessions: options.quick ? 3 : 30 });
      log(`growth per session: heap ${memory.adapter.perSession.heapUsedKb.toFixed(1)} KiB, RSS ${memory.adapter.perSession.rssKb.toFixed(0)} KiB`);
    } catch (error) {
      memory.adapter = { error: error.message.split("\n")[0] };
      log(`failed: ${memory.adapter.error}`);
    }
  }

  if (selected(options, "child")) {
    step("Child process: spawn to its first stop");
    const reps = options.quick ? 2 : options.reps;
    for (const kind of debuggers) {
      const results = ((latency[newest.version] ??= {})[kind] ??= {});
      try {
        results.child = await measureChildLatency({ kind, python: newest.venvPython, reps });
        log(`${kind}: median ${results.child.median.toFixed(1)} ms`);
      } catch (error) {
        results.child = error instanceof FeatureMissing ? { unavailable: `not available yet: ${error.message}` } : { error: error.message.split("\n")[0] };
        log(`${kind}: ${results.child.unavailable ?? `failed: ${results.child.error}`}`);
      }
    }
  }

  if (selected(options, "attachpid")) {
    // One figure per injection method: the newest chosen Python before 3.14 (gdb) and the
    // newest from 3.14 on (sys.remote_exec). The plain interpreter: the program runs
    // without a debugger until the attach.
    const older = chosen.filter((python) => Number(python.version.split(".")[1]) < 14).at(-1);
    const newer = chosen.filter((python) => Number(python.version.split(".")[1]) >= 14).at(-1);
    const reps = options.quick ? 3 : Math.min(options.reps, 20);
    for (const python of [older, newer].filter((p) => p !== undefined)) {
      step(`Attach by process id on Python ${python.version}`);
      for (const kind of debuggers) {
        const results = ((latency[python.version] ??= {})[kind] ??= {});
        try {
          results.attachPid = await measureAttachPidLatency({ kind, python: python.executable, reps });
          log(`${kind}: median ${results.attachPid.median.toFixed(1)} ms`);
        } catch (error) {
          results.attachPid = error instanceof AttachUnavailable ? { unavailable: error.message } : { error: error.message.split("\n")[0] };
          log(`${kind}: ${results.attachPid.unavailable ?? `failed: ${results.attachPid.error}`}`);
        }
      }
    }
    save(true);
  }

  if (selected(options, "hotreload")) {
    step(`Hot reload on Python ${newest.version} (a 2,000-line module, reloaded while paused)`);
    hotReload = await measureHotReload({ python: newest.venvPython, reloads: options.quick ? 3 : 20 });
    log(describeHotReload(hotReload));
    save(true);
  }

  if (selected(options, "suite")) {
    step(`A test suite that starts Python processes, on Python ${newest.version}`);
    try {
      const rounds = options.quick ? 1 : Math.max(options.nearRuns, 15);
      suite = await measureSuite({ python: newest.version, venvPython: newest.venvPython, children: options.quick ? 4 : 16, rounds, log });
      log(describeSuite(suite));
    } catch (error) {
      suite = { error: error.message.split("\n")[0] };
      log(`failed: ${suite.error}`);
    }
    save(true);
  }

  if (selected(options, "childstart")) {
    // Every chosen Python: each starts differently (its own modules, runpy, the launcher's
    // code under it).
    for (const python of pythons) {
      const rounds = options.quick ? 1 : Math.max(options.nearRuns, 15);
      step(`A child's start on Python ${python.version}: ${rounds} rounds of ten children, each kind`);
      let result;
      try {
        result = await measureChildStart({ python: python.version, venvPython: python.venvPython, rounds });
      } catch (error) {
        result = { python: python.version, error: error.message.split("\n")[0] };
      }
      log(describeChildStart(result));
      childStarts.push(result);
      save(true);
    }
  }

  if (selected(options, "childinstructions")) {
    for (const python of pythons) {
      step(`A child's start on Python ${python.version}, counted by callgrind`);
      let result;
      if (!haveValgrind()) {
        result = { python: python.version, error: "valgrind is not installed" };
      } else if (python.sid) {
        // Its interpreter runs inside the Debian sid root, where valgrind's own files are not.
        result = { python: python.version, error: "valgrind cannot follow a Python of the Debian sid root into it" };
      } else {
        try {
          result = await measureChildInstructions({ python: python.version, venvPython: python.venvPython, log });
        } catch (error) {
          result = { python: python.version, error: error.message.split("\n")[0] };
        }
      }
      log(describeChildInstructions(result));
      childInstructions.push(result);
      save(true);
    }
  }

  if (selected(options, "setup")) {
    // Every chosen Python: what a breakpoint costs to set up depends on its compiler.
    for (const python of pythons) {
      const rounds = options.quick ? 1 : Math.max(options.nearRuns, 15);
      step(`Breakpoint set-up on Python ${python.version}: whole processes, ${rounds} rounds`);
      let result;
      try {
        result = await measureSetup({ python: python.version, venvPython: python.venvPython, rounds, log });
      } catch (error) {
        result = { python: python.version, error: error.message.split("\n")[0] };
      }
      log(describeSetup(result));
      setups.push(result);
      save(true);
    }
  }

  if (selected(options, "imports")) {
    // Every chosen Python: the handler's size and cost depend on the bytecode.
    for (const python of pythons) {
      const rounds = options.quick ? 3 : Math.max(options.nearRuns, 15);
      step(`Importing a restartable module on Python ${python.version}: ${rounds} rounds`);
      let result;
      try {
        result = await measureImports({ python: python.venvPython, rounds });
      } catch (error) {
        result = { error: error.message.split("\n")[0] };
      }
      log(describeImports(result));
      imports.push({ python: python.version, rounds, result });
      save(true);
    }
  }

  if (selected(options, "realwork")) {
    // Every chosen Python: CPython's own test modules, whose Lib/test each interpreter has.
    for (const python of pythons) {
      const rounds = options.quick ? 1 : Math.max(options.runs, 5);
      step(`Real work on Python ${python.version}: CPython's test modules, whole runs, ${rounds} rounds each`);
      let result;
      try {
        result = await measureRealWork({ python: python.version, venvPython: python.venvPython, rounds, debuggers, modules: options.quick ? ["test_copy", "test_json"] : undefined, log });
      } catch (error) {
        result = { python: python.version, error: error.message.split("\n")[0] };
      }
      log(describeRealWork(result));
      realWork.push(result);
      save(true);
    }
  }

  if (selected(options, "autoattach")) {
    step(`Terminal auto-attach's bootstrap on Python ${newest.version} (interpreter starts with and without it)`);
    autoAttach = await measureAutoAttach({ python: newest.venvPython, runs: options.quick ? 3 : 40 });
    log(describeAutoAttach(autoAttach));
    save(true);
  }

  if (selected(options, "databreakpoints")) {
    // Each chosen Python with its default tracer, and sys.settrace on the newest too.
    const tracers = [...pythons.map((python) => [python, undefined]), [newest, "settrace"]];
    for (const [python, tracer] of tracers) {
      step(`Data breakpoints on Python ${python.version}${tracer ? ` (${tracer})` : ""}: 1,000,000-iteration loops, a watched local, a watched attribute`);
      const result = await measureDataBreakpoints({ python: python.venvPython, n: options.quick ? 100_000 : 1_000_000, runs: options.quick ? 1 : 3, tracer });
      log(describeDataBreakpoints(result));
      dataBreakpoints.push({ python: python.version, result });
      save(true);
    }
  }

  const text = save(false);
  step("Results");
  console.log(text);
  console.log(`Written to ${path.relative(root, output)}`);
}

function describeThroughput(result) {
  if (result.error) return `${result.engine} ${result.mix ?? ""} ${result.framing ?? ""}: failed: ${result.error}`;
  return `${result.engine}, ${result.mix} mix, ${result.framing}: ${Math.round(result.perSecond).toLocaleString("en-US")} msg/s, ${result.microsPerForward.toFixed(1)} µs per forwarded request`;
}

/** bench/native/ through cargo (built on first use); a failure becomes a row that says so. */
function nativeThroughput(rounds) {
  try {
    const result = run("cargo", ["run", "--quiet", "--release", "--manifest-path", path.join(benchDir, "native", "Cargo.toml"), "--", String(rounds)], {
      capture: true,
      quiet: true,
      env: { CARGO_TARGET_DIR: path.join(benchCacheDir, "native-target") },
    });
    return result.stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => ({ engine: "native", ...JSON.parse(line) }));
  } catch (error) {
    const detail = error.message.split("\n").find((line) => line.startsWith("error")) ?? error.message.split("\n")[0];
    return [{ engine: "native", error: `cargo could not build or run bench/native: ${detail}` }];
  }
}

main().catch((error) => {
  // A clear sentence for the user; the stack only when asked for (BENCH_DEBUG=1).
  console.error(`bench: ${process.env.BENCH_DEBUG ? error.stack : error.message}`);
  process.exit(1);
});
