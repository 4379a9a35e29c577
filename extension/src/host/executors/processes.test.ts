import assert from "assert/strict";
import * as fs from "fs";
import { test } from "node:test";
import * as os from "os";
import * as path from "path";
import { explainSpawnError, overlayEnvironment, Processes } from "./processes";
import { delay, isAlive, Recorder, testLogger, textOf, waitFor } from "../../testing/standIns";

const node = process.execPath;
const posix = process.platform !== "win32";

function start(argv: string[], extra: { cwd?: string; env?: { [name: string]: string | null } } = {}) {
  const recorder = new Recorder();
  const processes = new Processes(recorder.report, testLogger("info").logger);
  processes.spawn({ type: "spawn", process: 1, argv, cwd: extra.cwd ?? process.cwd(), env: extra.env ?? {} });
  return { recorder, processes };
}

function outputText(recorder: Recorder, stream?: "stdout" | "stderr"): string {
  return recorder
    .of("processOutput")
    .filter((input) => stream === undefined || input.stream === stream)
    .map((input) => textOf(input.data))
    .join("");
}

test("spawn reports the pid, the output in arrival order, then the exit code", async () => {
  const script = `
    process.stdout.write("one ");
    setTimeout(() => process.stderr.write("two "), 50);
    setTimeout(() => { process.stdout.write("three"); process.exitCode = 3; }, 100);`;
  const { recorder } = start([node, "-e", script]);
  const exited = await recorder.waitFor("processExited");
  assert.deepEqual(exited, { type: "processExited", process: 1, code: 3, signal: null });
  const types = recorder.inputs.map((input) => input.type);
  assert.equal(types[0], "processSpawned");
  assert.equal(types[types.length - 1], "processExited");
  assert.equal(typeof recorder.of("processSpawned")[0].pid, "number");
  assert.deepEqual(
    recorder.of("processOutput").map((input) => [input.stream, textOf(input.data)]),
    [["stdout", "one "], ["stderr", "two "], ["stdout", "three"]],
  );
});

test("output written just before exit is reported before processExited", async () => {
  const big = 200_000;
  const { recorder } = start([node, "-e", `process.stdout.write("x".repeat(${big})); process.exit(0)`]);
  await recorder.waitFor("processExited");
  assert.equal(outputText(recorder, "stdout").length, big);
  assert.equal(recorder.inputs[recorder.inputs.length - 1].type, "processExited");
});

test("the environment overlay sets and removes variables; the cwd is used", async () => {
  const cwd = fs.realpathSync(os.tmpdir());
  process.env.DAPPER_PROCESSES_TEST_REMOVE = "should be removed";
  const { recorder } = start(
    [node, "-e", `console.log(JSON.stringify([process.cwd(), process.env.DAPPER_SET, process.env.DAPPER_PROCESSES_TEST_REMOVE ?? null]))`],
    { cwd, env: { DAPPER_SET: "yes", DAPPER_PROCESSES_TEST_REMOVE: null } },
  );
  await recorder.waitFor("processExited");
  delete process.env.DAPPER_PROCESSES_TEST_REMOVE;
  assert.deepEqual(JSON.parse(outputText(recorder, "stdout")), [cwd, "yes", null]);
});

test("stdin is piped and left open", async () => {
  // The child exits only if its stdin is open: it waits a moment for data that never comes.
  const { recorder } = start([node, "-e", `process.stdin.on("end", () => process.exit(9)); setTimeout(() => process.exit(4), 200)`]);
  const exited = await recorder.waitFor("processExited");
  assert.equal(exited.code, 4);
});

// Each case: a spawn that cannot start, and what its spawnFailed error must say.
const failures: { name: string; argv: string[]; cwd?: string; error: RegExp }[] = [
  { name: "a missing executable", argv: [path.join(os.tmpdir(), "dapper-no-such-python9")], error: /ENOENT/ },
  { name: "a missing working directory", argv: [node, "-e", "0"], cwd: path.join(os.tmpdir(), "dapper-no-such-dir"), error: /working directory .* does not exist/ },
  { name: "an empty command line", argv: [], error: /empty/ },
  { name: "a NUL byte in an argument", argv: [node, "a\u0000b"], error: /null bytes|string without null/i },
];

