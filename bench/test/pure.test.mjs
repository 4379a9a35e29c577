// Tests of the benchmark's pure parts: command line, statistics, parsing of program
// output, targets, DAP framing, the generated programs and the report.
// Run: node --test bench/test/
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, test } from "node:test";
import { ContentLengthDecoder, encodeMessage } from "../lib/dap-client.mjs";
import { decodeFrames, encodeFrame } from "../lib/engine-throughput.mjs";
import { inspectTargetSource, LOCALS_COUNT } from "../lib/latency.mjs";
import { parseReport } from "../lib/measure.mjs";
import { parseOptions } from "../lib/options.mjs";
import { parseChildren, renderChildStart, runFigures } from "../lib/childstart.mjs";
import { classifyChild, countsIn, parseCallgrindFile, renderChildInstructions } from "../lib/childinstructions.mjs";
import { parseImports, renderImports } from "../lib/imports.mjs";
import { bigTableSource, breakpointsFor, formatRatio, PROGRAMS, sizeFor, targetFor } from "../lib/programs.mjs";
import { cellRounds, compactError, modeOrder } from "../lib/ratios.mjs";
import { cpuTable, missedTargets, ratioRow, renderResults } from "../lib/report.mjs";
import { median, medianAndRange, minimum, pairedRatios } from "../lib/stats.mjs";

const programNames = PROGRAMS.map((p) => p.name);

describe("command line", () => {
  const cases = [
    { argv: [], expect: { quick: false, runs: 5, nearRuns: 15, reps: 50, debugpy: true, pythons: undefined, only: undefined } },
    { argv: ["--quick"], expect: { quick: true, runs: 1, nearRuns: 1, reps: 5 } },
    { argv: ["--quick", "--runs", "3"], expect: { quick: true, runs: 3, nearRuns: 3 } },
    { argv: ["--near-runs", "25"], expect: { runs: 5, nearRuns: 25 } },
    { argv: ["--runs", "20"], expect: { runs: 20, nearRuns: 20 } },
    { argv: ["--runs", "9", "--near-runs", "4"], expect: { runs: 9, nearRuns: 9 } },
    { argv: ["--python", "3.12"], expect: { pythons: ["3.12"] } },
    { argv: ["--python=3.11,3.13"], expect: { pythons: ["3.11", "3.13"] } },
    { argv: ["--only", "fib,loop"], expect: { only: ["fib", "loop"] } },
    { argv: ["--only", "latency,throughput"], expect: { only: ["latency", "throughput"] } },
    { argv: ["--no-debugpy"], expect: { debugpy: false, coldAdapter: false } },
    { argv: ["--cold-adapter"], expect: { coldAdapter: true } },
    { argv: ["--output", "x.md"], expect: { output: "x.md" } },
  ];
  for (const { argv, expect } of cases) {
    test(argv.join(" ") || "(no arguments)", () => {
      const options = parseOptions(argv, { programNames });
      for (const [key, value] of Object.entries(expect)) assert.deepEqual(options[key], value, key);
    });
  }

  const errors = [
    { argv: ["--python", "twelve"], message: /versions like 3\.12/ },
    { argv: ["--python"], message: /--python needs a value/ },
    { argv: ["--only", "fob"], message: /unknown part "fob".*fib/ },
    { argv: ["--runs", "0"], message: /positive whole number/ },
    { argv: ["--runs", "2.5"], message: /positive whole number/ },
    { argv: ["--near-runs", "0"], message: /--near-runs must be a positive whole number/ },
    { argv: ["--only", ","], message: /at least one value/ },
    { argv: ["--fast"], message: /unknown argument "--fast"/ },
  ];
  for (const { argv, message } of errors) {
    test(`refuses ${argv.join(" ")}`, () => assert.throws(() => parseOptions(argv, { programNames }), message));
  }
});

