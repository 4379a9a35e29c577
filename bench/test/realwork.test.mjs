// Tests of the real-work part's pure pieces: what realwork.py prints, /proc's stat line
// (procstat.mjs), the figures of a module from its rounds and the section of RESULTS.md. Run: node --test bench/test/
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseOptions } from "../lib/options.mjs";
import { parseProcStat } from "../lib/procstat.mjs";
import { MODULES, parseRealWork, PLANTED, renderRealWork, summarizeModule } from "../lib/realwork.mjs";

const printed = (lines) => lines.join("\n") + "\n";

describe("what realwork.py prints", () => {
  const cases = [
    {
      name: "3.12's regrtest, success",
      text: printed(["0:00:00 load avg: 1.2 Run 1 test sequentially", "== Tests result: SUCCESS ==", "", "Total tests: run=69", "Result: SUCCESS", "BENCH_SECONDS=0.25", "BENCH_CPU_SECONDS=0.2", "BENCH_CHILDREN_CPU_SECONDS=0.0", "BENCH_EXIT=0"]),
      expect: { seconds: 0.25, cpuSeconds: 0.2, childrenCpuSeconds: 0, exit: "0", verdict: "SUCCESS" },
    },
    {
      name: "older regrtest's verdict line, a failure",
      text: printed(["Tests result: FAILURE", "BENCH_SECONDS=1e-1", "BENCH_CPU_SECONDS=3.5", "BENCH_CHILDREN_CPU_SECONDS=1.25", "BENCH_EXIT=2"]),
      expect: { seconds: 0.1, cpuSeconds: 3.5, childrenCpuSeconds: 1.25, exit: "2", verdict: "FAILURE" },
    },
    {
      name: "the last verdict wins (a re-run's)",
      text: printed(["Result: FAILURE", "Result: FAILURE then SUCCESS", "BENCH_SECONDS=1", "BENCH_CPU_SECONDS=1", "BENCH_CHILDREN_CPU_SECONDS=0", "BENCH_EXIT=0"]),
      expect: { verdict: "FAILURE then SUCCESS" },
    },
    {
      name: "no verdict (killed before regrtest's summary)",
      text: printed(["BENCH_SECONDS=1", "BENCH_CPU_SECONDS=1", "BENCH_CHILDREN_CPU_SECONDS=0"]),
      expect: { verdict: undefined, exit: undefined },
    },
  ];
  for (const { name, text, expect } of cases) {
    test(name, () => {
      const parsed = parseRealWork(text);
      for (const [key, value] of Object.entries(expect)) assert.deepEqual(parsed[key], value, key);
    });
  }

  const errors = [
    { name: "no timing line", text: "Result: SUCCESS\n", message: /no BENCH_SECONDS/ },
    { name: "no CPU line", text: "BENCH_SECONDS=1\n", message: /no BENCH_CPU_SECONDS/ },
    { name: "a negative duration", text: "BENCH_SECONDS=-1\nBENCH_CPU_SECONDS=1\nBENCH_CHILDREN_CPU_SECONDS=0\n", message: /not a duration/ },
  ];
  for (const { name, text, message } of errors) test(`refuses ${name}`, () => assert.throws(() => parseRealWork(text), message));
});

describe("/proc/<pid>/stat", () => {
  const cases = [
    { name: "a plain command name", text: "4242 (node) S 1 4242 4242 0 -1 4194560 2000 0 0 0 250 50 3 4 20 0 11 0 100 0 0", cpu: 3 },
    { name: "a command name with spaces and parentheses", text: "77 (a (b) c) R 1 77 77 0 -1 0 0 0 0 0 12 8 0 0 20 0 1 0 1 0 0", cpu: 0.2 },
  ];
  for (const { name, text, cpu } of cases) test(name, () => assert.equal(parseProcStat(text, 100), cpu));
});

test("the part is named on the command line", () => {
  assert.deepEqual(parseOptions(["--only", "realwork"], { programNames: [] }).only, ["realwork"]);
});

