// The interpreter check before a launch, under plain Node: small shell scripts stand in
// for interpreters that are fine, too old, broken, slow or not Python at all.
import assert from "assert/strict";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { after, test } from "node:test";
import type { InterpreterSource } from "./interpreter";
import { commandCandidates, defaultPython, type InterpreterAction, InterpreterChecker, interpreterMessage, isBareCommand, judge, majorMinor, parseProbeOutput, type Verdict } from "./interpreterCheck";

const posix = process.platform !== "win32";
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "dapper-interpreter-check-"));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Writes an executable shell script that stands in for an interpreter. */
function fakeInterpreter(name: string, body: string, mode = 0o755): string {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode });
  return file;
}

const answers = (version: string) => `echo '{"version": "${version}", "path": "/opt/python/bin/python3"}'`;

interface Case {
  name: string;
  /** Makes the interpreter and returns what the configuration names. */
  make: () => string;
  expected: Verdict;
}

const cases: Case[] = [
  { name: "Python 3.12 is usable", make: () => fakeInterpreter("py312", answers("3.12.1")), expected: { usable: true, version: "3.12.1", executable: "/opt/python/bin/python3" } },
  { name: "Python 3.9.0 is the oldest usable", make: () => fakeInterpreter("py39", answers("3.9.0")), expected: { usable: true, version: "3.9.0", executable: "/opt/python/bin/python3" } },
  { name: "a release candidate is read", make: () => fakeInterpreter("py313rc", answers("3.13.0rc2")), expected: { usable: true, version: "3.13.0rc2", executable: "/opt/python/bin/python3" } },
  {
    name: "a sitecustomize that prints first does not hide the answer",
    make: () => fakeInterpreter("noisy", `echo 'hello from sitecustomize'\n${answers("3.11.4")}`),
    expected: { usable: true, version: "3.11.4", executable: "/opt/python/bin/python3" },
  },
  { name: "Python 3.8 is too old", make: () => fakeInterpreter("py38", answers("3.8.10")), expected: { usable: false, problem: "is Python 3.8.10; Dapper needs 3.9 or newer" } },
  { name: "Python 2.7 is too old", make: () => fakeInterpreter("py27", answers("2.7.18")), expected: { usable: false, problem: "is Python 2.7.18; Dapper needs 3.9 or newer" } },
  { name: "a version that cannot be read", make: () => fakeInterpreter("banana", answers("banana")), expected: { usable: false, problem: 'reported the version "banana", which Dapper cannot read' } },
  { name: "a path that does not exist", make: () => path.join(scratch, "no", "such", "python"), expected: { usable: false, problem: "does not exist" } },
  { name: "a command that is not on PATH", make: () => "dapper-test-no-such-python3", expected: { usable: false, problem: "was not found on PATH" } },
  { name: "a file that is not executable", make: () => fakeInterpreter("noexec", answers("3.12.1"), 0o644), expected: { usable: false, problem: "is not executable (permission denied)" } },
  {
    name: "a folder, such as a virtual environment's",
    make: () => {
      const folder = path.join(scratch, "venv");
      fs.mkdirSync(folder, { recursive: true });
      return folder;
    },
    expected: { usable: false, problem: "is a folder, not an interpreter (name the python executable inside it)" },
  },
  {
    name: "an interpreter that fails says why, from its stderr",
    make: () => fakeInterpreter("crashes", "echo 'Fatal Python error: init_fs_encoding: failed to get the Python codec' >&2\nexit 1"),
    expected: { usable: false, problem: "failed to run: Fatal Python error: init_fs_encoding: failed to get the Python codec" },
  },
  { name: "a program that is not Python", make: () => fakeInterpreter("notpython", "echo hello"), expected: { usable: false, problem: 'is not a Python interpreter: it printed "hello"' } },
  { name: "a program that prints nothing", make: () => fakeInterpreter("silent", "exit 0"), expected: { usable: false, problem: "is not a Python interpreter: it printed nothing" } },
  {
    name: "an interpreter too slow to answer is not judged, and the launch goes on",
    make: () => fakeInterpreter("slow", "sleep 3"),
    expected: { usable: "unknown", note: "it did not print its version within 0.3 s, so it is not checked before the launch" },
  },
];

for (const c of cases) {
  test(`interpreter check: ${c.name}`, { skip: !posix && "shell scripts stand in for interpreters" }, async () => {
    const checker = new InterpreterChecker(300);
    assert.deepEqual(await checker.check(c.make()), c.expected);
  });
}

