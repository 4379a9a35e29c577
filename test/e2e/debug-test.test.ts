// The Testing view's Debug Test with pytest, as the Python extension starts it, run by
// Dapper's adapter: a `debugpy` configuration whose program is the extension's own pytest
// launcher (a stand-in here: test/fixtures/debug-test/runner), which runs pytest in the
// debugged process with a plugin that sends every test's result back over a pipe the
// extension made (a FIFO on POSIX). Each case runs the fixture's three tests (one passes
// through breakpoints in the test and in the code under test, one fails its assertion,
// one expects an exception) with the exception filters VS Code would send, and checks
// where the session stopped and that every result still reached the pipe, with pytest's
// exit status.
//
// pytest catches a failing test's exception, so the assertion stops as debugpy stops it:
// with "User Uncaught Exceptions" (it leaves the test into pytest's code) and "Raised
// Exceptions", never with "Uncaught Exceptions" alone. With pytest-xdist's workers
// (`-n 2`) each worker is a child session, with the breakpoints and the filters VS Code
// gives every session. pytest and pytest-xdist come from the venv xdist.test.ts makes.
import type { DebugProtocol } from "@vscode/debugprotocol";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, constants, createReadStream, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { SessionTree, type TreeClient } from "./children-support";
import { fixtures, marker, pythons, startServer, fixtureVenv, waitUntil } from "./support";

const dir = path.join(fixtures, "debug-test");
const project = path.join(dir, "project");
const runner = path.join(dir, "runner");
const testFile = path.join(project, "test_calc.py");
const codeFile = path.join(project, "calc.py");
const line = (file: string, name: string) => marker(path.join("debug-test", "project", file), name);
const at = {
  test: `test_calc.py:${line("test_calc.py", "test")}`,
  assertion: `test_calc.py:${line("test_calc.py", "assertion")}`,
  code: `calc.py:${line("calc.py", "code")}`,
  raise: `calc.py:${line("calc.py", "raise")}`,
};
const tests = ["test_total", "test_wrong_total", "test_ratio_of_nothing"];
// The breakpoints the user set: in the test, and in the code under test (which both the
// passing and the failing test call).
const breakpoints = { [testFile]: [line("test_calc.py", "test")], [codeFile]: [line("calc.py", "code")] };
const breakpointStops = [`breakpoint ${at.test}`, `breakpoint ${at.code}`, `breakpoint ${at.code}`];

interface DebugTestCase {
  name: string;
  /** The exception filters of VS Code's Breakpoints view. */
  filters: string[];
  /** pytest's arguments besides those the Python extension passes. */
  pytestArgs: string[];
  /** Child sessions (pytest-xdist's workers), which then run every test. */
  workers: number;
  /** The stops ("reason file:line"): in run order, or sorted when workers share the tests. */
  stops: string[];
  /** Run on every Python; the others run on ONE_PYTHON only. */
  everyPython?: boolean;
}

// A run takes about 3 s (8 s with workers). The exception breakpoints are watched by a
// different tracer before and after 3.12 (settrace, sys.monitoring), so the usual case
// runs on every Python; the others, which differ in what the filters are or in the
// workers (which xdist.test.ts attaches on every Python), run on one that every
// platform's CI has.
const ONE_PYTHON = "3.12";

const cases: DebugTestCase[] = [
  {
    name: "User Uncaught Exceptions (and Uncaught): the breakpoints in the test and the tested code stop, and the failing assertion once",
    filters: ["uncaught", "userUnhandled"],
    pytestArgs: [],
    workers: 0,
    stops: [...breakpointStops, `exception ${at.assertion}`],
    everyPython: true,
  },
  {
    name: "Raised Exceptions: the failing assertion stops, and the exception pytest.raises expects where it is raised",
    filters: ["raised"],
    pytestArgs: [],
    workers: 0,
    stops: [...breakpointStops, `exception ${at.assertion}`, `exception ${at.raise}`],
  },
  {
    name: "Uncaught Exceptions only (VS Code's default): pytest catches the failing assertion, which does not stop (as under debugpy)",
    filters: ["uncaught"],
    pytestArgs: [],
    workers: 0,
    stops: breakpointStops,
  },
  {
    name: "pytest -n 2: each xdist worker is a child session, where the breakpoints and the failing assertion stop",
    filters: ["userUnhandled"],
    pytestArgs: ["-n", "2"],
    workers: 2,
    stops: [...breakpointStops, `exception ${at.assertion}`].sort(),
  },
];