describe("statistics", () => {
  const cases = [
    { values: [3, 1, 2], median: 2, min: 1 },
    { values: [4, 1, 3, 2], median: 2.5, min: 1 },
    { values: [5], median: 5, min: 5 },
    { values: [], median: undefined, min: undefined },
    { values: [undefined, 2, NaN, 4], median: 3, min: 2 },
  ];
  for (const { values, median: m, min } of cases) {
    test(`median and min of ${JSON.stringify(values)}`, () => {
      assert.equal(median(values), m);
      assert.equal(minimum(values), min);
    });
  }

  test("a median and its range leave out the runs that gave no figure", () => {
    assert.deepEqual(medianAndRange([4, undefined, 1, NaN, 3]), { median: 3, low: 1, high: 4 });
  });

  test("ratios pair runs by index and skip failed runs", () => {
    const debugged = [2, undefined, 9, 4];
    const plain = [1, 1, 3, undefined];
    assert.deepEqual(pairedRatios(debugged, plain), [2, 3]);
  });

  test("the run order rotates so that no mode is always first", () => {
    const modes = ["plain", "dapper", "debugpy"];
    assert.deepEqual(modeOrder(modes, 0), ["plain", "dapper", "debugpy"]);
    assert.deepEqual(modeOrder(modes, 1), ["dapper", "debugpy", "plain"]);
    assert.deepEqual(modeOrder(modes, 4), ["dapper", "debugpy", "plain"]);
  });
});

describe("rounds per cell", () => {
  const modes = ["plain", "plainAgain", "dapper", "debugpy"];
  const cases = [
    // Near 1×: nearRuns rounds, debugpy only in the first `runs`.
    { cell: { python: "3.12", program: "fib", config: "none" }, rounds: 4, debugpyRounds: 2 },
    { cell: { python: "3.13", program: "threads", config: "elsewhere" }, rounds: 4, debugpyRounds: 2 },
    // Targets further from 1× (or none): `runs` rounds of every mode.
    { cell: { python: "3.12", program: "bigdict", config: "none" }, rounds: 2, debugpyRounds: 2 },
    { cell: { python: "3.11", program: "fib", config: "none" }, rounds: 2, debugpyRounds: 2 },
    { cell: { python: "3.13", program: "fib", config: "conditional" }, rounds: 2, debugpyRounds: 2 },
    { cell: { python: "3.13", program: "logpoint", config: "logpoint" }, rounds: 2, debugpyRounds: 2 },
  ];
  for (const { cell, rounds, debugpyRounds } of cases) {
    test(`${cell.python} ${cell.program} ${cell.config}: ${rounds} rounds`, () => {
      const order = cellRounds({ ...cell, modes, runs: 2, nearRuns: 4 });
      assert.equal(order.length, rounds);
      assert.equal(order.filter((round) => round.includes("debugpy")).length, debugpyRounds);
      for (const round of order) for (const mode of ["plain", "plainAgain", "dapper"]) assert.ok(round.includes(mode), `${mode} in ${round}`);
    });
  }

  test("without nearRuns every cell has `runs` rounds", () => {
    assert.equal(cellRounds({ python: "3.12", program: "fib", config: "none", modes, runs: 3 }).length, 3);
  });
});

describe("program output", () => {
  const cases = [
    { text: "BENCH_SECONDS=0.25\nBENCH_VMHWM_KB=1000\nBENCH_VMRSS_KB=900\n", expect: { seconds: 0.25, cpuSeconds: undefined, childrenCpuSeconds: undefined, hwmKb: 1000, rssKb: 900 } },
    { text: "hello\nBENCH_SECONDS=1.5e-05\n", expect: { seconds: 1.5e-5, cpuSeconds: undefined, childrenCpuSeconds: undefined, hwmKb: undefined, rssKb: undefined } },
    { text: "i=1\nBENCH_SECONDS=2.0\ni=2\n", expect: { seconds: 2, cpuSeconds: undefined, childrenCpuSeconds: undefined, hwmKb: undefined, rssKb: undefined } },
    { text: "BENCH_SECONDS=0.3\nBENCH_CPU_SECONDS=0.125\n", expect: { seconds: 0.3, cpuSeconds: 0.125, childrenCpuSeconds: undefined, hwmKb: undefined, rssKb: undefined } },
    { text: "BENCH_SECONDS=0.5\nBENCH_CPU_SECONDS=0.01\nBENCH_CHILDREN_CPU_SECONDS=0.375\n", expect: { seconds: 0.5, cpuSeconds: 0.01, childrenCpuSeconds: 0.375, hwmKb: undefined, rssKb: undefined } },
  ];
  for (const { text, expect } of cases) {
    test(JSON.stringify(text), () => assert.deepEqual(parseReport(text), expect));
  }
  for (const text of ["", "BENCH_SECONDS=\n", "XBENCH_SECONDS=1\n", "BENCH_SECONDS=-1\n", "BENCH_SECONDS=1\nBENCH_CPU_SECONDS=-2\n", "BENCH_SECONDS=1\nBENCH_CHILDREN_CPU_SECONDS=-1\n"]) {
    test(`refuses ${JSON.stringify(text)}`, () => assert.throws(() => parseReport(text), /BENCH_(CHILDREN_)?(CPU_)?SECONDS/));
  }

  test("a traceback is shortened to its first and last lines", () => {
    assert.equal(compactError("run failed\nTraceback (most recent call last):\n  File x\nValueError: bad"), "run failed … ValueError: bad");
    assert.equal(compactError("one line"), "one line");
  });
});

