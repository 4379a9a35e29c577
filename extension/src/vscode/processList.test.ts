// The process listing: each platform's parser on real and hand-written output, and the
// Linux/macOS lister for real, against a Python process started for the test.
import assert from "assert/strict";
import { spawn } from "child_process";
import { test } from "node:test";
import { pickerEntries } from "./processChoice";
import { commandWords, listProcesses, parseCimJson, parsePsOutput, PS_COMMAND_LINES_ARGS, type ProcessInfo } from "./processList";

// Captured on the development machine (Debian 12, procps-ng 4.0.2) with the lister's two
// commands, trimmed to kernel threads and a shell whose children were: python3 with
// spaces and unicode in its arguments, one that renamed itself "Web Content" (a comm with
// a space), a `#!/usr/bin/env python3` script, a `#!/…/python3.12` script (Linux names
// the process after the script then), a venv's python, sleep, and ps itself (which has
// another pid in each table: it is two processes).
const LINUX_COMMAND_LINES =
  "    2     0 root     [kthreadd]\n    3     2 root     [pool_workqueue_release]\n   14     2 root     [ksoftirqd/0]\n 8609  8606 root     bash /dev/fd/3\n 8610  8609 root     /root/.pyenv/versions/3.11.7/bin/python3 -c import time; time.sleep(120) arg with  spaces ünïcødé ✓\n 8611  8609 root     /root/.pyenv/versions/3.11.7/bin/python3 -c import ctypes, time; ctypes.CDLL(None).prctl(15, b\"Web Content\", 0, 0, 0); time.sleep(120)\n 8612  8609 root     /root/.pyenv/versions/3.11.7/bin/python3 ./tool.py\n 8613  8609 root     /root/.pyenv/versions/3.12.1/bin/python3.12 ./direct.py\n 8614  8609 root     ./venv/bin/python -c import time; time.sleep(120)\n 8615  8609 root     sleep 120\n 9665  8609 root     ps -A -ww -o pid=,ppid=,user=,args=\n";
const LINUX_NAMES =
  "    2 kthreadd\n    3 pool_workqueue_release\n   14 ksoftirqd/0\n 8609 bash\n 8610 python3\n 8611 Web Content\n 8612 python3\n 8613 direct.py\n 8614 python\n 8615 sleep\n 9666 ps\n";

const LINUX_EXPECTED: ProcessInfo[] = [
  { pid: 2, ppid: 0, user: "root", name: "kthreadd", commandLine: "[kthreadd]" },
  { pid: 3, ppid: 2, user: "root", name: "pool_workqueue_release", commandLine: "[pool_workqueue_release]" },
  { pid: 14, ppid: 2, user: "root", name: "ksoftirqd/0", commandLine: "[ksoftirqd/0]" },
  { pid: 8609, ppid: 8606, user: "root", name: "bash", commandLine: "bash /dev/fd/3" },
  {
    pid: 8610,
    ppid: 8609,
    user: "root",
    name: "python3",
    commandLine: "/root/.pyenv/versions/3.11.7/bin/python3 -c import time; time.sleep(120) arg with  spaces ünïcødé ✓",
  },
  {
    pid: 8611,
    ppid: 8609,
    user: "root",
    name: "Web Content",
    commandLine: '/root/.pyenv/versions/3.11.7/bin/python3 -c import ctypes, time; ctypes.CDLL(None).prctl(15, b"Web Content", 0, 0, 0); time.sleep(120)',
  },
  { pid: 8612, ppid: 8609, user: "root", name: "python3", commandLine: "/root/.pyenv/versions/3.11.7/bin/python3 ./tool.py" },
  { pid: 8613, ppid: 8609, user: "root", name: "direct.py", commandLine: "/root/.pyenv/versions/3.12.1/bin/python3.12 ./direct.py" },
  { pid: 8614, ppid: 8609, user: "root", name: "python", commandLine: "./venv/bin/python -c import time; time.sleep(120)" },
  { pid: 8615, ppid: 8609, user: "root", name: "sleep", commandLine: "sleep 120" },
  // In the first table only: named after its command line's first word.
  { pid: 9665, ppid: 8609, user: "root", name: "ps", commandLine: "ps -A -ww -o pid=,ppid=,user=,args=" },
];

test("ps on Linux (captured): every row, names with spaces, unicode, a process in one table only", () => {
  assert.deepEqual(parsePsOutput(LINUX_COMMAND_LINES, LINUX_NAMES, "linux"), LINUX_EXPECTED);
});