/** A result message of the runner's plugin (runner/stand_in_results.py). */
type ResultMessage = { test: string; outcome: string } | { exitStatus: number };

interface ResultPipe {
  name: string;
  /** The plugin's messages, once it closed the pipe. */
  messages: Promise<ResultMessage[]>;
  /** Lets a reader still waiting for a writer go (a run that never wrote). */
  close(): void;
}

/** Splits Content-Length framed JSON-RPC messages and takes their params. */
function parseMessages(data: string): ResultMessage[] {
  const messages: ResultMessage[] = [];
  let rest = data;
  for (;;) {
    const header = /^Content-Length: (\d+)\r\n\r\n/.exec(rest);
    if (!header) break;
    const start = header[0].length;
    const length = Number(header[1]);
    messages.push((JSON.parse(rest.slice(start, start + length)) as { params: ResultMessage }).params);
    rest = rest.slice(start + length);
  }
  assert.equal(rest, "", "the pipe held a partial message");
  return messages;
}

/** The results pipe, made as the Python extension makes it: mkfifo on POSIX, a named pipe on Windows. */
async function resultPipe(folder: string): Promise<ResultPipe> {
  if (process.platform === "win32") {
    const name = `\\\\.\\pipe\\dapper-debug-test-${process.pid}-${Date.now()}`;
    let received = "";
    let done: (messages: ResultMessage[]) => void = () => undefined;
    const messages = new Promise<ResultMessage[]>((resolve) => (done = resolve));
    const server = net.createServer((socket) => {
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (received += chunk));
      socket.on("end", () => done(parseMessages(received)));
    });
    await new Promise<void>((resolve) => server.listen(name, resolve));
    return { name, messages, close: () => server.close() };
  }
  const name = path.join(folder, "run-results");
  execFileSync("mkfifo", [name]);
  const stream = createReadStream(name, { encoding: "utf8" });
  let received = "";
  stream.on("data", (chunk) => (received += chunk));
  const messages = new Promise<ResultMessage[]>((resolve, reject) => {
    stream.on("end", () => resolve(parseMessages(received)));
    stream.on("error", reject);
  });
  const close = () => {
    // A writer's open and close end a read still waiting to open (nothing was run).
    try {
      closeSync(openSync(name, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // The reader is gone already.
    }
  };
  return { name, messages, close };
}

/**
 * The configuration the Python extension starts for Debug Test of `ids`, once its own
 * launch resolver has filled it in (DebugLauncher: the test launcher as the program, the
 * pipes in env, the launcher's folder left out of the user's code by a rule).
 */
function debugTestConfiguration(python: string, pipe: string, idsFile: string, pytestArgs: string[]): Record<string, unknown> {
  return {
    name: "Debug Unit Test",
    type: "debugpy",
    request: "launch",
    program: path.join(runner, "run_pytest.py"),
    args: [...pytestArgs, `--rootdir=${project}`, "--capture=no"],
    cwd: project,
    console: "internalConsole",
    env: { TEST_RUN_PIPE: pipe, RUN_TEST_IDS_PIPE: idsFile, PYTHONPATH: [runner, project].join(path.delimiter) },
    envFile: path.join(project, ".env"),
    python,
    debugAdapterPython: python,
    debugLauncherPython: python,
    stopOnEntry: false,
    showReturnValue: true,
    redirectOutput: true,
    debugStdLib: false,
    subProcess: true,
    rules: [{ path: runner, include: false }],
    debugOptions: ["ShowReturnValue", "RedirectOutput", "SubProcess"],
    clientOS: process.platform === "win32" ? "windows" : "unix",
    workspaceFolder: project,
    purpose: [],
    __vscodeTestSessionMarker: `test-${Date.now()}`,
  };
}

/** A session's stops as "reason file:line", in order (its client continued each one). */
function stopsOf(session: TreeClient): string[] {
  const reasons = session.all("stopped").map((body) => String(body.reason));
  return session.stops.map((place, index) => `${reasons[index]} ${place}`);
}

for (const python of pythons()) {
  describe(`Python ${python.version}: Debug Test with pytest, as the Python extension starts it`, () => {
    for (const c of cases.filter((c) => c.everyPython || python.version === ONE_PYTHON)) {
      test(c.name, async (context) => {
        const venv = fixtureVenv(python, "xdist");
        if (!venv.executable) return context.skip(venv.reason);
        const folder = mkdtempSync(path.join(os.tmpdir(), "dapper-debug-test-"));
        const idsFile = path.join(folder, "test-ids.txt");
        writeFileSync(idsFile, tests.map((name) => `${testFile}::${name}`).join("\n"));
        const pipe = await resultPipe(folder);
        const server = await startServer();
        const tree = new SessionTree(server.port, breakpoints, true);
        tree.exceptionFilters = c.filters;
        const root = tree.root;
        try {
          await root.start(tree.port);
          root.continueEveryStop();
          // VS Code's configuration sequence: breakpoints and exception filters first.
          await root.initializeRequest({ adapterID: "dapper", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path", supportsStartDebuggingRequest: true });
          const initialized = root.next("initialized");
          const launched = root.launchRequest(debugTestConfiguration(venv.executable, pipe.name, idsFile, c.pytestArgs) as DebugProtocol.LaunchRequestArguments);
          launched.catch(() => undefined);
          await Promise.race([initialized, launched]);
          await initialized;
          for (const [file, lines] of Object.entries(breakpoints)) {
            const set = await root.setBreakpointsRequest({ source: { path: file }, breakpoints: lines.map((bp) => ({ line: bp })) });
            assert.ok(set.body.breakpoints.every((bp) => bp.verified), JSON.stringify(set.body.breakpoints));
          }
          await root.setExceptionBreakpointsRequest({ filters: c.filters });
          await root.configurationDoneRequest();
          await launched;

          const exited = await root.next("exited", 120000);
          const output = root.output("stdout") + root.output("stderr");
          // pytest's own status: one test failed.
          assert.equal(exited.body.exitCode, 1, output);
          assert.match(root.output("stdout"), /1 failed, 2 passed/);
          await waitUntil(() => tree.children.every((child) => child.ended) || tree.failures.length > 0, 20000, "every worker's session to end");
          if (tree.failures.length > 0) throw tree.failures[0];
          assert.equal(tree.children.length, c.workers, "one child session per worker");
          if (c.workers === 0) {
            assert.deepEqual(stopsOf(root), c.stops);
          } else {
            assert.deepEqual(stopsOf(root), []);
            assert.deepEqual(tree.children.flatMap(stopsOf).sort(), c.stops);
          }

          // Every result reached the Testing view's pipe, and the launcher used up its ids.
          const messages = await pipe.messages;
          const results = messages.filter((m): m is { test: string; outcome: string } => "test" in m);
          assert.deepEqual(
            results.sort((a, b) => a.test.localeCompare(b.test)),
            [
              { test: "test_calc.py::test_ratio_of_nothing", outcome: "passed" },
              { test: "test_calc.py::test_total", outcome: "passed" },
              { test: "test_calc.py::test_wrong_total", outcome: "failed" },
            ],
          );
          assert.deepEqual(messages.at(-1), { exitStatus: 1 });
          assert.equal(messages.length, 4);
          assert.ok(!existsSync(idsFile), "the launcher deletes the ids file");
        } finally {
          pipe.close();
          await tree.stop();
          server.stop();
          rmSync(folder, { recursive: true, force: true });
        }
      });
    }
  });
}
