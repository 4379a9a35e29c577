// The README's two commands on a machine that lacks a prerequisite, and the rule that lets
// them run first on a fresh clone: no script loads an npm package before installing it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { missingPrerequisites } from "../prerequisites.mjs";

const scripts = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const root = path.dirname(scripts);
const everything = { nodeVersion: "20.11.0", has: () => true, pythons: () => [{ version: "3.12" }] };

test("nothing is reported when everything is there", () => {
  assert.deepEqual(missingPrerequisites(everything), []);
});

test("each missing prerequisite is one line that says how to get it", () => {
  const [node] = missingPrerequisites({ ...everything, nodeVersion: "18.19.1" });
  assert.match(node, /^Node\.js 18\.19\.1 is too old: Dapper needs Node\.js 20 or newer/);
  const [cargo] = missingPrerequisites({ ...everything, has: (command) => command !== "cargo" });
  assert.match(cargo, /^cargo was not found: install Rust with rustup/);
  const [rustup] = missingPrerequisites({ ...everything, has: (command) => command !== "rustup" });
  assert.match(rustup, /^rustup was not found/);
  const [python] = missingPrerequisites({ ...everything, pythons: () => [] });
  assert.match(python, /^No CPython 3\.9 or newer was found/);
  for (const line of [node, cargo, rustup, python]) assert.doesNotMatch(line, /\n/);
});

for (const command of ["start", "test"]) {
  test(`npm ${command} on a machine with only Node.js names what is missing and does nothing else`, () => {
    const bin = mkdtempSync(path.join(tmpdir(), "dapper-prereq-"));
    try {
      symlinkSync(process.execPath, path.join(bin, "node"));
      const result = spawnSync(process.execPath, [path.join(scripts, `${command}.mjs`)], {
        cwd: root,
        encoding: "utf8",
        env: { PATH: bin, HOME: bin },
        timeout: 60_000,
      });
      assert.equal(result.status, 1, result.stderr);
      assert.equal(result.stdout, "", "nothing was started");
      const lines = result.stderr.trim().split("\n");
      assert.equal(lines.length, 2, result.stderr);
      assert.match(lines[0], new RegExp(`^npm ${command}: cargo was not found`));
      assert.match(lines[1], new RegExp(`^npm ${command}: No CPython 3\\.9 or newer was found`));
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
}

test("no script imports an npm package at load time (npm start and npm test install them first)", () => {
  const files = readdirSync(scripts).filter((name) => name.endsWith(".mjs"));
  assert.ok(files.includes("start.mjs") && files.includes("test.mjs"));
  for (const name of files) {
    const source = readFileSync(path.join(scripts, name), "utf8");
    for (const [, specifier] of source.matchAll(/^\s*import\s[^;]*?from\s+"([^"]+)"/gm)) {
      assert.ok(specifier.startsWith("node:") || specifier.startsWith("./"), `${name} imports ${specifier} at load time`);
    }
    // A require() at the top level runs at load time too: only inside functions.
    for (const [line] of source.matchAll(/^\S.*\brequire\(.*$/gm)) assert.fail(`${name} requires at load time: ${line}`);
  }
});