describe("targets", () => {
  const cases = [
    { python: "3.12", program: "fib", config: "none", limit: 1.03 },
    { python: "3.13", program: "calls", config: "elsewhere", limit: 1.03 },
    { python: "3.12", program: "bigdict", config: "none", limit: 1.1 },
    { python: "3.11", program: "loop", config: "elsewhere", limit: 1.3 },
    { python: "3.11", program: "fib", config: "conditional", debugpyMedian: 300, limit: 30 },
    { python: "3.13", program: "loop", config: "conditional", debugpyMedian: 84, limit: 8.4 },
    { python: "3.12", program: "logpoint", config: "logpoint", limit: null },
    { python: "3.10", program: "fib", config: "none", limit: null },
    { python: "3.11", program: "exceptions", config: "none", limit: 1.05 },
    { python: "3.13", program: "exceptions", config: "elsewhere", limit: 1.05 },
  ];
  for (const { limit, ...cell } of cases) {
    test(`${cell.python} ${cell.program} ${cell.config}`, () => {
      const target = targetFor(cell);
      if (limit === null) assert.equal(target, null);
      else assert.ok(Math.abs(target.limit - limit) < 1e-9, `${target.limit} ≠ ${limit}`);
    });
  }

  test("a conditional cell without a debugpy figure has a target that cannot be judged", () => {
    assert.equal(targetFor({ python: "3.12", program: "fib", config: "conditional" }).limit, undefined);
  });

  test("quick sizes are the smallest and the hot sizes never exceed the full ones", () => {
    for (const program of PROGRAMS) {
      for (const config of program.configs) {
        assert.ok(sizeFor(program, config, true) <= sizeFor(program, config, false), `${program.name} ${config}`);
      }
      assert.ok(program.sizes.hot <= program.sizes.full, program.name);
    }
  });

  test("every configuration of every program has its breakpoints (markers exist)", () => {
    const generated = "/tmp/never-read";
    for (const program of PROGRAMS) {
      for (const config of program.configs) {
        if (program.generated && config === "conditional") continue; // its file is written per run
        const breakpoints = breakpointsFor(program, config, generated);
        assert.equal(breakpoints.length, config === "none" ? 0 : 1, `${program.name} ${config}`);
        for (const bp of breakpoints) assert.ok(bp.line > 0);
      }
    }
  });

  test("ratios are shown with sensible precision", () => {
    assert.equal(formatRatio(1.0234), "1.02×");
    assert.equal(formatRatio(12.34), "12.3×");
    assert.equal(formatRatio(285.4), "285×");
    assert.equal(formatRatio(undefined), "—");
  });
});

describe("framing", () => {
  test("Content-Length messages decode whatever the chunking", () => {
    const messages = [{ seq: 1, type: "event", event: "output", body: { output: "é€ \r\n\r\n" } }, { seq: 2, type: "response", success: true }];
    const bytes = Buffer.concat(messages.map(encodeMessage));
    for (const size of [1, 2, 7, 64, bytes.length]) {
      const decoder = new ContentLengthDecoder();
      const decoded = [];
      for (let i = 0; i < bytes.length; i += size) decoded.push(...decoder.push(bytes.subarray(i, i + size)));
      assert.deepEqual(decoded, messages, `chunks of ${size}`);
    }
  });

  test("a header without Content-Length is an error", () => {
    assert.throws(() => new ContentLengthDecoder().push(Buffer.from("Length: 3\r\n\r\n{}")), /without Content-Length/);
  });

  test("DP frames round-trip, several in one chunk", () => {
    const messages = [{ seq: 1, command: "threads" }, { seq: 2, command: "next", arguments: { threadId: 1 } }];
    const chunk = Buffer.concat(messages.map((m) => encodeFrame(2, m)));
    assert.deepEqual(decodeFrames(chunk), messages);
    assert.equal(chunk.toString("ascii", 0, 2), "DP");
  });
});

