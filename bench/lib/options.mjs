// The benchmark's command line, parsed without side effects so that it can be tested.

export const USAGE = `Usage: node bench/run.mjs [options]

Runs Dapper and debugpy side by side against plain python and writes bench/RESULTS.md.

Options:
  --quick            one run, the smallest sizes, few latency repetitions (a smoke test)
  --python V[,V…]    only these Python versions (e.g. 3.12); default: 3.11 and newer
  --only A[,B…]      only these parts: program names (fib, loop, calls, threads,
                     deepcopy, exceptions, bigdict, logpoint) and/or latency, throughput,
                     memory, child, activation, hotreload, attachpid, autoattach,
                     databreakpoints, setup (what a session and a breakpoint add to a
                     whole process), imports (a module's import with restartable
                     functions), realwork (CPython's test modules as whole runs,
                     with their children; about 20 minutes per Python), childstart
                     (what a child's session adds to its start; about a minute
                     per Python), childinstructions (the same, counted in
                     instructions by valgrind's callgrind; about a minute per Python)
  --no-debugpy       measure Dapper and plain python only
  --cold-adapter     slowdown runs start a fresh Dapper adapter each (default: one
                     adapter server for all of them, as VS Code hosts one engine)
  --runs N           runs per cell (default 5; --quick: 1)
  --near-runs N      runs per cell where the target is within 5% of 1× (3.12+ without a
                     breakpoint hit): plain, plain again and Dapper; debugpy keeps --runs
                     (default 15, and never fewer than --runs; --quick: as --runs)
  --reps N           repetitions per latency (default 50; --quick: 5)
  --output FILE      where to write the results (default bench/RESULTS.md)
  --help             print this help
`;

/** The default runs per cell for cells whose target is near 1× (see `--near-runs`). */
export const NEAR_RUNS = 15;

export const PARTS = ["latency", "throughput", "memory", "child", "suite", "activation", "hotreload", "attachpid", "autoattach", "databreakpoints", "setup", "imports", "realwork", "childstart", "childinstructions"];

/** Parses argv (without node and the script); throws an Error with a clear message on bad input. */
export function parseOptions(argv, { programNames }) {
  const options = { quick: false, pythons: undefined, only: undefined, debugpy: true, coldAdapter: false, runs: undefined, nearRuns: undefined, reps: undefined, output: undefined, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const equals = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = equals >= 0 ? arg.slice(0, equals) : arg;
    const inline = equals >= 0 ? arg.slice(equals + 1) : undefined;
    const value = () => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("--")) throw new Error(`${name} needs a value`);
      i++;
      return next;
    };
    const list = () => {
      const items = value().split(",").map((item) => item.trim()).filter(Boolean);
      if (items.length === 0) throw new Error(`${name} needs at least one value`);
      return items;
    };
    const count = () => {
      const text = value();
      if (!/^[1-9]\d*$/.test(text)) throw new Error(`${name} must be a positive whole number, not ${JSON.stringify(text)}`);
      return Number(text);
    };
    switch (name) {
      case "--quick":
        options.quick = true;
        break;
      case "--python":
        options.pythons = list();
        for (const version of options.pythons) {
          if (!/^3\.\d+$/.test(version)) throw new Error(`--python takes versions like 3.12, not ${JSON.stringify(version)}`);
        }
        break;
      case "--only":
        options.only = list();
        for (const part of options.only) {
          if (!programNames.includes(part) && !PARTS.includes(part)) {
            throw new Error(`--only: unknown part ${JSON.stringify(part)}; choose from ${[...programNames, ...PARTS].join(", ")}`);
          }
        }
        break;
      case "--no-debugpy":
        options.debugpy = false;
        break;
      case "--cold-adapter":
        options.coldAdapter = true;
        break;
      case "--runs":
        options.runs = count();
        break;
      case "--near-runs":
        options.nearRuns = count();
        break;
      case "--reps":
        options.reps = count();
        break;
      case "--output":
        options.output = value();
        break;
      case "--help":
      case "-h":
        options.help = true;
        break;
      default:
        throw new Error(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  options.runs ??= options.quick ? 1 : 5;
  // The near-1× cells get more rounds: a 3% target needs a median steadier than five
  // rounds give on a shared machine (plain÷plain alone ranged 0.6-1.2× over five).
  options.nearRuns = Math.max(options.nearRuns ?? (options.quick ? options.runs : NEAR_RUNS), options.runs);
  options.reps ??= options.quick ? 5 : 50;
  return options;
}

/** Whether a part (a program name or one of PARTS) is selected. */
export function selected(options, part) {
  return options.only === undefined || options.only.includes(part);
}