test("at least ten modules, each breakpoint target a module:qualified name", () => {
  assert.ok(MODULES.length >= 10);
  for (const target of PLANTED) assert.match(target, /^[\w.]+:[\w.]+$/);
});

const run = (wall, cpu, extra = {}) => ({ wall, cpuSeconds: cpu, verdict: "SUCCESS", stops: 0, ...extra });

describe("a module's figures from its rounds", () => {
  const rounds = [
    { plain: run(1, 0.8), plainAgain: run(1.1, 0.8), dapper: run(1.5, 1.2, { children: 4, adapterCpu: 0.2 }), debugpy: run(5, 2, { children: 2, adapterCpu: 0.5 }) },
    { plain: run(2, 1), plainAgain: run(2, 1.1), dapper: run(3.6, 1.5, { children: 4, adapterCpu: 0.3 }), debugpy: { error: "timed out" } },
    { plain: run(1, 1), plainAgain: run(0.9, 1), dapper: run(1.7, 1.4, { children: 4, adapterCpu: 0.4, stops: 1, verdict: "FAILURE" }), debugpy: run(6, 3, { children: 2, adapterCpu: 0.7 }) },
  ];
  const row = summarizeModule("test_x", rounds, ["dapper", "debugpy"]);

  test("ratios are medians of the ratios within each round", () => {
    // Dapper: 1.5, 1.8, 1.7 → 1.7; not the ratio of the medians (1.7 / 1 = 1.7 here by chance, so the CPU is checked too).
    assert.equal(row.dapper.wallRatio, 1.7);
    // CPU: 1.5, 1.5, 1.4 → 1.5
    assert.ok(Math.abs(row.dapper.cpuRatio - 1.5) < 1e-9);
    assert.equal(row.plain.wall, 1);
  });

  test("a failed run pairs with nothing and is reported", () => {
    assert.equal(row.debugpy.measured, 2);
    assert.equal(row.debugpy.wallRatio, 5.5);
    assert.deepEqual(row.debugpy.failed, ["timed out"]);
  });

  test("plain÷plain spread: median and range", () => {
    assert.equal(row.spread.wall.median, 1);
    assert.equal(row.spread.wall.min, 0.9);
    assert.equal(row.spread.wall.max, 1.1);
  });

  test("children, stops, adapter CPU and regrtest's verdicts", () => {
    assert.equal(row.dapper.children, 4);
    assert.equal(row.dapper.stops, 1);
    assert.equal(row.dapper.adapterCpu, 0.3);
    assert.deepEqual(row.dapper.verdicts, ["SUCCESS", "FAILURE"]);
  });

  test("the section of RESULTS.md", () => {
    const text = renderRealWork([{ python: "3.12", rounds: 3, breakpoints: 20, debuggers: ["dapper", "debugpy"], rows: [row] }, { python: "3.13", error: "no Lib/test" }]);
    assert.match(text, /^## Real work: CPython's test modules$/m);
    assert.match(text, /\*\*Python 3\.12\*\*, 3 rounds per module, 20 breakpoints\./);
    const line = text.split("\n").find((l) => l.startsWith("| test_x "));
    const cells = line.split(" | ");
    assert.equal(cells[1], "4 / 2");
    assert.equal(cells[2], "1.00 s / 1.00 s");
    assert.equal(cells[3], "1.70× / 1.50×");
    assert.equal(cells[4], "5.50× / 2.75×");
    assert.match(cells[5], /^1\.00× \(0\.90–1\.10\) \/ /);
    assert.equal(cells[6], "0.30 s / 0.60 s");
    assert.match(cells[7], /^✓ \(Dapper stopped 1 times; regrtest said FAILURE under Dapper, SUCCESS plain; debugpy: 1 runs failed \(timed out\)\) \|$/);
    assert.match(text, /Python 3\.13: _failed: no Lib\/test_/);
  });

  test("nothing when the part did not run", () => assert.equal(renderRealWork([]), ""));
});
