// Tests of the suite part's pure pieces: the figures from its rounds, and its section of
// RESULTS.md. Run: node --test bench/test/
import assert from "node:assert/strict";
import { test } from "node:test";
import { renderSuite, summarizeSuite } from "../lib/suite.mjs";

// Three rounds of a 2-child suite: seconds of wall and CPU, the engine's CPU.
const rounds = [
  { plain: { wall: 0.4, cpu: 0.3 }, dapper: { wall: 0.6, cpu: 0.45, engineCpu: 0.02 }, plainAgain: { wall: 0.44, cpu: 0.3 } },
  { plain: { wall: 0.5, cpu: 0.4 }, dapper: { wall: 0.6, cpu: 0.5, engineCpu: 0.04 }, plainAgain: { wall: 0.5, cpu: 0.4 } },
  { plain: { wall: 0.4, cpu: 0.32 }, dapper: { wall: 0.56, cpu: 0.4, engineCpu: 0.03 }, plainAgain: { wall: 0.36, cpu: 0.32 } },
];

test("the figures are medians of the paired ratios, per child where added", () => {
  const summary = summarizeSuite(rounds, 2);
  const close = (actual, expected) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} is not ${expected}`);
  assert.equal(summary.rounds, 3);
  close(summary.plain.wall, 0.4);
  close(summary.dapper.wall, 0.6);
  close(summary.ratio.wall.median, 1.4); // 1.5, 1.2, 1.4
  close(summary.ratio.wall.low, 1.2);
  close(summary.ratio.wall.high, 1.5);
  close(summary.ratio.cpu.median, 1.25); // 1.5, 1.25, 1.25
  close(summary.spread.wall.median, 1); // 1.1, 1, 0.9
  close(summary.addedPerChild.wall, 0.08); // 0.1, 0.05, 0.08
  close(summary.engineCpuPerChild, 0.015);
});

test("the section shows wall and CPU, the spread and the verdict", () => {
  const text = renderSuite({ python: "3.12", ...summarizeSuite(rounds, 2) });
  assert.match(text, /3 paired, interleaved rounds/);
  assert.match(text, /\| 400\.0 ms \/ 320\.0 ms \| 600\.0 ms \/ 450\.0 ms \| 1\.40× \(1\.20–1\.50\) \/ 1\.25× \(1\.25–1\.50\) \| 1\.00× \(0\.90–1\.10\) \/ 1\.00× \(1\.00–1\.00\) \| 80\.0 ms \/ 50\.0 ms \| 15\.0 ms \| ≤ 1\.3× wall \| ✗ \|/);
});

test("a failed part says why", () => {
  assert.match(renderSuite({ error: "the Dapper server did not listen" }), /_Failed: the Dapper server did not listen_/);
  assert.equal(renderSuite(undefined), "");
});
