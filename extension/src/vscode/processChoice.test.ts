// The rules of the process picker: which processes are Python, their order, what is left
// out and marked, and the configurations a choice makes.
import assert from "assert/strict";
import { test } from "node:test";
import { isPythonProcess, pickerEntries, pickProcessConfiguration, pidOf, processAttachConfiguration } from "./processChoice";
import type { ProcessInfo } from "./processList";

// name: the executable's name as the OS lists it; commandLine: the whole command line.
const pythonCases: { name: string; commandLine: string; python: boolean; why: string }[] = [
  { name: "python3", commandLine: "/usr/bin/python3 app.py", python: true, why: "python3" },
  { name: "python", commandLine: "python -m http.server", python: true, why: "python" },
  { name: "python3.12", commandLine: "/usr/local/bin/python3.12 -X dev app.py", python: true, why: "a versioned name" },
  { name: "python3.13t", commandLine: "python3.13t app.py", python: true, why: "free-threaded 3.13" },
  { name: "python3.11-dbg", commandLine: "python3.11-dbg app.py", python: true, why: "Debian's debug build" },
  { name: "pypy3", commandLine: "pypy3 bench.py", python: true, why: "PyPy" },
  { name: "pypy3.10", commandLine: "/opt/pypy/bin/pypy3.10 bench.py", python: true, why: "a versioned PyPy" },
  { name: "python", commandLine: "/home/me/proj/.venv/bin/python manage.py runserver", python: true, why: "a venv's python" },
  { name: "python3.12", commandLine: "/home/me/.pyenv/versions/3.12.1/bin/python3.12 app.py", python: true, why: "what a pyenv shim execs" },
  { name: "python", commandLine: "/home/me/.pyenv/shims/python app.py", python: true, why: "a pyenv shim by its own name" },
  { name: "direct.py", commandLine: "/usr/bin/python3.12 ./direct.py", python: true, why: "a #!/usr/bin/python3.12 script: Linux names it after the script" },
  { name: "Web Content", commandLine: "/usr/bin/python3 -c pass", python: true, why: "a Python that renamed itself: its command line still says python3" },
  { name: "Python", commandLine: "/Library/Frameworks/Python.framework/Versions/3.12/Resources/Python.app/Contents/MacOS/Python app.py", python: true, why: "macOS's framework build" },
  { name: "python3", commandLine: "/Users/me/My Project/.venv/bin/python3 app.py", python: true, why: "a path with a space: the name says it" },
  { name: "python.exe", commandLine: '"C:\\Users\\Zoë\\App\\.venv\\Scripts\\python.exe" app.py', python: true, why: "Windows, quoted" },
  { name: "pythonw.exe", commandLine: "C:\\Python312\\pythonw.exe gui.pyw", python: true, why: "Windows' windowless python" },
  { name: "PYTHON.EXE", commandLine: "", python: true, why: "Windows without a command line (another user's)" },
  { name: "uv", commandLine: "uv run app.py", python: true, why: "uv run" },
  { name: "uv.exe", commandLine: '"C:\\Users\\me\\.cargo\\bin\\uv.exe" run --with rich app.py', python: true, why: "uv run on Windows" },
  { name: "poetry", commandLine: "/home/me/.local/bin/poetry run serve", python: true, why: "poetry run" },
  { name: "uvx", commandLine: "uvx ruff check", python: true, why: "uvx runs a Python tool" },
  { name: "uv", commandLine: "uv pip install requests", python: false, why: "uv not running a program" },
  { name: "py.exe", commandLine: "py -3.12 app.py", python: false, why: "the Windows launcher only waits for the python.exe it starts" },
  { name: "bash", commandLine: "bash -c python3 app.py", python: false, why: "a shell that will start python" },
  { name: "vim", commandLine: "vim app.py", python: false, why: "a Python file, not a Python process" },
  { name: "python-language-server", commandLine: "python-language-server --stdio", python: false, why: "a name that only starts with python" },
  { name: "node", commandLine: "/usr/bin/node /home/me/.vscode-server/bin/x/out/server-main.js", python: false, why: "node" },
  { name: "", commandLine: "", python: false, why: "nothing known" },
];

for (const { name, commandLine, python, why } of pythonCases) {
  test(`isPythonProcess: ${why} (${JSON.stringify(name)}, ${JSON.stringify(commandLine)}) is ${python ? "" : "not "}Python`, () => {
    assert.equal(isPythonProcess({ name, commandLine }), python);
  });
}

const processes: ProcessInfo[] = [
  { pid: 2, ppid: 0, user: "root", name: "kthreadd", commandLine: "[kthreadd]" },
  { pid: 14, ppid: 2, user: "root", name: "ksoftirqd/0", commandLine: "[ksoftirqd/0]" },
  { pid: 300, ppid: 1, user: "me", name: "bash", commandLine: "-bash" },
  { pid: 420, ppid: 300, user: "me", name: "python3", commandLine: "python3 worker.py" },
  { pid: 410, ppid: 300, user: "me", name: "python3", commandLine: "python3 server.py" },
  { pid: 500, ppid: 1, user: "me", name: "node", commandLine: "node extensionHost.js" },
  { pid: 600, ppid: 1, user: "me", name: "Code Helper", commandLine: "[brackets, not a kernel thread]" },
  { pid: 700, ppid: 300, user: "me", name: "direct.py", commandLine: "/usr/bin/python3 ./direct.py" },
  { pid: 800, ppid: 300, user: "me", name: "awk", commandLine: "awk {print}" },
];

test("pickerEntries: Python first, each group by name then pid; the host and Linux kernel threads left out; debugged ones marked", () => {
  const entries = pickerEntries(processes, { debugged: new Set([420, 9999]), excluded: new Set([500]), platform: "linux" });
  assert.deepEqual(
    entries.map(({ process, python, debugged }) => `${process.pid} ${process.name}${python ? " python" : ""}${debugged ? " debugged" : ""}`),
    ["700 direct.py python", "410 python3 python", "420 python3 python debugged", "800 awk", "300 bash", "600 Code Helper"],
  );
});

test("pickerEntries: off Linux, a process that looks like a kernel thread is offered", () => {
  const entries = pickerEntries(processes.slice(0, 2), { debugged: new Set(), excluded: new Set(), platform: "darwin" });
  assert.deepEqual(
    entries.map((entry) => entry.process.pid),
    [14, 2],
  );
});

test("the configuration of a chosen process attaches to its pid, named after it", () => {
  assert.deepEqual(processAttachConfiguration({ pid: 4242, name: "python3" }), {
    type: "dapper",
    request: "attach",
    name: "Attach to 4242 python3",
    processId: 4242,
  });
});

test("the dynamic configuration asks the picker for the pid through the pickProcess variable", () => {
  assert.deepEqual(pickProcessConfiguration(), {
    type: "dapper",
    request: "attach",
    name: "Dapper: Attach to Process",
    processId: "${command:pickProcess}",
  });
});

const pidCases: { value: unknown; pid: number | undefined }[] = [
  { value: 4242, pid: 4242 },
  { value: "4242", pid: 4242 },
  { value: " 17 ", pid: 17 },
  { value: "${command:pickProcess}", pid: undefined },
  { value: 0, pid: undefined },
  { value: -5, pid: undefined },
  { value: 1.5, pid: undefined },
  { value: "12abc", pid: undefined },
  { value: "", pid: undefined },
  { value: undefined, pid: undefined },
  { value: null, pid: undefined },
];

for (const { value, pid } of pidCases) {
  test(`pidOf(${JSON.stringify(value)}) is ${pid}`, () => {
    assert.equal(pidOf(value), pid);
  });
}
