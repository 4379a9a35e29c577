// Tests of the activation measurement (bench/lib/activation.mjs): the stand-in `vscode`
// module, the parsing and summary of samples, the report section, and real child runs
// against small bundles and against dist/extension.js.
// Run: node --test bench/test/activation.test.mjs
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { createVscodeStandIn, DEFAULT_BUNDLE, measureActivation, parseSample, renderActivation, summarizeActivation, vscodeApiNames } from "../lib/activation.mjs";

const scratch = mkdtempSync(path.join(tmpdir(), "dapper-activation-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes an extension bundle (and its package.json one folder up, as in the .vsix) and returns its path. */
function bundle(name, source) {
  const dir = path.join(scratch, name);
  mkdirSync(path.join(dir, "dist"), { recursive: true });
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, version: "1.2.3" }));
  const file = path.join(dir, "dist", "extension.js");
  writeFileSync(file, source);
  return file;
}

describe("the stand-in vscode module", () => {
  test("has the API's names as own properties, so bundlers' interop copies them", () => {
    const { vscode } = createVscodeStandIn(["window", "debug", "Uri"]);
    assert.deepEqual(Object.keys(vscode), ["window", "debug", "Uri"]);
  });

  test("records calls and constructions by their path, and answers settings with their defaults", async () => {
    const { vscode, used } = createVscodeStandIn(["window", "workspace", "DebugAdapterInlineImplementation"]);
    const channel = vscode.window.createOutputChannel("Dapper");
    channel.appendLine("hello");
    channel.dispose();
    assert.equal(vscode.workspace.getConfiguration("dapper").get("logLevel", "info"), "info");
    new vscode.DebugAdapterInlineImplementation({});
    // A stand-in is not a promise: awaiting one gives it back instead of hanging.
    assert.equal(await vscode.window, vscode.window);
    assert.deepEqual(used, ["window.createOutputChannel", "window.createOutputChannel().appendLine", "workspace.getConfiguration", "new DebugAdapterInlineImplementation"]);
  });

  test("its names come from @types/vscode, with a fallback when that is missing", () => {
    const names = vscodeApiNames();
    for (const name of ["window", "workspace", "debug", "commands", "Uri", "DebugAdapterInlineImplementation", "DebugConfigurationProviderTriggerKind"]) {
      assert.ok(names.includes(name), `${name} is among ${names.length} names`);
    }
    assert.ok(vscodeApiNames(path.join(scratch, "missing.d.ts")).includes("debug"));
  });
});

describe("samples", () => {
  const cases = [
    { stdout: 'noise\n{"loadMs":5,"activateMs":1,"totalMs":6,"subscriptions":2,"used":[]}\n', expected: { loadMs: 5, activateMs: 1, totalMs: 6, subscriptions: 2, used: [] } },
    { stdout: "", error: /printed no sample/ },
    { stdout: '{"loadMs":5,"activateMs":null,"totalMs":6}\n', error: /has no activateMs/ },
  ];
  for (const c of cases) {
    test(`the output ${JSON.stringify(c.stdout.slice(0, 40))} ${c.error ? "is refused" : "is read"}`, () => {
      if (c.error) assert.throws(() => parseSample(c.stdout), c.error);
      else assert.deepEqual(parseSample(c.stdout), c.expected);
    });
  }

  test("the summary takes medians and extremes", () => {
    const samples = [6, 2, 4, 100, 3].map((totalMs) => ({ totalMs, loadMs: totalMs - 1, activateMs: 1, subscriptions: 9 }));
    const summary = summarizeActivation(samples, { bundleBytes: 2048, wasmBytes: 4096 });
    assert.deepEqual(summary, { runs: 5, totalMs: { median: 4, min: 2, max: 100 }, loadMs: 3, activateMs: 1, subscriptions: 9, used: undefined, sizes: { bundleBytes: 2048, wasmBytes: 4096 } });
  });
});

describe("the report section", () => {
  test("is empty when the part did not run", () => assert.equal(renderActivation(undefined), ""));
  test("says so when the part failed", () => assert.match(renderActivation({ error: "boom" }), /## Extension activation\n\n_Failed: boom_/));
  test("names the method and shows the figures", () => {
    const text = renderActivation(summarizeActivation([{ totalMs: 7, loadMs: 6, activateMs: 1 }], { bundleBytes: 57_344, wasmBytes: undefined }));
    assert.match(text, /stand-in `vscode` module/);
    assert.match(text, /\| load dist\/extension.js \+ activate\(\), median \(min \/ max\) \| 7\.00 ms \(7\.00 ms \/ 7\.00 ms\) \|/);
    assert.match(text, /\| bundle dist\/extension.js \| 56 KiB \|/);
    assert.match(text, /\(loaded at the first session, not at activation\) \| — \|/);
  });
});

describe("child runs", () => {
  test("a bundle that registers a command is measured in fresh processes", () => {
    const file = bundle(
      "good",
      'const vscode = require("vscode");\nexports.activate = (context) => { context.subscriptions.push(vscode.commands.registerCommand("x.y", () => 1)); };\n',
    );
    const result = measureActivation({ runs: 2, bundle: file });
    assert.equal(result.error, undefined, result.error);
    assert.equal(result.runs, 2);
    assert.equal(result.subscriptions, 1);
    assert.ok(result.totalMs.median > 0 && result.totalMs.median >= result.activateMs);
  });

  test("a bundle whose activate() throws is reported as a failure with its error", () => {
    const file = bundle("bad", 'exports.activate = () => { throw new Error("activation exploded"); };\n');
    assert.match(measureActivation({ runs: 1, bundle: file }).error, /activation exploded/);
  });

  test("a missing bundle is reported", () => {
    assert.match(measureActivation({ runs: 1, bundle: path.join(scratch, "none", "extension.js") }).error, /does not exist; run `npm run build`/);
  });

  test("dist/extension.js activates: the adapter factory, the configuration providers and the commands", { skip: !existsSync(DEFAULT_BUNDLE) && "dist/extension.js is not built" }, () => {
    const result = measureActivation({ runs: 1 });
    assert.equal(result.error, undefined, result.error);
    for (const call of ["debug.registerDebugAdapterDescriptorFactory", "debug.registerDebugConfigurationProvider", "commands.registerCommand"]) {
      assert.ok(result.used.includes(call), `activate() calls ${call}: ${result.used.join(", ")}`);
    }
    assert.ok(result.subscriptions >= result.used.filter((call) => call.startsWith("debug.register")).length, "each registration is kept for disposal");
  });
});
