// One debug session through every part, on every CPython of the machine: a real DAP
// client, the standalone adapter (WebAssembly engine in Node), the Python debuggee.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fixtures, isAlive, later, type LaterLines, marker, pythons, RecordingClient, waitUntil } from "./support";

interface ExpectedStop {
  file: string;
  marker: string;
  /** Function names of the top frames, top first. */
  frames: string[];
  /** Locals (name → value) of the top frame. */
  locals?: Record<string, string>;
  /** A local to expand: its children (name → value). */
  expand?: { name: string; children: Record<string, string> };
}

interface Scenario {
  name: string;
  launch: Record<string, unknown>;
  breakpoints: Array<[file: string, marker: string]>;
  /** Files of `breakpoints` whose module is imported only once the program runs. */
  importedLater?: string[];
  stops: ExpectedStop[];
  stdout: string;
  stderr?: string;
  exitCode: number;
}

const scenarios: Scenario[] = [
  {
    name: "a program: breakpoints in the main file and an imported module, output, exit code",
    launch: { program: path.join(fixtures, "main.py"), args: ["7"], cwd: fixtures },
    breakpoints: [["main.py", "main"], ["helper.py", "helper"]],
    importedLater: ["helper.py"],
    stops: [
      {
        file: "main.py",
        marker: "main",
        frames: ["compute", "<module>"],
        locals: { count: "4", items: "[0, 1, 4, 9]" },
        expand: { name: "table", children: { "'count'": "4", "'pair'": "(1, 'two')" } },
      },
      { file: "helper.py", marker: "helper", frames: ["add", "compute", "<module>"], locals: { a: "14", b: "1" } },
    ],
    stdout: "hello total=15\n",
    stderr: "to stderr\n",
    exitCode: 7,
  },
  {
    name: "a module with arguments",
    launch: { module: "greeter", args: ["a", "b", "c"], cwd: fixtures },
    breakpoints: [["greeter/__main__.py", "module"]],
    // A module launch has no program file: its code is loaded when it runs.
    importedLater: ["greeter/__main__.py"],
    stops: [{ file: "greeter/__main__.py", marker: "module", frames: ["<module>"], locals: { words: "['a', 'b', 'c']" } }],
    stdout: "module says a b c\n",
    exitCode: 3,
  },
  {
    name: "code with arguments given as one string",
    launch: { code: "import sys; print('code', sys.argv[1:]); sys.exit(5)", args: "x 'y z'", cwd: fixtures },
    breakpoints: [],
    stops: [],
    stdout: "code ['x', 'y z']\n",
    exitCode: 5,
  },
];

interface BadConfig {
  name: string;
  launch: Record<string, unknown>;
  message: RegExp;
}

const badConfigs: BadConfig[] = [
  { name: "neither program nor module", launch: { cwd: fixtures }, message: /program.*module.*code/i },
  { name: "both program and module", launch: { program: path.join(fixtures, "main.py"), module: "greeter" }, message: /only one|exactly one|both/i },
  { name: "a missing program", launch: { program: path.join(fixtures, "no_such_file.py") }, message: /no_such_file\.py/ },
  { name: "a missing interpreter", launch: { program: path.join(fixtures, "main.py"), python: "/nonexistent/python3" }, message: /\/nonexistent\/python3/ },
];

