// The agent tools' logic without an engine or VS Code: a stand-in session answers DAP
// requests from a table, as a debuggee would, and the tools' text is checked. The real
// engine and Python are test/e2e/mcp.test.ts; this covers what VS Code's tools add to
// what the user's session shows (the tracker's events) and the rules in between.

import assert from "assert/strict";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { test } from "node:test";
import type { AgentBackend, Breakpoint, ListedBreakpoint } from "./backend";
import { looksSecret, parsePythonCommand } from "./render";
import { AgentSession, withLocalPaths } from "./session";
import { startConfiguration } from "./sessionTools";
import { AGENT_TOOLS, runTool } from "./tools";

type Answers = Record<string, (args: Record<string, unknown>) => Record<string, unknown>>;

function backendWith(sessions: AgentSession[], maskSecrets = true, initial: ListedBreakpoint[] = []): AgentBackend {
  let breakpoints: ListedBreakpoint[] = [...initial];
  return {
    maskSecrets,
    sessions: () => sessions,
    start: () => Promise.reject(new Error("not here")),
    end: async (session) => session.markEnded(),
    listBreakpoints: () => breakpoints,
    // One breakpoint a place, as both real backends keep them.
    addBreakpoints: async (added: Breakpoint[]) =>
      void (breakpoints = [...breakpoints.filter((b) => !added.some((a) => a.kind === "line" && b.kind === "line" && a.file === b.file && a.line === b.line)), ...added]),
    removeBreakpoints: async (matches) => {
      const before = breakpoints.length;
      breakpoints = breakpoints.filter((b) => !matches(b));
      return before - breakpoints.length;
    },
  };
}

function sessionAnswering(name: string, answers: Answers, parent?: AgentSession): AgentSession {
  return new AgentSession(name, name, parent, async (command, args) => {
    const answer = answers[command];
    if (answer === undefined) throw new Error(`unexpected ${command}`);
    return answer(args ?? {});
  });
}

const call = async (tool: string, args: Record<string, unknown>, backend: AgentBackend) => {
  const found = AGENT_TOOLS.find((t) => t.name === tool);
  assert.ok(found);
  return runTool(found, args, { backend, baseDirectory: "/work" });
};

// The program's environment: its values are masked like secrets, its names are not.
const environItems = [
  { name: "'HOME'", value: "'/home/ann'", type: "str", variablesReference: 0, evaluateName: "settings['HOME']" },
  { name: "'GH_PAT'", value: "'ghp_abc123'", type: "str", variablesReference: 0, evaluateName: "settings['GH_PAT']" },
];
const environRepr = "environ({'HOME': '/home/ann', 'GH_PAT': 'ghp_abc123'})";

// A stopped program with a 100,000-key dict, a password and os.environ, as the debuggee pages them.
const bigDict = Array.from({ length: 100_000 }, (_, i) => ({ name: `'k${i}'`, value: String(i), type: "int", variablesReference: 0 }));
const stoppedProgram: Answers = {
  threads: () => ({ threads: [{ id: 1, name: "MainThread" }, { id: 2, name: "worker" }] }),
  stackTrace: () => ({ stackFrames: [{ id: 7, name: "main", line: 3, source: { path: "/work/app.py" } }], totalFrames: 1 }),
  scopes: () => ({ scopes: [{ name: "Locals", variablesReference: 1, namedVariables: 2 }] }),
  variables: (args) => {
    if (args.variablesReference === 1) {
      return {
        variables: [
          { name: "db_password", value: "'hunter2'", type: "str", variablesReference: 0 },
          { name: "big", value: "{" + "'k': 1, ".repeat(10_000) + "}", type: "dict", variablesReference: 2, indexedVariables: 100_000, evaluateName: "big" },
          { name: "settings", value: environRepr, type: "os._Environ", variablesReference: 3, namedVariables: 2, evaluateName: "settings" },
        ],
      };
    }
    if (args.variablesReference === 3) return { variables: environItems };
    const start = Number(args.start ?? 0);
    return { variables: bigDict.slice(start, start + Number(args.count ?? bigDict.length)) };
  },
  evaluate: (args) => {
    if (args.expression === "1/0") throw new Error("ZeroDivisionError: division by zero");
    if (args.expression === "os.environ") return { result: environRepr, type: "os._Environ", variablesReference: 3, namedVariables: 2 };
    if (args.expression === "os.getenv('HOME')" || args.expression === "os.environ['HOME']") return { result: "'/home/ann'", type: "str", variablesReference: 0 };
    if (args.expression === "big") return { result: "{…}", type: "dict", variablesReference: 2, indexedVariables: 100_000 };
    return { result: "x".repeat(50_000), type: "str", variablesReference: 0 };
  },
};