// Hand-written in the shape of macOS's BSD ps: comm is the executable's whole path, which
// may hold spaces, users may start with "_", and a long user name is cut with "+"
// on Linux and by width on macOS; one line has CRLF, as a captured file may.
const MAC_COMMAND_LINES = [
  "    1     0 root             /sbin/launchd",
  "  153     1 _windowserver    /System/Library/PrivateFrameworks/SkyLight.framework/Resources/WindowServer -daemon",
  " 4242     1 alice            /Applications/Visual Studio Code.app/Contents/MacOS/Electron --type=renderer",
  " 5001  600 alice            /Library/Frameworks/Python.framework/Versions/3.12/Resources/Python.app/Contents/MacOS/Python manage.py runserver\r",
  " 5002  600 averylongusern+ /Users/alice/My Project/.venv/bin/python3 -m app --title 日本語 テスト",
  "99999 5002 alice           ",
  "",
].join("\n");
const MAC_NAMES = [
  "    1 /sbin/launchd",
  "  153 /System/Library/PrivateFrameworks/SkyLight.framework/Resources/WindowServer",
  " 4242 /Applications/Visual Studio Code.app/Contents/MacOS/Electron",
  " 5001 /Library/Frameworks/Python.framework/Versions/3.12/Resources/Python.app/Contents/MacOS/Python",
  " 5002 /Users/alice/My Project/.venv/bin/python3",
  "99999 (zombie)",
].join("\n");

test("ps on macOS (hand-written): whole paths with spaces as names, CRLF, a user cut short, an empty command line", () => {
  assert.deepEqual(parsePsOutput(MAC_COMMAND_LINES, MAC_NAMES, "darwin"), [
    { pid: 1, ppid: 0, user: "root", name: "launchd", commandLine: "/sbin/launchd" },
    {
      pid: 153,
      ppid: 1,
      user: "_windowserver",
      name: "WindowServer",
      commandLine: "/System/Library/PrivateFrameworks/SkyLight.framework/Resources/WindowServer -daemon",
    },
    { pid: 4242, ppid: 1, user: "alice", name: "Electron", commandLine: "/Applications/Visual Studio Code.app/Contents/MacOS/Electron --type=renderer" },
    {
      pid: 5001,
      ppid: 600,
      user: "alice",
      name: "Python",
      commandLine: "/Library/Frameworks/Python.framework/Versions/3.12/Resources/Python.app/Contents/MacOS/Python manage.py runserver",
    },
    { pid: 5002, ppid: 600, user: "averylongusern+", name: "python3", commandLine: "/Users/alice/My Project/.venv/bin/python3 -m app --title 日本語 テスト" },
    { pid: 99999, ppid: 5002, user: "alice", name: "(zombie)", commandLine: "" },
  ]);
});

test("ps: a command line of 100,000 characters is kept whole", () => {
  const long = `/usr/bin/python3 -c pass ${"x".repeat(100_000)}`;
  const [parsed] = parsePsOutput(`  77     1 bob      ${long}\n`, "  77 python3\n", "linux");
  assert.equal(parsed?.commandLine, long);
  assert.equal(parsed?.name, "python3");
});

const cimCases: { name: string; text: string; expected: ProcessInfo[] }[] = [
  {
    name: "an array, with a null CommandLine (System) and an empty one, as Windows PowerShell 5.1 writes it",
    text:
      '\uFEFF[{"ProcessId":0,"ParentProcessId":0,"Name":"System Idle Process","CommandLine":null},' +
      '{"ProcessId":4,"ParentProcessId":0,"Name":"System","CommandLine":""},' +
      '{"ProcessId":7312,"ParentProcessId":5120,"Name":"python.exe","CommandLine":"\\"C:\\\\Users\\\\Zoë Dev\\\\My App\\\\.venv\\\\Scripts\\\\python.exe\\"  app.py --name \\u003cnew\\u003e 日本"}]\r\n',
    expected: [
      { pid: 0, ppid: 0, name: "System Idle Process", commandLine: "" },
      { pid: 4, ppid: 0, name: "System", commandLine: "" },
      { pid: 7312, ppid: 5120, name: "python.exe", commandLine: '"C:\\Users\\Zoë Dev\\My App\\.venv\\Scripts\\python.exe"  app.py --name <new> 日本' },
    ],
  },
  {
    name: "one process: ConvertTo-Json writes an object, not an array",
    text: '{"ProcessId":1234,"ParentProcessId":1,"Name":"pythonw.exe","CommandLine":"pythonw.exe gui.pyw"}',
    expected: [{ pid: 1234, ppid: 1, name: "pythonw.exe", commandLine: "pythonw.exe gui.pyw" }],
  },
  { name: "no process at all: no output", text: "\r\n", expected: [] },
  {
    name: "rows without a numeric ProcessId are skipped, a missing parent is undefined",
    text: '[{"ProcessId":"12","Name":"odd"},null,{"ProcessId":99,"Name":"svchost.exe"}]',
    expected: [{ pid: 99, ppid: undefined, name: "svchost.exe", commandLine: "" }],
  },
];

