// Launch options that the engine decides on (envFile, noDebug, the configuration
// audit, keys it does not know, the terminal's directory, interpreters it cannot use),
// through the standalone adapter and a real Python, on every CPython.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { InterpreterChecker, interpreterMessage } from "../../extension/src/vscode/interpreterCheck";
import { fixtures, pythons, root, RecordingClient } from "./support";

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "dapper-launch-options-"));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));
fs.writeFileSync(path.join(scratch, "app.env"), "# settings\nexport FROM_FILE='file value'\nBOTH=from file\n");
fs.writeFileSync(path.join(scratch, "bad.env"), "OK=1\nthis line is wrong\n");
// A program with a top-level package of its own named `dapper` (as PyPI's DAPPER is):
// the debugger's package must not shadow it, nor it the debugger's.
fs.mkdirSync(path.join(scratch, "shadow", "dapper"), { recursive: true });
fs.writeFileSync(path.join(scratch, "shadow", "dapper", "__init__.py"), "NAME = 'the program s own dapper'\n");
fs.writeFileSync(path.join(scratch, "shadow", "main.py"), "import dapper\nprint(dapper.NAME)\n");

/** Prints two variables and exits with 4, so both output and exit code are visible. */
const printEnv = "import os, sys; print(os.environ.get('FROM_FILE'), '|', os.environ.get('BOTH')); sys.exit(4)";

interface RunCase {
  name: string;
  launch: Record<string, unknown>;
  stdout: string;
  exitCode: number;
  /** A request that must fail, with the message it must give. */
  refused?: { command: string; args: object; message: RegExp };
}

const runs: RunCase[] = [
  {
    name: "envFile variables reach the program, and env wins over them",
    launch: { code: printEnv, cwd: scratch, envFile: "app.env", env: { BOTH: "from env" } },
    stdout: "file value | from env\n",
    exitCode: 4,
  },
  {
    name: "noDebug runs the program with its output and exit code, and refuses tracer requests",
    launch: { code: "import sys, time; print('ran'); time.sleep(0.5); sys.exit(6)", noDebug: true },
    stdout: "ran\n",
    exitCode: 6,
    refused: { command: "stackTrace", args: { threadId: 1 }, message: /noDebug/ },
  },
  {
    name: "a module run with -E (no PYTHONPATH) runs under the debugger",
    launch: { module: "main", cwd: path.join(scratch, "shadow"), pythonArgs: ["-E"] },
    stdout: "the program s own dapper\n",
    exitCode: 0,
  },
  {
    name: "code run with -I (isolated) sees the flag and none of the debugger's path",
    launch: {
      code:
        "import os, sys; print(sys.flags.isolated, " +
        "[e for e in sys.path if os.path.isdir(os.path.join(e or '.', 'dapperdbg'))]); sys.exit(3)",
      pythonArgs: ["-I"],
    },
    stdout: "1 []\n",
    exitCode: 3,
  },
  {
    name: "a program with its own top-level package named dapper imports its own",
    launch: { program: path.join(scratch, "shadow", "main.py") },
    stdout: "the program s own dapper\n",
    exitCode: 0,
  },
];

interface BadCase {
  name: string;
  launch: Record<string, unknown>;
  message: RegExp;
}

const bad: BadCase[] = [
  { name: "a missing envFile", launch: { code: "pass", envFile: path.join(scratch, "missing.env") }, message: /missing\.env/ },
  { name: "an envFile line that is not an assignment", launch: { code: "pass", envFile: path.join(scratch, "bad.env") }, message: /bad\.env', line 2/ },
  { name: "a relative cwd", launch: { code: "pass", cwd: "test/fixtures" }, message: /'cwd' must be an absolute path/ },
  { name: "a boolean of the wrong type", launch: { code: "pass", noDebug: "yes" }, message: /'noDebug' must be true or false/ },
];

for (const python of pythons()) {
  describe(`Python ${python.version}: launch options`, () => {
    for (const run of runs) {
      test(run.name, async () => {
        const client = new RecordingClient();
        await client.start();
        try {
          await client.launchWith({ ...run.launch, python: python.executable, console: "internalConsole" });
          if (run.refused) {
            await assert.rejects(client.customRequest(run.refused.command, run.refused.args), run.refused.message);
          }
          assert.equal(await client.finished(), run.exitCode);
          assert.equal(client.output("stdout"), run.stdout);
          await client.disconnectRequest({});
        } finally {
          await client.stop();
        }
      });
    }

    for (const item of bad) {
      test(`launch fails clearly for ${item.name}`, async () => {
        const client = new RecordingClient();
        await client.start();
        try {
          await client.initializeRequest();
          await assert.rejects(client.launchRequest({ python: python.executable, cwd: fixtures, ...item.launch } as never), item.message);
        } finally {
          await client.stop();
        }
      });
    }
  });
}

// An interpreter Dapper cannot use gets the same message from the standalone adapter as
// from VS Code's own check before a launch (where it names the same source).
const notExecutable = path.join(scratch, "python-not-executable");
fs.writeFileSync(notExecutable, "#!/bin/sh\n", { mode: 0o644 });
const unusable: { name: string; python: string }[] = [
  { name: "a command not on PATH", python: "python9.9" },
  { name: "a path that does not exist", python: path.join(scratch, "missing", "python") },
  { name: "a folder", python: scratch },
  ...(process.platform === "win32" || process.getuid?.() === 0 ? [] : [{ name: "a file that is not executable", python: notExecutable }]),
];

describe("an interpreter that cannot be used", () => {
  for (const item of unusable) {
    test(`${item.name}: the adapter's message is VS Code's`, async () => {
      const verdict = await new InterpreterChecker().check(item.python);
      assert.equal(verdict.usable, false);
      const expected = interpreterMessage(item.python, "launch configuration", verdict.usable === false ? verdict.problem : "").message;
      const client = new RecordingClient();
      await client.start();
      try {
        await client.initializeRequest();
        await assert.rejects(client.launchRequest({ code: "pass", python: item.python, console: "internalConsole" } as never), (error: Error) => {
          assert.equal(error.message, expected);
          return true;
        });
      } finally {
        await client.stop();
      }
    });
  }
});

for (const python of pythons()) {
  describe(`Python ${python.version}: what the launch does not name`, () => {
    test("a key Dapper does not know is named in the debug console with the nearest known one, and the program runs", async () => {
      const client = new RecordingClient();
      await client.start();
      try {
        await client.launchWith({ code: "import sys; sys.exit(5)", python: python.executable, console: "internalConsole", stopOnEntri: true });
        assert.equal(await client.finished(), 5);
        assert.match(client.output("console"), /Dapper does not know the launch configuration's key 'stopOnEntri' \(did you mean 'stopOnEntry'\?\); it is passed on untouched\./);
        await client.disconnectRequest({});
      } finally {
        await client.stop();
      }
    });

    test("without cwd, a program in the client's terminal runs in the adapter's directory, and runInTerminal says so", async () => {
      const client = new RecordingClient();
      await client.start();
      try {
        await client.launchWith({ code: "import os; print(os.getcwd())", python: python.executable, console: "integratedTerminal" }, {}, { supportsRunInTerminalRequest: true });
        assert.equal(await client.finished(), 0);
        await client.terminalsDone();
        assert.equal(client.terminalRequests.length, 1);
        // The adapter of these tests runs in the repository's root (support.ts).
        assert.equal(client.terminalRequests[0].cwd, root);
        assert.equal(client.terminalOutput.trim(), fs.realpathSync(root));
        await client.disconnectRequest({});
      } finally {
        await client.stop();
      }
    });
  });
}
