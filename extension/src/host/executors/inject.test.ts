import assert from "assert/strict";
import { spawnSync } from "child_process";
import { test } from "node:test";
import { bootstrapSource, debuggerFailure, remoteExecFailure, type ToolResult } from "./inject";
import { pickMethod, readTargetFacts, remoteDebugSwitch, versionFromMaps, versionFromName, type TargetFacts } from "./injectTarget";

test("a Python version is read from a program's or a library's name", () => {
  const cases: [string, string | undefined][] = [
    ["/usr/bin/python3.12", "3.12"],
    ["/root/.pyenv/versions/3.9.18/bin/python3.9", "3.9"],
    ["/usr/bin/python3.13t", "3.13t"],
    ["/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", "3.11"],
    ["/opt/lib/libpython3.14t.so", "3.14t"],
    ["/usr/bin/python3.8 (deleted)", "3.8"],
    ["/usr/bin/python3", undefined],
    ["/usr/bin/sleep", undefined],
    ["/usr/bin/python3.12-config", undefined],
  ];
  for (const [file, expected] of cases) {
    const version = versionFromName(file);
    const shown = version === undefined ? undefined : `${version.major}.${version.minor}${version.freeThreaded ? "t" : ""}`;
    assert.equal(shown, expected, file);
  }
  const maps = [
    "5581c2e4a000-5581c2e4b000 r--p 00000000 08:01 123 /root/.pyenv/versions/3.10.13/bin/python3.10",
    "7f0e1a000000-7f0e1a100000 r--p 00000000 08:01 456 /root/.pyenv/versions/3.10.13/lib/libpython3.10.so.1.0",
    "7ffd1a000000-7ffd1a021000 rw-p 00000000 00:00 0 [stack]",
  ].join("\n");
  assert.deepEqual(versionFromMaps(maps), { major: 3, minor: 10, freeThreaded: false });
  assert.equal(versionFromMaps("7ffd1a000000-7ffd1a021000 rw-p 00000000 00:00 0 [stack]"), undefined);
});

test("remote debugging switched off is seen in the environment and on the command line", () => {
  const cases: [string, string, string | undefined][] = [
    ["HOME=/root\0PYTHON_DISABLE_REMOTE_DEBUG=1\0", "python3.14\0app.py\0", "PYTHON_DISABLE_REMOTE_DEBUG is set in its environment"],
    ["PYTHON_DISABLE_REMOTE_DEBUG=\0", "python3.14\0app.py\0", undefined],
    ["", "python3.14\0-X\0disable_remote_debug\0app.py\0", "it runs with -X disable_remote_debug"],
    ["", "python3.14\0-Xdisable_remote_debug\0app.py\0", "it runs with -X disable_remote_debug"],
    ["", "python3.14\0app.py\0-X\0", undefined],
  ];
  for (const [environ, cmdline, expected] of cases) assert.equal(remoteDebugSwitch(environ, cmdline), expected, cmdline);
});

const python = (minor: number, freeThreaded = false) => ({ major: 3, minor, freeThreaded });
const base: TargetFacts = { pid: 42, uid: 1000, gid: 1000, ownUid: 1000, exe: "/usr/bin/python3.12", root: "/", version: python(12) };
const onPath = (found: Record<string, string>) => (name: string) => found[name];