function stopped(name: string): AgentSession {
  const session = sessionAnswering(name, stoppedProgram);
  session.onEvent("stopped", { reason: "breakpoint", threadId: 1 });
  return session;
}

const cases: { name: string; tool: string; args: Record<string, unknown>; sessions: () => AgentSession[]; mask?: boolean; says: RegExp[]; not?: RegExp[]; error?: boolean }[] = [
  { name: "a frame's variables: secrets masked, a big dict one cut line", tool: "variables", args: {}, sessions: () => [stopped("app")], says: [/^Locals of frame 0, items 0–2 of 2:/, /db_password \(str\) = <masked/, /big \(dict, 100000 items; open with path="big"\) = \{'k': 1, .*more chars cut/], not: [/hunter2/] },
  { name: "masking off shows the secret", tool: "variables", args: {}, sessions: () => [stopped("app")], mask: false, says: [/db_password \(str\) = 'hunter2'/, /settings \(os\._Environ.*\) = environ\(\{'HOME': '\/home\/ann'/] },
  { name: "the environment held in a variable is masked, and so are its items", tool: "variables", args: { depth: 2 }, sessions: () => [stopped("app")], says: [/settings \(os\._Environ, 2 items\) = <masked: environment variables/, /'HOME' \(str\) = <masked: environment variables/, /'GH_PAT' \(str\) = <masked/], not: [/ghp_abc123/, /\/home\/ann/] },
  { name: "os.environ's items by path: names shown, values masked", tool: "variables", args: { path: "os.environ" }, sessions: () => [stopped("app")], says: [/^os\.environ \(os\._Environ\), items 0–1 of 2:/, /'GH_PAT' \(str\) = <masked: environment variables/], not: [/ghp_abc123/] },
  { name: "os.environ evaluated: masked, with how to list its names", tool: "evaluate", args: { expression: "os.environ" }, sessions: () => [stopped("app")], says: [/^<masked: environment variables/, /list them with variables, path="os\.environ"/], not: [/ghp_abc123/, /\/home\/ann/] },
  { name: "an environment variable read by getenv is masked", tool: "evaluate", args: { expression: "os.getenv('HOME')" }, sessions: () => [stopped("app")], says: [/^<masked: environment variables/], not: [/\/home\/ann/] },
  { name: "an environment variable read by path is masked", tool: "variables", args: { path: "os.environ['HOME']" }, sessions: () => [stopped("app")], says: [/^os\.environ\['HOME'\] = <masked: environment variables/], not: [/\/home\/ann/] },
  { name: "masking off shows the environment", tool: "evaluate", args: { expression: "os.getenv('HOME')" }, sessions: () => [stopped("app")], mask: false, says: [/^'\/home\/ann'$/] },
  { name: "a dict's page", tool: "variables", args: { path: "big", start: 10, count: 3 }, sessions: () => [stopped("app")], says: [/items 10–12 of 100000 \(more with start=13\)/, /'k12' \(int\) = 12$/] },
  { name: "depth opens ten items a level and says how many are left", tool: "variables", args: { depth: 2 }, sessions: () => [stopped("app")], says: [/ {4}'k9' \(int\) = 9\n {4}… 99990 more \(path="big"\)/] },
  { name: "evaluate cuts at maxChars", tool: "evaluate", args: { expression: "s", maxChars: 100 }, sessions: () => [stopped("app")], says: [/^x{100}… \[49900 more chars cut; raise maxChars to see more\]$/] },
  { name: "an expression's error comes back with its message", tool: "evaluate", args: { expression: "1/0" }, sessions: () => [stopped("app")], error: true, says: [/Evaluating 1\/0 failed: ZeroDivisionError: division by zero/] },
  { name: "the one stopped session is the one meant", tool: "stack", args: {}, sessions: () => [stopped("app"), running("server")], says: [/#0 main {2}app.py:3/] },
  { name: "a stack names its thread and the others", tool: "stack", args: {}, sessions: () => [stopped("app")], says: [/^Thread 1 "MainThread", frames 0–0 of 1:/, /\nOther threads: 2 "worker"; give thread for one's stack\.$/] },
  { name: "two running sessions must be named", tool: "stack", args: {}, sessions: () => [running("a"), running("b")], error: true, says: [/2 sessions are live: "a", "b"\. Name the one you mean with session\./] },
  { name: "a running session cannot show its stack", tool: "stack", args: { session: "a" }, sessions: () => [running("a")], error: true, says: [/is running, not stopped\. Call wait/] },
  { name: "the sessions list names children's parents", tool: "sessions", args: {}, sessions: () => { const parent = running("web"); return [parent, new AgentSession("2", "worker 41", parent, async () => ({}))]; }, says: [/"web": running/, /"worker 41", child of "web": starting/, /No breakpoints\./] },
];

function running(name: string): AgentSession {
  const session = sessionAnswering(name, stoppedProgram);
  session.markRunning();
  return session;
}

for (const c of cases) {
  test(`agent tools: ${c.name}`, async () => {
    const result = await call(c.tool, c.args, backendWith(c.sessions(), c.mask ?? true));
    assert.equal(result.isError, c.error === true, result.text);
    for (const pattern of c.says) assert.match(result.text, pattern);
    for (const pattern of c.not ?? []) assert.doesNotMatch(result.text, pattern);
  });
}

test("a session follows the events it is sent: the user's continue is seen, a wait ends at its limit or at the stop", async () => {
  const session = new AgentSession("1", "app", undefined, async () => ({}));
  session.onEvent("stopped", { reason: "breakpoint", threadId: 1 });
  assert.equal(await session.waitForStop(0, 10), "stopped");
  // The user pressed Continue in VS Code: the tracker saw the request.
  session.markRunning();
  const before = Date.now();
  assert.equal(await session.waitForStop(session.stopCount, 50), "timeout");
  assert.ok(Date.now() - before < 1000);
  const next = session.waitForStop(session.stopCount, 5000);
  session.onEvent("stopped", { reason: "step", threadId: 1 });
  assert.equal(await next, "stopped");
  session.onEvent("exited", { exitCode: 3 });
  session.onEvent("terminated", {});
  assert.deepEqual(session.status, { kind: "ended", exitCode: 3 });
});

// A program is its session and its child processes' sessions: a wait on it ends at a stop
// in any of them (a new one, not one from before), or at its own end; another program's
// stops are not its. Each case: the sessions before the call (a parent's name after
// "<"), the call, what happens while it waits, and the answer.
const programWaitCases: {
  name: string;
  before: { name: string; parent?: string; stopped?: boolean }[];
  tool: string;
  args: Record<string, unknown>;
  /** Events once the call waits: a session's name, or a new child "name<parent" that begins, then its events. */
  then: { session: string; events: [string, Record<string, unknown>][] }[];
  says: RegExp[];
}[] = [
  { name: "a child's stop ends a wait on its parent, and says whose child it is", before: [{ name: "web" }, { name: "worker", parent: "web" }], tool: "wait", args: { session: "web" }, then: [{ session: "worker", events: [["stopped", { reason: "breakpoint", threadId: 1 }]] }], says: [/^Session "worker", child of "web", stopped \(breakpoint\) in thread 1\.\nAt main in app\.py:3/, /\nOther sessions of this program:\n {2}"web": running$/] },
  { name: "a child that begins during the wait and stops ends it", before: [{ name: "web" }], tool: "wait", args: { session: "web" }, then: [{ session: "worker<web", events: [["stopped", { reason: "breakpoint", threadId: 1 }]] }], says: [/^Session "worker", child of "web", stopped \(breakpoint\)/] },
  { name: "a grandchild's stop ends it too", before: [{ name: "web" }, { name: "pool", parent: "web" }, { name: "task", parent: "pool" }], tool: "wait", args: { session: "web" }, then: [{ session: "task", events: [["stopped", { reason: "breakpoint", threadId: 1 }]] }], says: [/^Session "task", child of "pool", stopped/, /"web": running\n {2}"pool", child of "web": running$/] },
  { name: "a child stopped before the wait does not end it", before: [{ name: "web" }, { name: "worker", parent: "web", stopped: true }], tool: "wait", args: { session: "web", timeout: 0.05 }, then: [], says: [/^Session "web" is still running after 0\.05 s\./] },
  { name: "another program's stop is not this one's", before: [{ name: "web" }, { name: "cli" }], tool: "wait", args: { session: "web", timeout: 0.05 }, then: [{ session: "cli", events: [["stopped", { reason: "breakpoint", threadId: 1 }]] }], says: [/^Session "web" is still running after 0\.05 s\./] },
  { name: "a child continued to its end: the answer is its end and its parent's state", before: [{ name: "web" }, { name: "worker", parent: "web", stopped: true }], tool: "control", args: { action: "continue", session: "worker" }, then: [{ session: "worker", events: [["exited", { exitCode: 3 }], ["terminated", {}]] }], says: [/^Session "worker", child of "web", ended with exit code 3\.\nOther sessions of this program:\n {2}"web": running$/] },
];

for (const c of programWaitCases) {
  test(`agent tools, waits on a program: ${c.name}`, async () => {
    const sessions: AgentSession[] = [];
    const add = (name: string, parent: string | undefined) => {
      const session = sessionAnswering(name, { ...stoppedProgram, continue: () => ({}) }, sessions.find((s) => s.name === parent));
      session.markRunning();
      sessions.push(session);
      return session;
    };
    for (const b of c.before) {
      const session = add(b.name, b.parent);
      if (b.stopped) session.onEvent("stopped", { reason: "breakpoint", threadId: 1 });
    }
    const answer = call(c.tool, c.args, backendWith(sessions));
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (const step of c.then) {
      const [name, parent] = step.session.split("<");
      const session = sessions.find((s) => s.name === name) ?? add(name, parent);
      for (const [event, body] of step.events) session.onEvent(event, body);
    }
    const result = await answer;
    assert.equal(result.isError, false, result.text);
    for (const pattern of c.says) assert.match(result.text, pattern);
  });
}

test("paths a remote VS Code hands back as URIs are the debuggee's paths again; others are left alone", () => {
  const body = {
    stackFrames: [
      { id: 1, name: "main", line: 16, source: { path: "vscode-remote://127.0.0.1:44085/tmp/work/inventory.py" } },
      { id: 2, name: "<module>", line: 23, source: { path: "/tmp/work/inventory.py", name: "inventory.py" } },
      { id: 3, name: "f", line: 1, source: { name: "<string>", sourceReference: 7 } },
    ],
    totalFrames: 3,
  };
  const toPath = (uri: string) => decodeURIComponent(new URL(uri).pathname);
  assert.deepEqual(withLocalPaths(body, toPath), {
    stackFrames: [
      { id: 1, name: "main", line: 16, source: { path: "/tmp/work/inventory.py" } },
      { id: 2, name: "<module>", line: 23, source: { path: "/tmp/work/inventory.py", name: "inventory.py" } },
      { id: 3, name: "f", line: 1, source: { name: "<string>", sourceReference: 7 } },
    ],
    totalFrames: 3,
  });
  // A value's text that happens to look like a URI is the program's, not a path.
  assert.deepEqual(withLocalPaths({ result: "'vscode-remote://x/y'", path: "s3://bucket/key" }, toPath), { result: "'vscode-remote://x/y'", path: "s3://bucket/key" });
});

test("output is read by offset, and what was dropped is counted", () => {
  const session = new AgentSession("1", "app", undefined, async () => ({}));
  session.onEvent("output", { category: "stdout", output: "hello\n" });
  session.onEvent("output", { category: "stderr", output: "world\n" });
  assert.deepEqual(session.outputSince(0, 6), { text: "hello\n", from: 0, next: 6, dropped: 0, more: 6 });
  assert.deepEqual(session.outputSince(6, 100), { text: "world\n", from: 6, next: 12, dropped: 0, more: 0 });
  session.onEvent("output", { category: "stdout", output: "x".repeat(1_000_000) });
  const read = session.outputSince(0, 5);
  assert.equal(read.dropped, 12);
  assert.equal(read.from, 12);
});

// Run to a line: a temporary breakpoint while the program runs, gone once it stops (or
// ends), and the user's own breakpoint on that line, whatever its options, as it was.
const runToProgram = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "dapper-runto-")), "prog.py");
fs.writeFileSync(runToProgram, "def main():\n    x = 1\n    y = 2\n    return x + y\nmain()\n");
const at = (line: number, options: Partial<ListedBreakpoint> = {}): ListedBreakpoint => ({ kind: "line", file: runToProgram, line, ...options }) as ListedBreakpoint;

const runToCases: {
  name: string;
  args: Record<string, unknown>;
  before: ListedBreakpoint[];
  /** Where the program stops after the continue, or that it ends, or that it runs past the wait. */
  then: { line: number; reason: string } | "ends" | "runs on";
  /** The breakpoints while it ran, and once the tool (and the late stop, when it runs on) is done. */
  running: ListedBreakpoint[];
  after: ListedBreakpoint[];
  says: RegExp[];
}[] = [
  { name: "no breakpoint there: a temporary one, gone at the stop", args: { line: 4 }, before: [], then: { line: 4, reason: "breakpoint" }, running: [at(4)], after: [], says: [/^Ran to .*prog\.py:4\.\nSession "app" stopped \(breakpoint\)/, /At main in .*prog\.py:4\n {2}4 \| return x \+ y/] },
  { name: "by the line's text", args: { text: "y = 2" }, before: [], then: { line: 3, reason: "breakpoint" }, running: [at(3)], after: [], says: [/^Ran to .*prog\.py:3\./] },
  { name: "the user's plain breakpoint there is the one that stops, untouched", args: { line: 4 }, before: [at(4)], then: { line: 4, reason: "breakpoint" }, running: [at(4)], after: [at(4)], says: [/^Ran to .*prog\.py:4\./] },
  { name: "the user's conditional logpoint there stops this once, then is put back", args: { line: 4 }, before: [at(4, { condition: "x > 5", hitCondition: ">2", logMessage: "x={x}" })], then: { line: 4, reason: "breakpoint" }, running: [at(4)], after: [at(4, { condition: "x > 5", hitCondition: ">2", logMessage: "x={x}" })], says: [/^Ran to/] },
  { name: "the user's disabled breakpoint there stops this once, then is disabled again", args: { line: 4 }, before: [at(4, { enabled: false })], then: { line: 4, reason: "breakpoint" }, running: [at(4)], after: [at(4, { enabled: false })], says: [/^Ran to/] },
  { name: "a stop before the line: the temporary breakpoint goes too", args: { line: 4 }, before: [at(2)], then: { line: 2, reason: "breakpoint" }, running: [at(2), at(4)], after: [at(2)], says: [/^Stopped before reaching .*prog\.py:4 \(its temporary breakpoint is removed\)\.\nSession "app" stopped \(breakpoint\)/, /prog\.py:2/] },
  { name: "the program ends first", args: { line: 4 }, before: [], then: "ends", running: [at(4)], after: [], says: [/^Did not reach .*prog\.py:4 \(its temporary breakpoint is removed\)\.\nSession "app" ended with exit code 0/] },
  { name: "still running at the limit: the breakpoint stays until the stop comes", args: { line: 4, wait: 0 }, before: [], then: "runs on", running: [at(4)], after: [], says: [/still running after 0 s/, /temporary breakpoint at .*prog\.py:4 stays until the program stops, then goes/] },
];

for (const c of runToCases) {
  test(`agent tools, control runTo: ${c.name}`, async () => {
    let running: ListedBreakpoint[] | undefined;
    let stopLine = 1;
    // eslint-disable-next-line prefer-const -- the stand-in's answers need the backend made after it
    let backend: AgentBackend;
    const session = new AgentSession("app", "app", undefined, async (command) => {
      if (command === "continue") {
        running = backend.listBreakpoints();
        if (c.then === "ends") setImmediate(() => (session.onEvent("exited", { exitCode: 0 }), session.onEvent("terminated", {})));
        else if (c.then !== "runs on") {
          const { line, reason } = c.then;
          setImmediate(() => ((stopLine = line), session.onEvent("stopped", { reason, threadId: 1 })));
        }
        return {};
      }
      if (command === "stackTrace") return { stackFrames: [{ id: 1, name: "main", line: stopLine, source: { path: runToProgram } }], totalFrames: 1 };
      throw new Error(`unexpected ${command}`);
    });
    session.onEvent("stopped", { reason: "entry", threadId: 1 });
    backend = backendWith([session], true, c.before);
    const result = await call("control", { action: "runTo", file: runToProgram, ...c.args }, backend);
    assert.equal(result.isError, false, result.text);
    for (const pattern of c.says) assert.match(result.text, pattern);
    const sorted = (list: ListedBreakpoint[] | undefined) => [...(list ?? [])].sort((a, b) => (a.kind === "line" && b.kind === "line" ? a.line - b.line : 0));
    assert.deepEqual(sorted(running), sorted(c.running), "while running");
    if (c.then === "runs on") {
      assert.deepEqual(sorted(backend.listBreakpoints()), sorted(c.running), "still there while it runs");
      stopLine = 4;
      session.onEvent("stopped", { reason: "breakpoint", threadId: 1 });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(sorted(backend.listBreakpoints()), sorted(c.after), "afterwards");
  });
}

const badRunTo: { args: Record<string, unknown>; says: RegExp }[] = [
  { args: { action: "runTo", line: 4 }, says: /runTo needs file with line or text/ },
  { args: { action: "runTo", file: "/nowhere/x.py", line: 4 }, says: /Cannot read \/nowhere\/x\.py/ },
  { args: { action: "runTo", file: runToProgram, line: 99 }, says: /has 6 lines; line 99 is past its end/ },
  { args: { action: "continue", file: runToProgram, line: 4 }, says: /file, line and text go with action runTo only/ },
];

for (const { args, says } of badRunTo) {
  test(`agent tools, control runTo refuses ${JSON.stringify(args)}`, async () => {
    const result = await call("control", args, backendWith([stopped("app")]));
    assert.equal(result.isError, true, result.text);
    assert.match(result.text, says);
  });
}

const commandLines: { line: string; is?: object; error?: RegExp }[] = [
  { line: "python -m http.server 8000", is: { python: "python", module: "http.server", args: ["8000"] } },
  { line: "/usr/bin/python3.12 -X dev -u app.py --name 'a b'", is: { python: "/usr/bin/python3.12", program: "app.py", args: ["--name", "a b"] } },
  { line: 'python3 -c "print(1)" x', is: { python: "python3", code: "print(1)", args: ["x"] } },
  { line: "app.py one", is: { program: "app.py", args: ["one"] } },
  { line: "pytest tests/test_a.py::test_b -x", is: { module: "pytest", args: ["tests/test_a.py::test_b", "-x"] } },
  { line: "python -O", error: /runs no file, module or code/ },
  { line: "npm test", error: /"npm" is not a Python interpreter/ },
  { line: "python 'app.py", error: /unclosed '/ },
];

for (const { line, is, error } of commandLines) {
  test(`a command line: ${line}`, () => {
    if (error) assert.throws(() => parsePythonCommand(line), error);
    else assert.deepEqual(parsePythonCommand(line), is);
  });
}

test("names that look like secrets", () => {
  const secret = ["password", "db_password", "apiKey", "API_KEY", "github_token", "authToken", "client_secret", "privateKey", "session_key", "pwd"];
  const plain = ["total", "tokens", "passenger", "keyboard", "author", "bypass", "secretary"];
  assert.deepEqual(secret.filter((name) => !looksSecret(name)), []);
  assert.deepEqual(plain.filter(looksSecret), []);
});

test("start's configuration: a pytest node id runs under pytest, an existing name gets a number", () => {
  const existing = [new AgentSession("1", "tests/test_a.py::test_b", undefined, async () => ({}))];
  assert.deepEqual(startConfiguration({ pytest: "tests/test_a.py::test_b", python: "python3" }, "/work", existing), {
    type: "dapper",
    request: "launch",
    name: "tests/test_a.py::test_b (2)",
    cwd: "/work",
    args: ["tests/test_a.py::test_b"],
    console: "internalConsole",
    module: "pytest",
    python: "python3",
  });
  assert.deepEqual(startConfiguration({ pid: 4242 }, "/work", []), { type: "dapper", request: "attach", name: "pid 4242", processId: 4242 });
});
