// Which interpreters the "Select Interpreter" list offers without the Python extension,
// in which order, and where a choice is written.
import assert from "assert/strict";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { after, test } from "node:test";
import { byVersionDescending, candidateInterpreters, discoverInterpreters, isInterpreterName, MACOS_FRAMEWORK_VERSIONS, parsePyLauncherList, parseRegistryPythons, placesOf, settingScope } from "./interpreterDiscovery";

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
  assert.deepEqual(await discoverInterpreters({ pathVariable: "", pyenvRoot: path.join(scratch, "none"), platform: process.platform, registered: [] }), []);
});

/** A file system of folder listings, for the candidates of another platform. */
const listings = (folders: Record<string, string[]>) => async (dir: string) => folders[dir] ?? [];

test("Windows: python.exe on PATH (split on ;), pyenv-win's versions, then the registered ones, in that order", async () => {
  const places = placesOf({ Path: "C:\\Python313;;C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps" }, "C:\\Users\\me", "win32");
  assert.equal(places.pyenvRoot, "C:\\Users\\me\\.pyenv\\pyenv-win");
  const candidates = await candidateInterpreters(
    { ...places, registered: ["C:\\Python39\\python.exe"] },
    listings({
      "C:\\Python313": ["python.exe", "pythonw.exe", "python3.dll", "Python3.EXE"],
      "C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps": ["python.exe", "winget.exe"],
      "C:\\Users\\me\\.pyenv\\pyenv-win\\versions": ["3.10.11", "3.12.1"],
    }),
  );
  assert.deepEqual(candidates, [
    "C:\\Python313\\Python3.EXE",
    "C:\\Python313\\python.exe",
    "C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps\\python.exe",
    "C:\\Users\\me\\.pyenv\\pyenv-win\\versions\\3.12.1\\python.exe",
    "C:\\Users\\me\\.pyenv\\pyenv-win\\versions\\3.10.11\\python.exe",
    "C:\\Python39\\python.exe",
  ]);
});

test("macOS: PATH (split on :), pyenv, then python.org's framework builds newest first, without Current", async () => {
  const places = placesOf({ PATH: "/opt/homebrew/bin:/usr/bin" }, "/Users/me", "darwin");
  assert.equal(places.frameworkVersions, MACOS_FRAMEWORK_VERSIONS);
  const candidates = await candidateInterpreters(
    places,
    listings({
      "/opt/homebrew/bin": ["python3", "python3.13", "pip3"],
      "/usr/bin": ["python3"],
      "/Users/me/.pyenv/versions": ["3.11.9"],
      [MACOS_FRAMEWORK_VERSIONS]: ["3.9", "Current", "3.12"],
    }),
  );
  assert.deepEqual(candidates, [
    "/opt/homebrew/bin/python3.13",
    "/opt/homebrew/bin/python3",
    "/usr/bin/python3",
    "/Users/me/.pyenv/versions/3.11.9/bin/python3",
    `${MACOS_FRAMEWORK_VERSIONS}/3.12/bin/python3`,
    `${MACOS_FRAMEWORK_VERSIONS}/3.9/bin/python3`,
  ]);
});

test("Linux: neither framework builds nor a registry", async () => {
  const places = placesOf({ PATH: "/usr/bin" }, "/home/me", "linux");
  assert.deepEqual(await candidateInterpreters(places, listings({ "/usr/bin": ["python3"], [MACOS_FRAMEWORK_VERSIONS]: ["3.12"] })), ["/usr/bin/python3"]);
});

test("py -0p's list, from the launchers of 3.11+ and before, gives each CPython's python.exe", () => {
  const current = [
    " -V:3.13 *        C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python313\\python.exe",
    " -V:3.13t         C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python313\\python3.13t.exe",
    " -V:3.9           C:\\Program Files\\Python39\\python.exe",
    " -V:ContinuumAnalytics/Anaconda39-64 C:\\Users\\me\\anaconda3\\python.exe",
  ].join("\r\n");
  assert.deepEqual(parsePyLauncherList(current), [
    "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python313\\python.exe",
    "C:\\Program Files\\Python39\\python.exe",
    "C:\\Users\\me\\anaconda3\\python.exe",
  ]);
  const older = ["Installed Pythons found by C:\\WINDOWS\\py.exe Launcher for Windows", " -3.9-64        C:\\Python39\\python.exe *", ""].join("\n");
  assert.deepEqual(parsePyLauncherList(older), ["C:\\Python39\\python.exe"]);
  assert.deepEqual(parsePyLauncherList("No installed Pythons found!"), []);
});

test("the registry's PEP 514 keys give ExecutablePath, else python.exe in InstallPath", () => {
  const text = [
    "",
    "HKEY_CURRENT_USER\\Software\\Python\\PythonCore",
    "    DisplayName    REG_SZ    Python Software Foundation",
    "",
    "HKEY_CURRENT_USER\\Software\\Python\\PythonCore\\3.12\\InstallPath",
    "    (Default)    REG_SZ    C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python312\\",
    "    ExecutablePath    REG_SZ    C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python312\\python.exe",
    "    WindowedExecutablePath    REG_SZ    C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python312\\pythonw.exe",
    "",
    "HKEY_CURRENT_USER\\Software\\Python\\PythonCore\\3.12\\InstallPath\\InstallGroup",
    "    (Default)    REG_SZ    Python 3.12",
    "",
    "HKEY_CURRENT_USER\\Software\\Python\\PythonCore\\3.13t\\InstallPath",
    "    ExecutablePath    REG_SZ    C:\\Python313\\python3.13t.exe",
    "",
    "HKEY_CURRENT_USER\\Software\\Python\\ExampleCorp\\Tool-3.10\\InstallPath",
    "    (Default)    REG_SZ    D:\\Tools\\Py 310",
  ].join("\r\n");
  assert.deepEqual(parseRegistryPythons(text), [
    "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python312\\python.exe",
    "D:\\Tools\\Py 310\\python.exe",
  ]);
  assert.deepEqual(parseRegistryPythons("ERROR: The system was unable to find the specified registry key or value."), []);
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

test("pyenv's root comes from PYENV_ROOT, else ~/.pyenv (pyenv-win's on Windows); PATH from PATH or Path", () => {
  assert.deepEqual(placesOf({ PATH: "/a:/b", PYENV_ROOT: "/opt/pyenv" }, "/home/u", "linux"), { pathVariable: "/a:/b", pyenvRoot: "/opt/pyenv", platform: "linux" });
  assert.deepEqual(placesOf({ Path: "C:\\py" }, "/home/u", "linux"), { pathVariable: "C:\\py", pyenvRoot: path.join("/home/u", ".pyenv"), platform: "linux" });
  assert.equal(placesOf({ PYENV_ROOT: "D:\\pyenv\\pyenv-win\\" }, "C:\\Users\\u", "win32").pyenvRoot, "D:\\pyenv\\pyenv-win\\");
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