for (const python of pythons()) {
  describe(`Python ${python.version}`, () => {
    for (const scenario of scenarios) {
      test(scenario.name, async () => {
        const client = new RecordingClient();
        await client.start();
        try {
          const lines: Record<string, number[]> = {};
          for (const [file, name] of scenario.breakpoints) (lines[file] ??= []).push(marker(file, name));
          const breakpoints = Object.fromEntries(
            Object.entries(lines).map(([file, set]): [string, number[] | LaterLines] => [file, scenario.importedLater?.includes(file) ? later(...set) : set]),
          );
          await client.launchWith({ ...scenario.launch, python: python.executable, console: "internalConsole" }, breakpoints);
          for (const expected of scenario.stops) {
            const { event, frames } = await client.nextStop();
            assert.equal(event.body.reason, "breakpoint");
            assert.equal(frames[0].source?.path, path.join(fixtures, expected.file));
            assert.equal(frames[0].line, marker(expected.file, expected.marker));
            assert.deepEqual(frames.slice(0, expected.frames.length).map((f) => f.name), expected.frames);
            const scopes = await client.scopesRequest({ frameId: frames[0].id });
            const locals = await client.values(scopes.body.scopes[0].variablesReference);
            for (const [name, value] of Object.entries(expected.locals ?? {})) assert.equal(locals.get(name)?.value, value, `local ${name}`);
            if (expected.expand) {
              const parent = locals.get(expected.expand.name);
              assert.ok(parent && parent.variablesReference > 0, `${expected.expand.name} can be expanded`);
              const children = await client.values(parent.variablesReference);
              for (const [name, value] of Object.entries(expected.expand.children)) assert.equal(children.get(name)?.value, value, `child ${name}`);
            }
            await client.continueRequest({ threadId: event.body.threadId ?? 0 });
          }
          assert.equal(await client.finished(), scenario.exitCode);
          client.assertVerifiedLater();
          assert.equal(client.output("stdout"), scenario.stdout);
          if (scenario.stderr !== undefined) assert.equal(client.output("stderr"), scenario.stderr);
          // A fast path this Python lacks is said once in the debug console, never silently lost.
          const notices = client.output("console").split("\n").filter((line) => line.startsWith("Dapper: "));
          const monitoring = Number(python.version.split(".")[1]) >= 12;
          assert.equal(notices.length, monitoring ? 0 : 1, notices.join("\n"));
          if (!monitoring) assert.match(notices[0], /has no sys\.monitoring.*sys\.settrace/);
          assert.deepEqual(client.order("exited", "terminated"), ["exited", "terminated"]);
          await client.disconnectRequest({});
        } finally {
          await client.stop();
        }
      });
    }

    test("disconnect while stopped kills the program", async () => {
      const client = new RecordingClient();
      await client.start();
      try {
        await client.launchWith(
          { program: path.join(fixtures, "forever.py"), python: python.executable, console: "internalConsole" },
          { "forever.py": [marker("forever.py", "loop")] },
        );
        await client.nextStop();
        const pid = Number((await client.next("process")).body.systemProcessId);
        assert.ok(pid > 0 && isAlive(pid), "the debuggee runs while stopped");
        await client.disconnectRequest({});
        await waitUntil(() => !isAlive(pid), 5000, `process ${pid} to be gone`);
      } finally {
        await client.stop();
      }
    });

    test("a killed adapter does not leave its launched program running", async () => {
      // The adapter is SIGKILLed (no disconnect, no goodbye): the program notices its
      // connection closing without dapper/detach and ends rather than run on as an orphan.
      const killed = new RecordingClient();
      await killed.start();
      let orphan = 0;
      try {
        await killed.launchWith({ program: path.join(fixtures, "forever.py"), python: python.executable, console: "internalConsole" });
        orphan = Number((await killed.next("process")).body.systemProcessId);
        assert.ok(orphan > 0 && isAlive(orphan));
        killed.adapterProcess?.kill("SIGKILL");
        await waitUntil(() => !isAlive(orphan), 15000, `the launched program ${orphan} to end after its adapter was killed`).catch((error: Error) => {
          throw new Error(`${error.message}; ${processFacts(orphan)}`);
        });
      } finally {
        if (orphan > 0 && isAlive(orphan)) process.kill(orphan, "SIGKILL");
        await killed.stop();
      }
    });

    test("integratedTerminal: the client runs the program (runInTerminal) and the session still ends with its exit code", async () => {
      const client = new RecordingClient();
      await client.start();
      try {
        await client.launchWith(
          { program: path.join(fixtures, "main.py"), args: ["4"], cwd: fixtures, python: python.executable, console: "integratedTerminal" },
          { "helper.py": later(marker("helper.py", "helper")) },
          { supportsRunInTerminalRequest: true },
        );
        assert.equal(client.terminalProcesses.length, 1, "one runInTerminal request");
        const { event, frames } = await client.nextStop();
        assert.equal(frames[0].name, "add");
        await client.continueRequest({ threadId: event.body.threadId ?? 0 });
        assert.equal(await client.finished(), 4);
        assert.deepEqual(client.order("exited", "terminated"), ["exited", "terminated"]);
        await client.terminalsDone();
        assert.match(client.terminalOutput, /hello total=15\n/);
        assert.equal(client.output("stdout"), "", "the program's output goes to the terminal, not the debug console");
      } finally {
        await client.stop();
      }
    });

    for (const bad of badConfigs) {
      test(`launch fails clearly for ${bad.name}`, async () => {
        const client = new RecordingClient();
        await client.start();
        try {
          await client.initializeRequest();
          await assert.rejects(client.launchRequest({ python: python.executable, ...bad.launch } as never), bad.message);
        } finally {
          await client.stop();
        }
      });
    }
  });
}

/** What /proc says of a process, for a failure's message. */
function processFacts(pid: number): string {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").filter((line) => /^(State|PPid|Threads|SigCgt|SigBlk|SigIgn):/.test(line));
    return status.join(", ");
  } catch {
    return `no /proc/${pid}`;
  }
}