describe("generated programs are valid Python", () => {
  const python = process.env.DAPPER_BENCH_TEST_PYTHON ?? "python3";
  const check = (source, probe) => spawnSync(python, ["-c", `import sys\nsource = sys.stdin.read()\nnamespace = {}\nexec(compile(source, 'generated.py', 'exec'), namespace)\n${probe}`], { input: source, encoding: "utf8" });

  test("the big dict module has the entries asked for", (t) => {
    const result = check(bigTableSource(1234), "print(namespace['SIZE'])");
    if (result.error) return t.skip(`no ${python}`);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), "1234");
  });

  test("the inspection target has a frame with 1,000 locals", (t) => {
    const source = inspectTargetSource().replace(/\nouter\(\)\n$/, "\n");
    const result = check(source, "print(namespace['inner'].__code__.co_nlocals)");
    if (result.error) return t.skip(`no ${python}`);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(Number(result.stdout.trim()), LOCALS_COUNT);
  });
});

describe("report", () => {
  const cell = (python, program, config, plain, dapper, debugpy) => ({
    python,
    program,
    config,
    size: 1,
    seconds: { plain, dapper, debugpy },
    hwmKb: { plain: [1024], dapper: [2048], debugpy: [4096] },
    errors: {},
  });
  const cells = [
    cell("3.12", "fib", "none", [1, 1, 1], [1.01, 1.02, 1.0], [1.0, 1.0, 1.0]),
    cell("3.12", "loop", "none", [1, 1, 1], [1.5, 1.4, 1.6], [1.0, 1.0, 1.0]),
    cell("3.11", "fib", "conditional", [1, 1, 1], [20, 25, 30], [300, 300, 300]),
    cell("3.11", "calls", "conditional", [1, 1, 1], [40, 50, 60], [300, 300, 300]),
  ];
  const debuggers = ["dapper", "debugpy"];

  const verdicts = [
    { index: 0, met: true },
    { index: 1, met: false },
    { index: 2, met: true },
    { index: 3, met: false },
  ];
  for (const { index, met } of verdicts) {
    test(`${cells[index].python} ${cells[index].program} ${cells[index].config} is judged ${met ? "met" : "missed"}`, () => {
      assert.equal(ratioRow(cells[index], debuggers).met, met);
    });
  }

  test("missed targets are listed plainly, and the page says so", () => {
    const throughput = [{ engine: "WebAssembly", mix: "threads", framing: "messages", perSecond: 50000, microsPerForward: 40 }];
    const missed = missedTargets({ cells, latency: {}, throughput, debuggers });
    assert.equal(missed.length, 3, missed.join("\n"));
    assert.match(missed[0], /3\.12 loop.*Dapper 1\.50×, target ≤ 1\.03×/);
    assert.match(missed[1], /3\.11 calls.*Dapper 50\.0×/);
    assert.match(missed[2], /50,000 msg\/s, target ≥ 100,000/);
    const text = renderResults({
      machine: { date: "2026-01-01T00:00:00Z", cpu: "CPU", cores: 2, memoryGiB: "4.0", os: "Linux", node: "v20", dapper: "0.1.0" },
      versions: { pythons: ["3.11.7", "3.12.1"], debugpy: "1.8.22" },
      options: { quick: false, runs: 3, reps: 50 },
      cells,
      throughput,
      memory: {},
      latency: { "3.12": { dapper: { child: { unavailable: "not available yet: no startDebugging" } } } },
      debuggers,
    });
    assert.match(text, /\| 3\.12 \| loop \| no breakpoints \| 1 \| 1\.00 s \| — \| 1\.50× \/ 1\.40× \| 1\.00× \/ 1\.00× \| ≤ 1\.03× \| ✗ \|/);
    assert.match(text, /## Targets missed\n\n- 3\.12 loop/);
    assert.match(text, /not available yet/);
    assert.match(text, /CPU, 2 cores/);
    assert.match(text, /Runs per cell: 3; latency/);
  });

  test("the near-1× cells are shown again in CPU time, beside their noise", () => {
    const near = {
      ...cell("3.13", "threads", "none", [1, 1, 1], [1.2, 1.3, 1.1], [1.0, 1.0, 1.0]),
      cpuSeconds: { plain: [0.5, 0.5, 0.5], plainAgain: [0.5, 0.51, 0.49], dapper: [0.505, 0.51, 0.5], debugpy: [0.5, 0.5, 0.5] },
    };
    near.seconds.plainAgain = [1, 1.2, 0.9];
    const text = cpuTable([near, cells[2]], debuggers);
    assert.match(text, /\| 3\.13 \| threads \| no breakpoints \| 1\.00× \/ 0\.98× \| 1\.01× \/ 1\.00× \| 1\.00× \/ 1\.00× \| 3 \|/);
    assert.doesNotMatch(text, /conditional/);
    // Programs that print no CPU time give no table at all.
    assert.equal(cpuTable([{ ...near, cpuSeconds: { plain: [], plainAgain: [], dapper: [] } }], debuggers), "");
  });

  test("the page says which cells had more rounds", () => {
    const text = renderResults({
      machine: { date: "2026-01-01T00:00:00Z", cpu: "CPU", cores: 2, memoryGiB: "4.0", os: "Linux", node: "v20", dapper: "0.1.0" },
      versions: { pythons: ["3.12.1"], debugpy: "1.8.22" },
      options: { quick: false, runs: 5, nearRuns: 15, reps: 50 },
      cells: [],
      throughput: [],
      memory: {},
      latency: {},
      debuggers,
    });
    assert.match(text, /Runs per cell: 5; 15 where the target is within 5% of 1× \(plain, plain÷plain and Dapper; debugpy keeps 5\)/);
  });
});

describe("the restartable import's figures", () => {
  const line = JSON.stringify({ plain: [0.002, 0.0015, 2e-7, 0.0014, 0.001], "plain again": [0.002, 0.0016, 2e-7, 0.0014, 0.001], "restartable, warm cache": [0.0024, 0.0018, 2.1e-7, 0.0016, 0.0011], "restartable, empty cache": [0.09, 0.088, 2e-7, 0.07, 0.068], plain_cpu: 0.0015, noise: 1.03, stdlib: { difflib: [0.001, 0.00105, 2066], all: [0.004, 0.0046, 8109] } });
  test("reads the script's last line, in CPU time", () => {
    const result = parseImports(`Python 3.12, a table\n${line}\n`);
    assert.equal(result.ratio.toFixed(2), "1.20");
    assert.equal(result.addedMs.toFixed(2), "0.30");
    assert.equal(result.cold.cpu, 88);
    assert.equal(result.laterRatio.toFixed(2), "1.10");
    assert.equal(result.stdlib.find((each) => each.name === "difflib").ratio.toFixed(2), "1.05");
    assert.match(renderImports([{ python: "3.12", rounds: 15, result }]), /\| 3\.12 \| 15 \| 1\.50 ms \/ 2\.00 ms \| 1\.03× \| 1\.80 ms \/ 2\.40 ms \| 1\.20× \| 0\.300 ms \| 1\.00 ms \/ 1\.10 ms, 1\.10× \| 4\.00 ms \/ 4\.60 ms, 1\.15× \|.*✓ first, ✓ later, ✓ standard library \|/);
  });
  test("a ratio over the target is not met", () => {
    const slow = parseImports(line.replace("0.0018", "0.0019").replace("0.0046", "0.0049"));
    assert.match(renderImports([{ python: "3.12", rounds: 15, result: slow }]), /✗ first, ✓ later, ✗ standard library \|$/m);
  });
  test("a run without standard-library modules (--stdlib '') has no figure for them", () => {
    const result = parseImports(JSON.stringify({ ...JSON.parse(line), stdlib: {} }));
    assert.match(renderImports([{ python: "3.12", rounds: 15, result }]), /1\.10× \| — \|.*✓ first, ✓ later \|$/m);
  });
});

describe("a child's start", () => {
  test("reads the parent's line of figures, and takes a run's medians over its children", () => {
    const children = parseChildren("noise\nBENCH_CHILDREN=[[30, 25, 40], [20, 18, 31], [25, 21, 36]]\n");
    assert.deepEqual(runFigures(children), { firstLine: 25, firstLineCpu: 21, whole: 36 });
    assert.throws(() => parseChildren("nothing"), /printed no BENCH_CHILDREN/);
    assert.throws(() => parseChildren("BENCH_CHILDREN=[]"), /reported no child/);
  });
  const figure = (median, low = median, high = median) => ({ median, low, high });
  const row = (kind, added) => ({
    kind,
    plain: { firstLine: figure(12), firstLineCpu: figure(11.5), whole: figure(15) },
    added: { firstLine: figure(added), firstLineCpu: figure(added - 2), whole: figure(added + 1) },
    spread: { firstLine: figure(-0.25, -3, 4), firstLineCpu: figure(0), whole: figure(0) },
    engineMs: figure(7),
  });
  test("a session that adds more than the target to the first line misses it", () => {
    const text = renderChildStart([{ python: "3.12", rounds: 15, children: 10, rows: [row("code", 14.5), row("script", 15.5)] }]);
    assert.match(text, /\| 3\.12 \| `python -c` \| 15 \| 12\.0 ms \/ 11\.5 ms \| \+14\.5 ms \/ \+12\.5 ms \| \+15\.5 ms \| −0\.250 ms \(−3\.00 ms … \+4\.00 ms\) \| 7\.00 ms \| ≤ 15 ms \| ✓ \|/);
    assert.match(text, /\| 3\.12 \| script \| .* \| ✗ \|$/m);
  });
  test("a Python whose part failed says so", () => {
    assert.match(renderChildStart([{ python: "3.13", error: "no venv" }]), /\| 3\.13 \| — \| — \| _failed: no venv_ \|/);
    assert.equal(renderChildStart([]), "");
  });
});

describe("a child's start in instructions", () => {
  const PLAIN_CODE = "/py/bin/python -c import time; print(time.time(), time.process_time())";
  const DAPPER_CODE = "/py/bin/python -c from dapperdbg.launcher import run_as_main; run_as_main() --ipc unix:/tmp/s.sock --session-id s1.2 --code import time; print(time.time(), time.process_time())";
  const file = (command, total) => `version: 1\ncreator: callgrind-3.19.0\ncmd:  ${command}\npart: 1\nevents: Ir\nsummary: ${total}\n`;
  test("a process's command line and count are read from its file", () => {
    assert.deepEqual(parseCallgrindFile(file("/py/bin/python x.py", 123)), { command: "/py/bin/python x.py", instructions: 123 });
    assert.deepEqual(parseCallgrindFile("cmd: a\ntotals: 7\n"), { command: "a", instructions: 7 });
    assert.equal(parseCallgrindFile("cmd: a\n"), undefined);
  });
  test("children are told from the parent and the engine's probes by their command lines", () => {
    assert.equal(classifyChild(PLAIN_CODE), "plain");
    assert.equal(classifyChild("/py/bin/python /bench/programs/child_start_script.py"), "plain");
    assert.equal(classifyChild(DAPPER_CODE), "dapper");
    assert.equal(classifyChild("/py/bin/python /x/dapperdbg/launcher/__main__.py --ipc unix:/s --session-id s1 --program /bench/programs/child_start.py 5 code"), undefined);
    assert.equal(classifyChild("/py/bin/python /bench/programs/child_start.py 5 code"), undefined);
    assert.equal(classifyChild("/py/bin/python -S -c import sys"), undefined);
  });
  test("a child's first line is its first part, its whole run every part", () => {
    const counts = countsIn([
      { name: "cg.10.1", text: file(PLAIN_CODE, 30) },
      { name: "cg.10", text: file(PLAIN_CODE, 5) },
      { name: "cg.11.1", text: file(DAPPER_CODE, 70) },
      { name: "cg.11", text: file(DAPPER_CODE, 6) },
      // A child that never reached its first line, and the parent, count for nothing.
      { name: "cg.12", text: file(DAPPER_CODE, 9) },
      { name: "cg.13", text: file("/py/bin/python /bench/programs/child_start.py 5 code", 50) },
    ]);
    assert.deepEqual(counts, { plain: [{ firstLine: 30, whole: 35 }], dapper: [{ firstLine: 70, whole: 76 }] });
  });
  test("the table gives what a session adds, and a failed Python its reason", () => {
    const figure = (median) => ({ median, low: median, high: median });
    const text = renderChildInstructions([
      { python: "3.12", children: 5, rows: [{ kind: "code", plain: figure(34e6), dapper: figure(69e6), plainWhole: figure(42e6), dapperWhole: figure(77.5e6) }] },
      { python: "3.13", error: "valgrind is not installed" },
    ]);
    assert.match(text, /\| 3\.12 \| `python -c` \| 34\.00 M \(34\.00 M … 34\.00 M\) \| 69\.00 M \(69\.00 M … 69\.00 M\) \| \+35\.00 M \| 2\.03× \| \+35\.50 M \|/);
    assert.match(text, /\| 3\.13 \| — \| _failed: valgrind is not installed_ \|/);
    assert.equal(renderChildInstructions([]), "");
  });
});
