// Tests of the benchmark's harness against the real pieces it drives, kept fast: the
// WebAssembly engine through the scripted session, and a benchmark program run plain.
// Run: node --test bench/test/
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { MIXES, measureWasmThroughput } from "../lib/engine-throughput.mjs";
import { runPlain } from "../lib/measure.mjs";
import { programsDir, root } from "../lib/paths.mjs";

const wasmBuilt = existsSync(path.join(root, "wasm-pkg", "dapper_core.js"));

describe("the scripted session through the WebAssembly engine", () => {
  const cases = [
    { mix: "threads", framing: "messages", rounds: 10, messages: 20 },
    { mix: "threads", framing: "contentLength", rounds: 10, messages: 20 },
    // Four requests, four responses and one output event a round.
    { mix: "stopped", framing: "messages", rounds: 10, messages: 90 },
    { mix: "stopped", framing: "contentLength", rounds: 3, messages: 27 },
  ];
  for (const { mix, framing, rounds, messages } of cases) {
    test(`${mix} mix, ${framing} client: every message is counted and delivered`, { skip: !wasmBuilt && "wasm-pkg/ is not built" }, () => {
      const result = measureWasmThroughput({ mix, framing, rounds });
      assert.equal(result.messages, messages);
      assert.ok(result.perSecond > 0 && Number.isFinite(result.perSecond));
      assert.ok(result.bytesPerMessage > 50, `${result.bytesPerMessage} bytes a message`);
    });
  }

  test("an unknown mix is refused", () => {
    assert.throws(() => measureWasmThroughput({ mix: "nope", framing: "messages", rounds: 1 }), /unknown message mix "nope"/);
    assert.deepEqual(Object.keys(MIXES), ["threads", "stopped"]);
  });
});

describe("a benchmark program run plain", () => {
  const python = process.env.DAPPER_BENCH_TEST_PYTHON ?? "python3";
  const cases = [
    { file: "fib.py", args: ["10"] },
    { file: "loop.py", args: ["2"] },
    { file: "calls.py", args: ["100"] },
    { file: "threads.py", args: ["100"] },
    { file: "logpoint.py", args: ["10"] },
    { file: "deepcopy.py", args: ["2"] },
  ];
  for (const { file, args } of cases) {
    test(`${file} reports its time and memory`, async () => {
      const report = await runPlain({ python, program: path.join(programsDir, file), args, timeoutMs: 20000 });
      assert.ok(report.seconds > 0 && report.seconds < 20, `${report.seconds} s`);
      assert.ok(report.cpuSeconds >= 0 && report.cpuSeconds < 20, `${report.cpuSeconds} s of CPU`);
      if (process.platform === "linux") assert.ok(report.hwmKb > 1000, `${report.hwmKb} KiB`);
    });
  }

  test("a program that fails is an error that says how", async () => {
    await assert.rejects(runPlain({ python, program: path.join(programsDir, "fib.py"), args: ["not-a-number"], timeoutMs: 20000 }), /exited with 1: .*ValueError/s);
  });
});