test("interpreter check: the real python3 on PATH is judged by its version", { skip: !posix && "python3 is a POSIX name" }, async (t) => {
  let expected: string;
  try {
    expected = execFileSync("python3", ["-c", "import platform; print(platform.python_version())"], { encoding: "utf8" }).trim();
  } catch {
    t.skip("no python3 on PATH to compare with");
    return;
  }
  const verdict = await new InterpreterChecker().check("python3");
  const found = majorMinor(expected);
  const recent = found !== undefined && found.major === 3 && found.minor >= 9;
  assert.deepEqual(verdict.usable === true ? verdict.version : verdict.usable, recent ? expected : false);
});

/** A stand-in that counts its runs in a file and reports `executable` (default: itself) as sys.executable. */
function countedInterpreter(name: string, version: string, executable?: string): { python: string; runs: () => number } {
  const counter = path.join(scratch, `${name}.runs`);
  const python = path.join(scratch, name);
  fakeInterpreter(name, `echo x >> '${counter}'\necho '{"version": "${version}", "path": "${executable ?? python}"}'`);
  return { python, runs: () => (fs.existsSync(counter) ? fs.readFileSync(counter, "utf8").split("\n").filter(Boolean).length : 0) };
}

test("interpreter check: a verdict is cached per file until the file changes", { skip: !posix && "shell scripts" }, async () => {
  const { python, runs } = countedInterpreter("counted", "3.10.2");
  const checker = new InterpreterChecker(5_000);
  assert.equal((await checker.check(python)).usable, true);
  assert.equal((await checker.check(python)).usable, true);
  assert.equal(runs(), 1, "the second check used the cache");

  // A reinstalled interpreter (a new modification time) is checked again.
  const later = new Date(Date.now() + 60_000);
  fs.utimesSync(python, later, later);
  assert.equal((await checker.check(python)).usable, true);
  assert.equal(runs(), 2, "a changed file is probed again");
});

test("interpreter check: a link to the interpreter (a virtual environment's python) is cached", { skip: !posix && "symbolic links" }, async () => {
  const { python: real, runs } = countedInterpreter("linked-target", "3.11.0");
  const link = path.join(scratch, "venv-python");
  fs.symlinkSync(real, link);
  // The interpreter reports the link as sys.executable, as a virtual environment's does.
  fs.writeFileSync(real, fs.readFileSync(real, "utf8").replace(`"path": "${real}"`, `"path": "${link}"`));
  const checker = new InterpreterChecker(5_000);
  await checker.check(link);
  await checker.check(link);
  assert.equal(runs(), 1);
});

test("interpreter check: a wrapper that runs another interpreter (a pyenv shim) is checked every time", { skip: !posix && "shell scripts" }, async () => {
  const { python, runs } = countedInterpreter("shim", "3.12.1", "/opt/python/bin/python3.12");
  const checker = new InterpreterChecker(5_000);
  await checker.check(python);
  await checker.check(python);
  assert.equal(runs(), 2);
});

test("interpreter check: failures and undecided interpreters are not cached", { skip: !posix && "shell scripts" }, async () => {
  const checker = new InterpreterChecker(200);
  const slow = fakeInterpreter("slow-twice", "sleep 3");
  const missing = path.join(scratch, "missing-python");
  const { python: old } = countedInterpreter("old", "3.8.1");
  for (const python of [slow, slow, missing, missing]) assert.notEqual((await checker.check(python)).usable, true);
  assert.equal(checker.probes, 4);
  // A too-old interpreter did run and is itself: its verdict is kept.
  await checker.check(old);
  await checker.check(old);
  assert.equal(checker.probes, 5);
});

// The decisions on what the probe printed, without starting anything.
const parses: [string, ReturnType<typeof parseProbeOutput>][] = [
  ['{"version": "3.12.1", "path": "/usr/bin/python3"}\n', { version: "3.12.1", executable: "/usr/bin/python3" }],
  ['banner\r\n{"version": "3.9.0", "path": "C:\\\\Python39\\\\python.exe"}\r\n\r\n', { version: "3.9.0", executable: "C:\\Python39\\python.exe" }],
  ["", undefined],
  ["null", undefined],
  ['{"version": 3}', undefined],
  ["Python 3.12.1", undefined],
];
for (const [stdout, expected] of parses) {
  test(`the probe's output ${JSON.stringify(stdout)} is read as ${JSON.stringify(expected)}`, () => {
    assert.deepEqual(parseProbeOutput(stdout), expected);
  });
}

