import assert from "assert/strict";
import { spawnSync } from "child_process";
import { test } from "node:test";
import { bootstrapSource, debuggerFailure, remoteExecFailure, toolArgv, type ToolResult } from "./inject";
import {
  factsFromCim,
  factsFromPs,
  pickMethod,
  readTargetFacts,
  remoteDebugSwitch,
  versionFromFrameworkPath,
  versionFromMaps,
  versionFromName,
  type TargetFacts,
} from "./injectTarget";

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
    const run = () => pickMethod({ ...base, ...facts }, chosen, onPath(path ?? {}), "linux");
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
    const reason = kind === undefined ? remoteExecFailure(tool, facts, "linux") : debuggerFailure(method, tool, facts, "linux");
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

test("macOS and Windows: 3.14+ through sys.remote_exec; before, lldb first on macOS and nothing on Windows", () => {
  const mac: TargetFacts = { pid: 42, uid: 501, ownUid: 501, exe: "/opt/homebrew/bin/python3.12", version: python(12) };
  const win: TargetFacts = { pid: 42, exe: "C:\\Python312\\python.exe", version: python(12) };
  const both = onPath({ gdb: "/usr/local/bin/gdb", lldb: "/usr/bin/lldb" });
  const cases: { name: string; run: () => unknown; expect: object | RegExp }[] = [
    { name: "macOS 3.12: lldb before gdb", run: () => pickMethod(mac, undefined, both, "darwin"), expect: { kind: "lldb", tool: "/usr/bin/lldb" } },
    { name: "macOS 3.12: gdb when there is no lldb", run: () => pickMethod(mac, undefined, onPath({ gdb: "/usr/local/bin/gdb" }), "darwin"), expect: { kind: "gdb", tool: "/usr/local/bin/gdb" } },
    { name: "macOS 3.12: neither", run: () => pickMethod(mac, undefined, onPath({}), "darwin"), expect: /Python 3\.12 is attached to through lldb or gdb, and neither is on PATH; install Xcode's command line tools \(`xcode-select --install`\)/ },
    { name: "macOS 3.14", run: () => pickMethod({ ...mac, exe: "/usr/local/bin/python3.14", version: python(14) }, undefined, both, "darwin"), expect: { kind: "remoteExec", tool: "/usr/local/bin/python3.14", argv: ["/usr/local/bin/python3.14"] } },
    { name: "Windows 3.14", run: () => pickMethod({ ...win, exe: "C:\\Python314\\python.exe", version: python(14) }, undefined, both, "win32"), expect: { kind: "remoteExec", tool: "C:\\Python314\\python.exe", argv: ["C:\\Python314\\python.exe"] } },
    { name: "Windows 3.12, even with a debugger named", run: () => pickMethod(win, "C:\\gdb.exe", both, "win32"), expect: /process 42 runs Python 3\.12, which Dapper attaches to by process id on Windows only from Python 3\.14 on .*--listen/ },
    { name: "Windows 3.14 with remote debugging off", run: () => pickMethod({ ...win, version: python(14), remoteDebugDisabled: "it runs with -X disable_remote_debug" }, undefined, both, "win32"), expect: /remote debugging is disabled in process 42/ },
    { name: "Windows: a process whose program Windows does not tell", run: () => pickMethod({ pid: 42, unreadable: "Windows does not tell its program to this user" }, undefined, both, "win32"), expect: /Dapper cannot inspect process 42: Windows does not tell its program/ },
  ];
  for (const { name, run, expect } of cases) {
    if (expect instanceof RegExp) assert.throws(run, expect, name);
    else assert.deepEqual(run(), expect, name);
  }
});

test("the command line that injects: gdb reads the target's root through /proc on Linux only; lldb and sys.remote_exec alike everywhere", () => {
  const gdb = { kind: "gdb" as const, tool: "/usr/bin/gdb" };
  const linux = toolArgv(gdb, 42, "/tmp/d/bootstrap.py", "linux");
  const mac = toolArgv(gdb, 42, "/tmp/d/bootstrap.py", "darwin");
  assert.deepEqual(linux.slice(0, 8), ["/usr/bin/gdb", "-nx", "-nh", "-batch", "-p", "42", "-ex", "set sysroot /proc/42/root"]);
  assert.deepEqual(mac.filter((arg) => arg.includes("sysroot")), []);
  assert.deepEqual([...linux.slice(0, 6), ...linux.slice(8)], mac);
  assert.ok(mac.includes("call (int)PyRun_SimpleString(\"exec(compile(open('/tmp/d/bootstrap.py').read(), '<dapper bootstrap>', 'exec'), {'__name__': '__dapper_bootstrap__'})\")"));
  const lldb = toolArgv({ kind: "lldb", tool: "/usr/bin/lldb" }, 42, "/tmp/d/bootstrap.py", "darwin");
  assert.deepEqual(lldb.slice(0, 5), ["/usr/bin/lldb", "--batch", "--no-lldbinit", "-p", "42"]);
  const windowsFile = "C:\\Users\\me\\AppData\\Local\\Temp\\dapper-inject-x\\bootstrap.py";
  assert.deepEqual(toolArgv({ kind: "remoteExec", tool: "C:\\Python314\\python.exe", argv: ["C:\\Python314\\python.exe"] }, 42, windowsFile, "win32"), [
    "C:\\Python314\\python.exe",
    "-I",
    "-c",
    "import sys; sys.remote_exec(int(sys.argv[1]), sys.argv[2])",
    "42",
    windowsFile,
  ]);
});

test("a macOS framework build's program gives its version by its folder", () => {
  const cases: [string, string | undefined][] = [
    ["/Library/Frameworks/Python.framework/Versions/3.12/Resources/Python.app/Contents/MacOS/Python", "3.12"],
    ["/opt/homebrew/Cellar/python@3.13/3.13.1/Frameworks/Python.framework/Versions/3.13/Resources/Python.app/Contents/MacOS/Python", "3.13"],
    ["/Library/Frameworks/PythonT.framework/Versions/3.13/Resources/Python.app/Contents/MacOS/Python", "3.13t"],
    ["/usr/bin/python3", undefined],
  ];
  for (const [file, expected] of cases) {
    const version = versionFromFrameworkPath(file);
    assert.equal(version && `${version.major}.${version.minor}${version.freeThreaded ? "t" : ""}`, expected, file);
  }
});

test("macOS: ps's owner and program (a path that may hold spaces) and its command line", () => {
  const framework = "/Library/Frameworks/Python.framework/Versions/3.12/Resources/Python.app/Contents/MacOS/Python";
  assert.deepEqual(factsFromPs(42, `  501 ${framework}\n`, "/usr/local/bin/python3.12 -X disable_remote_debug app.py\n", 501), {
    pid: 42,
    uid: 501,
    ownUid: 501,
    exe: framework,
    version: python(12),
    remoteDebugDisabled: "it runs with -X disable_remote_debug",
  });
  const spaced = factsFromPs(7, "  0 /Users/me/My Tools/bin/python3.14\n", "python3.14 app.py", 501);
  assert.deepEqual([spaced?.uid, spaced?.exe, spaced?.version, spaced?.remoteDebugDisabled], [0, "/Users/me/My Tools/bin/python3.14", python(14), undefined]);
  assert.equal(factsFromPs(42, "", ""), undefined, "no row: no such process");
});

test("Windows: Win32_Process's program and command line", () => {
  assert.deepEqual(factsFromCim(42, '{"ProcessId":42,"ExecutablePath":"C:\\\\Python313\\\\python.exe","CommandLine":"\\"C:\\\\Python313\\\\python.exe\\" -X disable_remote_debug app.py"}'), {
    pid: 42,
    exe: "C:\\Python313\\python.exe",
    version: undefined,
    remoteDebugDisabled: "it runs with -X disable_remote_debug",
  });
  assert.deepEqual(factsFromCim(42, '\uFEFF{"ProcessId":42,"ExecutablePath":"C:\\\\Tools\\\\python3.12.exe","CommandLine":null}')?.version, python(12));
  assert.match(factsFromCim(42, '{"ProcessId":42,"ExecutablePath":null,"CommandLine":null}')?.unreadable ?? "", /Windows does not tell its program to this user .*Administrator/);
  assert.match(factsFromCim(42, "Get-CimInstance : Access denied")?.unreadable ?? "", /PowerShell's answer is not JSON/);
  assert.equal(factsFromCim(42, "\r\n"), undefined, "no output: no such process");
});

test("a refused attach says what each system needs", () => {
  const denied = (text: string) => result(text);
  const facts = { ...base, ptraceScope: 1 };
  assert.match(remoteExecFailure(denied("PermissionError: [Errno 1] Operation not permitted: task_for_pid failed\n"), facts, "darwin"), /macOS does not allow Dapper to attach to process 42: reading another process's memory needs root .*DevToolsSecurity -enable.*--listen/);
  assert.match(debuggerFailure({ kind: "lldb", tool: "/usr/bin/lldb" }, denied("error: attach failed: Operation not permitted\n"), facts, "darwin") ?? "", /^macOS does not allow Dapper to attach to process 42/);
  assert.match(remoteExecFailure(denied("OSError: [WinError 5] Access is denied\n"), facts, "win32"), /^Windows does not allow Dapper to attach to process 42 \(access is denied\): .*Administrator/);
  assert.match(remoteExecFailure(denied("PermissionError: [Errno 1] Operation not permitted\n"), facts, "linux"), /ptrace_scope is 1/);
});

test("the macOS way of reading a target (ps) on this machine: this process, and a pid nobody has", { skip: process.platform === "win32" ? "ps is POSIX" : false }, async () => {
  const own = await readTargetFacts(process.pid, "darwin");
  assert.equal(own.uid, process.getuid?.());
  assert.equal(own.version, undefined, "node is no Python");
  assert.match(own.exe ?? "", /node$/);
  await assert.rejects(readTargetFacts(2 ** 22 + 1, "darwin"), /there is no process with id 4194305 \(has it exited\?\)/);
});