for (const { name, text, expected } of cimCases) {
  test(`PowerShell CIM on Windows: ${name}`, () => {
    assert.deepEqual(parseCimJson(text), expected);
  });
}

test("PowerShell CIM on Windows: output that is not JSON is an error that quotes it", () => {
  assert.throws(() => parseCimJson("Get-CimInstance : Access denied"), /PowerShell's process list is not JSON .*Access denied/);
});

const wordCases: { line: string; count: number; words: string[] }[] = [
  { line: "/usr/bin/python3 -m app", count: 2, words: ["/usr/bin/python3", "-m"] },
  { line: '"C:\\Program Files\\Python312\\python.exe" -m app', count: 2, words: ["C:\\Program Files\\Python312\\python.exe", "-m"] },
  { line: '  uv   run "my script.py"', count: 3, words: ["uv", "run", "my script.py"] },
  { line: '"unterminated quote', count: 1, words: ["unterminated quote"] },
  { line: "", count: 2, words: [] },
];

for (const { line, count, words } of wordCases) {
  test(`commandWords(${JSON.stringify(line)}, ${count})`, () => {
    assert.deepEqual(commandWords(line, count), words);
  });
}

test("the lister on this machine lists a running Python with its pid and command line, among the Python processes ahead of all others", { skip: process.platform === "win32" }, async () => {
  const marker = `dapper-list-test-${process.pid}`;
  const child = spawn("python3", ["-c", "import sys, time; print('up', flush=True); time.sleep(60)", marker, "with spaces", "ünï"], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    await new Promise<void>((resolve, reject) => {
      child.once("error", reject);
      child.stdout.once("data", () => resolve());
    });
    const processes = await listProcesses();
    const found = processes.find((entry) => entry.pid === child.pid);
    assert.ok(found, `pid ${child.pid} is listed`);
    assert.equal(found.ppid, process.pid);
    assert.match(found.name, /^python3/);
    assert.match(found.commandLine, new RegExp(`python3 -c import sys, time; print\\('up', flush=True\\); time.sleep\\(60\\) ${marker} with spaces ünï$`));
    assert.ok(found.user, "the user is known");
    // The listing's own ps processes are not in it.
    const ownPs = processes.filter((entry) => entry.ppid === process.pid && entry.commandLine.startsWith("ps "));
    assert.deepEqual(ownPs, [], `ps ${PS_COMMAND_LINES_ARGS.join(" ")} is left out`);

    const entries = pickerEntries(processes, { debugged: new Set(), excluded: new Set([process.pid]), platform: process.platform });
    const index = entries.findIndex((entry) => entry.process.pid === child.pid);
    const firstOther = entries.findIndex((entry) => !entry.python);
    assert.ok(entries[index]?.python, "it is a Python process");
    assert.ok(firstOther === -1 || index < firstOther, `listed at ${index}, before the first non-Python process at ${firstOther}`);
    assert.ok(!entries.some((entry) => entry.process.pid === process.pid), "the extension host (here: this test's process) is not offered");
  } finally {
    child.kill("SIGKILL");
  }
});

test("listing errors say what failed: ps missing, ps failing, PowerShell missing", async () => {
  await assert.rejects(listProcesses("linux", { ps: "/nonexistent/ps", powershell: "" }), {
    message: "Dapper cannot list the running processes: ps was not found (/nonexistent/ps). Install ps (Debian and Ubuntu: the procps package) or put it on PATH.",
  });
  // Node in the place of ps refuses ps's options: its complaint is passed on.
  await assert.rejects(listProcesses("darwin", { ps: process.execPath, powershell: "" }), /^Error: Dapper cannot list the running processes: ps failed: .*bad option: -A/);
  await assert.rejects(listProcesses("win32", { ps: "", powershell: "/nonexistent/powershell.exe" }), {
    message:
      "Dapper cannot list the running processes: PowerShell (Get-CimInstance Win32_Process) was not found (/nonexistent/powershell.exe). Windows PowerShell 5.1 or later is needed.",
  });
});
