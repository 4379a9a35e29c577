// Which interpreters the "Select Interpreter" list offers without the Python extension,
// in which order, and where a choice is written.
import assert from "assert/strict";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { after, test } from "node:test";
import { byVersionDescending, discoverInterpreters, isInterpreterName, placesOf, settingScope } from "./interpreterDiscovery";

const posix = process.platform !== "win32";
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "dapper-discovery-"));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

function file(relative: string, mode = 0o755): string {
  const full = path.join(scratch, relative);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  fs.writeFileSync(full, "#!/bin/sh\n", { mode });
  return full;
}

test("interpreters on PATH and in pyenv, each file once, in the order a user prefers", { skip: !posix && "POSIX file names" }, async () => {
  const bin = path.join(scratch, "bin");
  const local = path.join(scratch, "local", "bin");
  file("bin/python3.12");
  fs.symlinkSync(path.join(bin, "python3.12"), path.join(bin, "python3")); // the same file under another name
  file("bin/python3.9");
  file("bin/python");
  file("bin/python3-config"); // not an interpreter
  file("bin/python3.11", 0o644); // not executable
  file("local/bin/python3.13");
  file("pyenv/versions/3.10.4/bin/python3");
  file("pyenv/versions/3.9.1/bin/python3");
  fs.mkdirSync(path.join(scratch, "pyenv", "versions", "broken"), { recursive: true }); // no bin/python3

  const found = await discoverInterpreters({ pathVariable: [local, "", bin, path.join(scratch, "missing")].join(":"), pyenvRoot: path.join(scratch, "pyenv"), platform: "linux" });
  assert.deepEqual(
    found.map((full) => path.relative(scratch, full)),
    ["local/bin/python3.13", "bin/python3.12", "bin/python3.9", "bin/python", "pyenv/versions/3.10.4/bin/python3", "pyenv/versions/3.9.1/bin/python3"],
  );
});

test("nothing anywhere finds nothing", async () => {
  assert.deepEqual(await discoverInterpreters({ pathVariable: "", pyenvRoot: path.join(scratch, "none"), platform: process.platform }), []);
});

const names: [string, NodeJS.Platform, boolean][] = [
  ["python", "linux", true],
  ["python3", "linux", true],
  ["python3.12", "darwin", true],
  ["python3-config", "linux", false],
  ["python3.12-dbg-config", "linux", false],
  ["pythonw", "linux", false],
  ["python2.7", "linux", false],
  ["python.exe", "linux", false],
  ["python.exe", "win32", true],
  ["Python3.EXE", "win32", true],
  ["python", "win32", false],
];
for (const [name, platform, expected] of names) {
  test(`${name} on ${platform} is ${expected ? "" : "not "}an interpreter name`, () => {
    assert.equal(isInterpreterName(name, platform), expected);
  });
}

test("names sort by their version numbers, highest first", () => {
  assert.deepEqual(["python", "python3", "python3.9", "python3.12", "python3.10"].sort(byVersionDescending), ["python3.12", "python3.10", "python3.9", "python3", "python"]);
  assert.deepEqual(["3.9.1", "miniconda3-latest", "3.10.4", "3.10.12"].sort(byVersionDescending), ["3.10.12", "3.10.4", "3.9.1", "miniconda3-latest"]);
});

test("pyenv's root comes from PYENV_ROOT, else ~/.pyenv; PATH from PATH or Path", () => {
  assert.deepEqual(placesOf({ PATH: "/a:/b", PYENV_ROOT: "/opt/pyenv" }, "/home/u", "linux"), { pathVariable: "/a:/b", pyenvRoot: "/opt/pyenv", platform: "linux" });
  assert.deepEqual(placesOf({ Path: "C:\\py" }, "/home/u", "linux"), { pathVariable: "C:\\py", pyenvRoot: path.join("/home/u", ".pyenv"), platform: "linux" });
});

const scopes: [Parameters<typeof settingScope>[0], ReturnType<typeof settingScope>][] = [
  [undefined, "global"],
  [{}, "global"],
  [{ workspaceValue: "/ws/python" }, "workspace"],
  [{ workspaceValue: "/ws/python", workspaceFolderValue: "/f/python" }, "workspaceFolder"],
  [{ workspaceValue: "" }, "workspace"],
];
for (const [inspection, expected] of scopes) {
  test(`a chosen interpreter with dapper.python set as ${JSON.stringify(inspection)} is written to the ${expected} settings`, () => {
    assert.equal(settingScope(inspection), expected);
  });
}
