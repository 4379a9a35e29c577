import assert from "assert/strict";
import * as fs from "fs";
import { test } from "node:test";
import * as os from "os";
import * as path from "path";
import { findExtensionRoot, pythonPackageDirOf } from "./extensionRoot";

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "dapper-root-test-"));
test.after(() => fs.rmSync(scratch, { recursive: true, force: true }));

// The layout: an unrelated package.json above Dapper's, and Dapper's own build directories.
fs.writeFileSync(path.join(scratch, "package.json"), JSON.stringify({ name: "someone-else" }));
const root = path.join(scratch, "dapper-root");
for (const dir of ["dist", "out/extension/src/host", "extension/python"]) fs.mkdirSync(path.join(root, dir), { recursive: true });
fs.writeFileSync(path.join(root, "package.json"), JSON.stringify({ name: "dapper", version: "4.5.6" }));

// Each case: where the running script is, and the root expected (undefined: none).
const cases: [string, string | undefined][] = [
  ["dist (the bundle, in the repository and in the .vsix)", path.join(root, "dist")],
  ["out/extension/src/host (the compiled tests)", path.join(root, "out", "extension", "src", "host")],
  ["the root itself", root],
  ["outside any Dapper package", scratch],
];

for (const [where, start] of cases) {
  test(`the extension root is found from ${where}`, () => {
    const found = findExtensionRoot(start);
    if (start === scratch) assert.equal(found, undefined);
    else assert.deepEqual(found, { directory: root, version: "4.5.6" });
  });
}

test("the Python package sits in extension/python below the root", () => {
  assert.equal(pythonPackageDirOf(root), path.join(root, "extension", "python"));
});