for (const failure of failures) {
  test(`spawn of ${failure.name} reports spawnFailed and nothing else`, async () => {
    const { recorder } = start(failure.argv, { cwd: failure.cwd });
    const failed = await recorder.waitFor("spawnFailed");
    assert.match(failed.error, failure.error);
    await delay(300);
    assert.deepEqual(recorder.inputs.map((input) => input.type), ["spawnFailed"]);
  });
}

/** Starts a shell whose child sleeps; returns the shell's process and the sleeper's pid. */
async function shellWithSleeper(sleeper: string) {
  const started = start(["/bin/sh", "-c", `${sleeper} & echo $!; wait`]);
  const line = await waitFor(() => (outputText(started.recorder, "stdout").includes("\n") ? outputText(started.recorder, "stdout") : undefined), "the sleeper's pid");
  const shellPid = started.recorder.of("processSpawned")[0].pid;
  return { ...started, shellPid, sleeperPid: Number(line.trim()) };
}

// Each case: how the grandchild is started, and which signal the tree kill sends.
const treeKills = [
  { name: "a grandchild in the debuggee's group", sleeper: "sleep 60", signal: "SIGTERM" as const },
  { name: "a grandchild that left the group with setsid", sleeper: "setsid sleep 60", signal: "SIGKILL" as const },
];

for (const treeKill of treeKills) {
  test(`kill with tree ends the process and ${treeKill.name}`, { skip: !posix }, async () => {
    const { recorder, processes, shellPid, sleeperPid } = await shellWithSleeper(treeKill.sleeper);
    assert.ok(isAlive(shellPid) && isAlive(sleeperPid));
    processes.kill({ process: 1 }, treeKill.signal, true);
    const exited = await recorder.waitFor("processExited");
    assert.equal(exited.signal, treeKill.signal);
    await waitFor(() => (isAlive(sleeperPid) ? undefined : true), "the grandchild to die");
    assert.equal(processes.size, 0);
  });
}

test("kill without tree ends only the process", { skip: !posix }, async () => {
  const { recorder, processes, sleeperPid } = await shellWithSleeper("sleep 60");
  processes.kill({ process: 1 }, "SIGKILL", false);
  // The orphaned sleeper keeps stdout open, so "close" waits for it: kill it by pid.
  await delay(200);
  assert.ok(isAlive(sleeperPid), "the grandchild survives a kill without tree");
  processes.kill({ pid: sleeperPid }, "SIGTERM", false);
  const exited = await recorder.waitFor("processExited");
  assert.equal(exited.signal, "SIGKILL");
  await waitFor(() => (isAlive(sleeperPid) ? undefined : true), "the grandchild to die");
});

test("kill by pid with tree reaches a process the host did not spawn", { skip: !posix }, async () => {
  const { recorder, sleeperPid, shellPid } = await shellWithSleeper("sleep 60");
  // Signal the shell by pid, as for a runInTerminal debuggee; its group goes with it.
  new Processes(new Recorder().report, testLogger("info").logger).kill({ pid: shellPid }, "SIGTERM", true);
  await recorder.waitFor("processExited");
  await waitFor(() => (isAlive(sleeperPid) ? undefined : true), "the grandchild to die");
});

test("killAll and dispose kill every tree; reports stop after dispose", { skip: !posix }, async () => {
  const { recorder, processes, sleeperPid, shellPid } = await shellWithSleeper("sleep 60");
  processes.dispose();
  await waitFor(() => (isAlive(sleeperPid) || isAlive(shellPid) ? undefined : true), "the tree to die");
  await delay(100);
  assert.equal(recorder.of("processExited").length, 0);
  await processes.whenAllExited();
});

test("a disowned process runs on when the host goes away, and is reported no more", { skip: !posix }, async () => {
  const { recorder, processes } = start([node, "-e", "setInterval(() => process.stdout.write('x'), 20)"]);
  const spawned = await recorder.waitFor("processSpawned");
  processes.disown(1);
  await processes.whenAllExited();
  processes.dispose();
  try {
    await delay(200);
    assert.ok(isAlive(spawned.pid), "a debuggee left running after a detach outlives the host");
    const reported = recorder.of("processOutput").length;
    await delay(100);
    assert.equal(recorder.of("processOutput").length, reported, "its output is read but not reported");
    assert.equal(recorder.of("processExited").length, 0);
  } finally {
    process.kill(spawned.pid, "SIGKILL");
  }
});

