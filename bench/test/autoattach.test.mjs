// Tests of the auto-attach bootstrap's measurement (bench/lib/autoattach.mjs): reading
// `-X importtime`, the report's section, and one real measurement.
// Run: node --test bench/test/autoattach.test.mjs
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, test } from "node:test";
import { measureAutoAttach, renderAutoAttach, sitecustomizeMicros } from "../lib/autoattach.mjs";

describe("sitecustomize's import time", () => {
  const cases = [
    { name: "the bootstrap, chaining to another", text: "import time:       152 |        152 |   certifi\nimport time:        38 |         38 |     sitecustomize\nimport time:      1097 |       1292 |   sitecustomize\n", micros: 1292 },
    { name: "the interpreter's own", text: "import time:        32 |         32 |   sitecustomize\nimport time:       464 |       1514 | site\n", micros: 32 },
    { name: "none", text: "import time:       464 |       1514 | site\n", micros: undefined },
  ];
  for (const { name, text, micros } of cases) test(name, () => assert.equal(sitecustomizeMicros(text), micros));
});

describe("the report's section", () => {
  test("is empty when the part did not run", () => assert.equal(renderAutoAttach("3.12", undefined), ""));
  test("says so when the part failed", () => assert.match(renderAutoAttach("3.12", { error: "boom" }), /_Failed: boom_/));
  test("has the figures", () => {
    const text = renderAutoAttach("3.12", { runs: 40, plainMs: 11.2, terminalMs: 11.6, extraMs: 0.41, goneExtraMs: 1.2, importMicros: { plain: 32, terminal: 300 } });
    assert.match(text, /## Terminal auto-attach's bootstrap \(Python 3\.12\)/);
    assert.match(text, /paired difference, median \| 0\.410 ms \|/);
    assert.match(text, /\| 300 µs \(32 µs\) \|/);
  });
});

test("a real measurement with this machine's python3: the bootstrap is imported and costs something", async () => {
  const python = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();
  const result = await measureAutoAttach({ python, runs: 2 });
  assert.equal(result.error, undefined, result.error);
  assert.ok(result.importMicros.terminal > result.importMicros.plain, JSON.stringify(result));
  for (const key of ["plainMs", "terminalMs", "extraMs", "goneExtraMs"]) assert.ok(Number.isFinite(result[key]), `${key}: ${JSON.stringify(result)}`);
});