test("the method and every refusal follow from the target's facts", () => {
  const cases: { name: string; facts: Partial<TargetFacts>; chosen?: string; path?: Record<string, string>; expect: object | RegExp }[] = [
    { name: "3.12 through gdb on PATH", facts: {}, path: { gdb: "/usr/bin/gdb", lldb: "/usr/bin/lldb" }, expect: { kind: "gdb", tool: "/usr/bin/gdb" } },
    { name: "lldb when there is no gdb", facts: {}, path: { lldb: "/usr/bin/lldb" }, expect: { kind: "lldb", tool: "/usr/bin/lldb" } },
    { name: "the chosen debugger first", facts: {}, chosen: "/bin/sh", path: { gdb: "/usr/bin/gdb" }, expect: { kind: "gdb", tool: "/bin/sh" } },
    { name: "a chosen debugger that does not exist", facts: {}, chosen: "/no/lldb", expect: /the debugger "\/no\/lldb" \(the attach configuration's "debuggerPath" or DAPPER_INJECT_DEBUGGER\) does not exist/ },
    { name: "no debugger at all", facts: { version: python(9) }, expect: /Python 3\.9 is attached to through gdb or lldb, and neither is on PATH; install gdb/ },
    { name: "3.14 through its own interpreter", facts: { version: python(14), exe: "/usr/bin/python3.14" }, expect: { kind: "remoteExec", tool: "/usr/bin/python3.14", argv: ["/usr/bin/python3.14"] } },
    {
      name: "3.14 in another root, as root: chroot into it",
      facts: { version: python(14), exe: "/srv/sid/usr/bin/python3.14", root: "/srv/sid", ownUid: 0 },
      expect: { kind: "remoteExec", tool: "/usr/bin/python3.14", argv: ["chroot", "/proc/42/root", "/usr/bin/python3.14"] },
    },
    { name: "3.14 in another root, not as root", facts: { version: python(14), exe: "/srv/sid/usr/bin/python3.14", root: "/srv/sid" }, expect: /runs in another root \(\/srv\/sid: a container or chroot\)/ },
    { name: "3.14 with remote debugging off", facts: { version: python(14), remoteDebugDisabled: "it runs with -X disable_remote_debug" }, expect: /remote debugging is disabled in process 42 \(it runs with -X disable_remote_debug\); restart it without that/ },
    { name: "another user's process", facts: { uid: 1001 }, expect: /process 42 belongs to another user \(uid 1001\) and Dapper runs as uid 1000; only that user \(or root\)/ },
    { name: "root may attach to anyone", facts: { uid: 1001, ownUid: 0 }, path: { gdb: "/usr/bin/gdb" }, expect: { kind: "gdb", tool: "/usr/bin/gdb" } },
    { name: "unreadable", facts: { unreadable: "EACCES reading /proc/42/exe (is it another user's process?)" }, expect: /Dapper cannot inspect process 42: EACCES/ },
    { name: "not Python", facts: { version: undefined, exe: "/usr/bin/sleep" }, expect: /process 42 is not a Python process \(it runs \/usr\/bin\/sleep\)/ },
    { name: "too old", facts: { version: python(8) }, expect: /process 42 runs Python 3\.8; Dapper debugs Python 3\.9 and later/ },
    { name: "traced already (3.9-3.13 need ptrace)", facts: { tracer: { pid: 7, name: "strace" } }, path: { gdb: "/usr/bin/gdb" }, expect: /process 42 is being traced already by process 7 \(strace\), and a process has one tracer at a time/ },
    { name: "traced already does not matter to sys.remote_exec", facts: { version: python(14), tracer: { pid: 7, name: "strace" } }, expect: { kind: "remoteExec", tool: "/usr/bin/python3.12", argv: ["/usr/bin/python3.12"] } },
    { name: "free-threaded", facts: { version: python(13, true) }, expect: /the free-threaded build of Python 3\.13t, which Dapper cannot attach to yet/ },
  ];
  for (const { name, facts, chosen, path, expect } of cases) {
    const run = () => pickMethod({ ...base, ...facts }, chosen, onPath(path ?? {}));
    if (expect instanceof RegExp) assert.throws(run, expect, name);
    else assert.deepEqual(run(), expect, name);
  }
});

const result = (output: string, code: number | null = 1, timedOut = false): ToolResult => ({ output, code, timedOut });

test("what gdb, lldb and sys.remote_exec say becomes the reason", () => {
  const gdb = { kind: "gdb" as const, tool: "/usr/bin/gdb" };
  const facts = { ...base, ptraceScope: 1 };
  assert.equal(debuggerFailure(gdb, result("$1 = 1\n$2 = 0\n[Inferior 1 (process 42) detached]", 0), facts), undefined);
  assert.equal(debuggerFailure({ kind: "lldb", tool: "lldb" }, result("(int) $0 = 1\n(int) $1 = 0\n", 0), facts), undefined);
  const cases: [string | undefined, ToolResult, RegExp][] = [
    ["gdb", result("ptrace: Operation not permitted.\n"), /does not allow Dapper to attach to process 42 \(ptrace: Operation not permitted\)\. \/proc\/sys\/kernel\/yama\/ptrace_scope is 1: run `echo 0 \| sudo tee/],
    ["gdb", result('No symbol "PyGILState_Ensure" in current context.\n'), /gdb could not find Python's C API in process 42/],
    ["gdb", result("$1 = 1\n$2 = -1\n", 0), /the bootstrap failed inside process 42 \(PyRun_SimpleString returned -1\)/],
    ["gdb", result("", null, true), /gdb did not finish within 25 seconds/],
    ["lldb", result("(int) $0 = 1\n(int) $1 = 0\nerror: no matching function for call to 'PyGILState_Release'\n", 0), /the bootstrap ran in process 42, but lldb could not give the GIL back \(error: no matching function/],
    ["gdb", result("warning: something\nCould not attach to process.\n"), /gdb \(\/usr\/bin\/gdb\) could not run the bootstrap in process 42: Could not attach to process\./],
    [undefined, result("RuntimeError: Remote debugging is not enabled in the remote process\n"), /remote debugging is disabled in process 42/],
    [undefined, result("PermissionError: [Errno 1] Operation not permitted\n"), /does not allow Dapper to attach to process 42/],
    [undefined, result("ProcessLookupError: [Errno 3] No such process\n"), /process 42 has exited/],
    [undefined, result("OSError: something else\n"), /sys\.remote_exec failed: OSError: something else/],
  ];
  for (const [kind, tool, expected] of cases) {
    const method = kind === "lldb" ? { kind: "lldb" as const, tool: "/usr/bin/lldb" } : gdb;
    const reason = kind === undefined ? remoteExecFailure(tool, facts) : debuggerFailure(method, tool, facts);
    assert.match(reason ?? "", expected);
  }
});

test("the bootstrap is Python that names the package, the address and the token, and removes itself", () => {
  const source = bootstrapSource(
    { type: "inject", injection: 1, pid: 42, address: { transport: "unix", path: "/tmp/d/1.sock" }, token: "ab'c\"d", sessionId: "s1", packageDir: "/ext/python" },
    "/tmp/dapper-inject-x/bootstrap.py",
  );
  for (const text of ['"unix:/tmp/d/1.sock"', '"ab\'c\\"d"', '"s1"', '"/ext/python"', "os.unlink(file)", "del _dapper_bootstrap"]) {
    assert.ok(source.includes(text), `${text} in\n${source}`);
  }
  const compiled = spawnSync("python3", ["-c", "import sys; compile(sys.stdin.read(), 'bootstrap', 'exec')"], { input: source, encoding: "utf8" });
  assert.equal(compiled.status, 0, compiled.stderr);
});

test("the facts of a process: this one (node) is no Python; a pid nobody has is refused", async () => {
  const own = await readTargetFacts(process.pid);
  assert.equal(own.version, undefined);
  assert.equal(own.exe, process.execPath);
  assert.equal(own.uid, process.getuid?.());
  await assert.rejects(readTargetFacts(2 ** 22 + 1), /there is no process with id 4194305 \(has it exited\?\)/);
});