test("kill of an unknown process or a dangerous pid does nothing", () => {
  const { logger, sink } = testLogger("debug");
  const processes = new Processes(new Recorder().report, logger);
  processes.kill({ process: 42 }, "SIGTERM", true);
  processes.kill({ pid: 0 }, "SIGKILL", true);
  processes.kill({ pid: -1 }, "SIGKILL", false);
  assert.equal(sink.lines.filter((line) => line.level === "error").length, 2);
});

test("whenAllExited resolves when the last process exits", async () => {
  const { recorder, processes } = start([node, "-e", "setTimeout(() => {}, 100)"]);
  assert.equal(processes.size, 1);
  await processes.whenAllExited();
  assert.equal(processes.size, 0);
  assert.equal(recorder.of("processExited").length, 1);
});

// Each case: base environment, overlay, case-insensitive names, expected result.
const overlays: [string, NodeJS.ProcessEnv, { [name: string]: string | null }, boolean, NodeJS.ProcessEnv][] = [
  ["sets a new variable", { A: "1" }, { B: "2" }, false, { A: "1", B: "2" }],
  ["replaces a variable", { A: "1" }, { A: "3" }, false, { A: "3" }],
  ["removes with null", { A: "1", B: "2" }, { A: null }, false, { B: "2" }],
  ["removing a missing variable is fine", { A: "1" }, { Z: null }, false, { A: "1" }],
  ["names differ by case on POSIX", { Path: "x" }, { PATH: "y" }, false, { Path: "x", PATH: "y" }],
  ["names match by case on Windows", { Path: "x" }, { PATH: "y" }, true, { PATH: "y" }],
  ["null removes any case on Windows", { Path: "x" }, { PATH: null }, true, {}],
];

for (const [name, base, overlay, caseInsensitive, expected] of overlays) {
  test(`overlayEnvironment ${name}`, () => {
    assert.deepEqual(overlayEnvironment(base, overlay, caseInsensitive), expected);
  });
}

test("a paused process's output is not read, so it blocks on the full pipe, until resumed", async () => {
  // 64 MiB in all, far more than a pipe holds; it reports how far it got once done.
  const script = `const chunk = "x".repeat(1 << 20); for (let i = 0; i < 64; i++) process.stdout.write(chunk);`;
  const { recorder, processes } = start([node, "-e", script]);
  await recorder.waitFor("processSpawned");
  processes.flow(1, true);
  await delay(300);
  const whilePaused = outputText(recorder).length;
  await delay(300);
  assert.equal(outputText(recorder).length, whilePaused, "nothing is read while paused");
  assert.ok(whilePaused < 8 << 20, `${whilePaused} bytes read before the pause took hold`);
  assert.equal(recorder.of("processExited").length, 0, "the process waits for its pipe");
  processes.flow(1, false);
  await recorder.waitFor("processExited");
  assert.equal(outputText(recorder).length, 64 << 20);
});

// Each case: the error Node gave, the executable, the platform, what the engine is told.
const spawnErrors: [string, NodeJS.ErrnoException, string, NodeJS.Platform, RegExp][] = [
  ["a pyenv-win shim on Windows", Object.assign(new Error("spawn EINVAL"), { code: "EINVAL" }), "C:\\Users\\me\\.pyenv\\pyenv-win\\shims\\python.bat", "win32", /python\.bat is a batch file, which Windows starts only through cmd\.exe: name the python\.exe it runs instead .*pyenv which python.* \(spawn EINVAL\)$/],
  ["a .CMD file on Windows", Object.assign(new Error("spawn EINVAL"), { code: "EINVAL" }), "D:\\tools\\PY.CMD", "win32", /PY\.CMD is a batch file/],
  ["EINVAL for an .exe stays Node's", Object.assign(new Error("spawn EINVAL"), { code: "EINVAL" }), "C:\\Python312\\python.exe", "win32", /^spawn EINVAL$/],
  ["a .bat name elsewhere is an ordinary file", Object.assign(new Error("spawn EINVAL"), { code: "EINVAL" }), "/opt/python.bat", "linux", /^spawn EINVAL$/],
  ["a missing program", Object.assign(new Error("spawn python3 ENOENT"), { code: "ENOENT" }), "python3", "darwin", /^spawn python3 ENOENT$/],
];

for (const [name, error, executable, platform, expected] of spawnErrors) {
  test(`a failed start is explained: ${name}`, () => {
    assert.match(explainSpawnError(error, os.tmpdir(), executable, platform), expected);
  });
}