test("a missing bare command and a missing path are told apart", () => {
  assert.deepEqual(judge({ kind: "missing" }, true), { usable: false, problem: "was not found on PATH" });
  assert.deepEqual(judge({ kind: "missing" }, false), { usable: false, problem: "does not exist" });
});

// The message: the interpreter, where the choice came from, the problem and the buttons.
const messages: { source: InterpreterSource; python: string; problem: string; message: string; actions: InterpreterAction[] }[] = [
  {
    source: "setting dapper.python",
    python: "/opt/none/python",
    problem: "does not exist",
    message: 'Dapper cannot debug with the Python interpreter "/opt/none/python" (set in the setting dapper.python): it does not exist.',
    actions: ["Select Interpreter", "Open Settings"],
  },
  {
    source: "Python extension",
    python: "/usr/bin/python3.8",
    problem: "is Python 3.8.10; Dapper needs 3.9 or newer",
    message: 'Dapper cannot debug with the Python interpreter "/usr/bin/python3.8" (selected in the Python extension): it is Python 3.8.10; Dapper needs 3.9 or newer.',
    actions: ["Select Interpreter"],
  },
  {
    source: "launch configuration",
    python: "/ws/.venv/bin/python",
    problem: "does not exist",
    message: 'Dapper cannot debug with the Python interpreter "/ws/.venv/bin/python" (set as `python` in the launch configuration): it does not exist.',
    actions: ["Open launch.json"],
  },
  {
    source: "python3 on PATH",
    python: "python3",
    problem: "was not found on PATH",
    message:
      'Dapper cannot debug with the Python interpreter "python3" (the default: no interpreter is selected in the Python extension or set in dapper.python): it was not found on PATH.',
    actions: ["Select Interpreter", "Open Settings"],
  },
];
for (const m of messages) {
  test(`the message for an interpreter from the ${m.source} offers ${m.actions.join(" and ")}`, () => {
    assert.deepEqual(interpreterMessage(m.python, m.source, m.problem), { message: m.message, actions: m.actions });
  });
}

// Each case: what the configuration names, the platform, whether PATH is searched.
const bareCommands: [string, NodeJS.Platform, boolean][] = [
  ["python3", "linux", true],
  ["python3.12", "darwin", true],
  ["./python3", "linux", false],
  ["/usr/bin/python3", "darwin", false],
  ["python", "win32", true],
  ["python.exe", "win32", true],
  ["C:\\Python312\\python.exe", "win32", false],
  [".venv\\Scripts\\python.exe", "win32", false],
  ["C:/Python312/python.exe", "win32", false],
  // On POSIX a backslash is a character of the name.
  ["odd\\name", "linux", true],
];

for (const [executable, platform, bare] of bareCommands) {
  test(`${JSON.stringify(executable)} on ${platform} is ${bare ? "looked up on PATH" : "a path"}`, () => {
    assert.equal(isBareCommand(executable, platform), bare);
  });
}

// Each case: the command, its environment, the platform, the files tried in order.
const lookups: [string, NodeJS.ProcessEnv, NodeJS.Platform, string[]][] = [
  ["python3", { PATH: "/usr/local/bin::/usr/bin" }, "linux", ["/usr/local/bin/python3", "/usr/bin/python3"]],
  ["python3", { PATH: "/opt/homebrew/bin:/usr/bin" }, "darwin", ["/opt/homebrew/bin/python3", "/usr/bin/python3"]],
  ["python", { Path: "C:\\Python312;;C:\\Windows" }, "win32", ["C:\\Python312\\python.com", "C:\\Python312\\python.exe", "C:\\Windows\\python.com", "C:\\Windows\\python.exe"]],
  ["python.exe", { PATH: "C:\\Python312" }, "win32", ["C:\\Python312\\python.exe", "C:\\Python312\\python.exe.com", "C:\\Python312\\python.exe.exe"]],
  // A colon is part of a Windows folder, not a separator; PATHEXT's .BAT is not tried.
  ["py", { PATH: "C:\\Windows", PATHEXT: ".COM;.EXE;.BAT;.CMD" }, "win32", ["C:\\Windows\\py.com", "C:\\Windows\\py.exe"]],
  ["python3", {}, "linux", []],
];

for (const [command, env, platform, expected] of lookups) {
  test(`${command} on ${platform} is looked for as ${expected.length} files, in the order a spawn tries them`, () => {
    assert.deepEqual(commandCandidates(command, env, platform), expected);
  });
}

test("the interpreter a launch runs when it names none is python on Windows, python3 elsewhere", () => {
  assert.deepEqual((["win32", "darwin", "linux"] as const).map((platform) => defaultPython(platform)), ["python", "python3", "python3"]);
});
