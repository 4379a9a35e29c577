// Configurations written for debugpy, run by Dapper's adapter as they are: the examples of
// the Python extension's documentation (current file, module, remote attach, Flask,
// Django, FastAPI) start unchanged, options debugpy has and Dapper translates reach the
// program (gevent's included), and the notes about those that do not carry over reach the
// debug console. Through the standalone adapter and a real Python: the newest
// found, since the translation is the engine's and the same for every interpreter (the
// launcher's part of each option has its own suites). The web frameworks come from the
// venvs the development-server suite makes (skipped, saying why, without the network),
// and sudo runs where `sudo -n` may.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, test } from "node:test";
import { ensureGone, freePort, startListening, attachWith } from "./attach-support";
import { SessionTree } from "./children-support";
import { fixtures, getWhenServing, marker, pythons, RecordingClient, startServer, fixtureVenv, waitUntil } from "./support";

const MAIN_BP = marker("main.py", "main");

/** Whether `sudo` runs here without asking for a password. */
function sudoWorks(): boolean {
  try {
    execFileSync("sudo", ["-n", "true"], { stdio: "ignore", timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

interface WebCase {
  name: string;
  fixture: string;
  /** The documentation's configuration, with the port (its own default) made free. */
  configuration: (port: number) => Record<string, unknown>;
  view: [string, string];
  /** The reloader's restart is a child session that serves. */
  children: number;
}

// As the Python extension's documentation writes them (launch.json examples); only the
// port is chosen here, so that tests do not collide.
const webCases: WebCase[] = [
  {
    name: "Flask",
    fixture: "flask",
    configuration: (port) => ({
      name: "Python Debugger: Flask",
      type: "debugpy",
      request: "launch",
      module: "flask",
      env: { FLASK_APP: "app.py", FLASK_DEBUG: "1" },
      args: ["run", "--no-debugger", "--no-reload", "--port", String(port)],
      jinja: true,
      autoStartBrowser: false,
    }),
    view: ["app.py", "view"],
    children: 0,
  },
  {
    name: "Django",
    fixture: "django",
    configuration: (port) => ({
      name: "Python Debugger: Django",
      type: "debugpy",
      request: "launch",
      args: ["runserver", `127.0.0.1:${port}`],
      django: true,
      autoStartBrowser: false,
      program: path.join(fixtures, "django", "manage.py"),
    }),
    view: ["site_urls.py", "view"],
    children: 1,
  },
  {
    name: "FastAPI",
    fixture: "uvicorn",
    configuration: (port) => ({
      name: "Python Debugger: FastAPI",
      type: "debugpy",
      request: "launch",
      module: "uvicorn",
      args: ["app:app", "--reload", "--port", String(port)],
      jinja: true,
    }),
    view: ["app.py", "view"],
    children: 1,
  },
];

for (const python of pythons().slice(-1)) {
  describe(`Python ${python.version}: debugpy configurations under Dapper`, () => {
    test("the documentation's current-file configuration (integrated terminal) stops at a breakpoint and exits", async () => {
      const client = new RecordingClient();
      await client.start();
      try {
        await client.launchWith(
          { name: "Python Debugger: Current File", type: "debugpy", request: "launch", program: path.join(fixtures, "main.py"), console: "integratedTerminal", python: python.executable },
          { "main.py": [MAIN_BP] },
          { supportsRunInTerminalRequest: true },
        );
        const { frames } = await client.nextStop();
        assert.equal(frames[0].line, MAIN_BP);
        await client.continueRequest({ threadId: 1 });
        assert.equal(await client.finished(), 0);
        assert.equal(client.terminalRequests.length, 1);
      } finally {
        await client.stop();
      }
    });

    test("the documentation's module configuration runs the module", async () => {
      const client = new RecordingClient();
      await client.start();
      try {
        await client.launchWith(
          { name: "Python Debugger: Module", type: "debugpy", request: "launch", module: "main", cwd: fixtures, console: "internalConsole", python: python.executable },
          { "main.py": [MAIN_BP] },
        );
        await client.nextStop();
        await client.continueRequest({ threadId: 1 });
        assert.equal(await client.finished(), 0);
        assert.match(client.output("stdout"), /hello total=/);
      } finally {
        await client.stop();
      }
    });

    test("debugpy's own spellings reach the program: python as a list, console none, subProcess, debugOptions, a missing envFile; the rest is noted", async () => {
      const client = new RecordingClient();
      await client.start();
      try {
        await client.launchWith({
          type: "python",
          request: "launch",
          name: "Old style",
          code: "import sys; print('dev', sys.flags.dev_mode)",
          python: [python.executable, "-X", "dev"],
          console: "none",
          subProcess: false,
          debugOptions: ["RedirectOutput", "FixFilePathCase"],
          logToFile: true,
          clientOS: "unix",
          // The Python extensions fill in the workspace's .env whether it exists or not.
          envFile: path.join(fixtures, "no-such.env"),
          purpose: ["debug-in-terminal"],
        });
        assert.equal(await client.finished(), 0);
        assert.match(client.output("stdout"), /dev True/);
        const console = client.output("console");
        assert.match(console, /debugpy's 'logToFile': Dapper's session logs take its place/);
        // Translated or dropped options are no unknown keys.
        assert.doesNotMatch(console, /does not know the launch configuration's key/);
      } finally {
        await client.stop();
      }
    });

    test("gevent carries over as Dapper's own key: the program runs, and no key is unknown", async () => {
      const client = new RecordingClient();
      await client.start();
      try {
        await client.launchWith({ type: "debugpy", request: "launch", name: "g", code: "print('gevent on')", gevent: true, console: "internalConsole", python: python.executable });
        assert.equal(await client.finished(), 0);
        assert.match(client.output("stdout"), /gevent on/);
        assert.doesNotMatch(client.output("console"), /does not know the launch configuration's key|gevent/);
      } finally {
        await client.stop();
      }
    });

    test("the documentation's remote-attach configuration attaches to a listening program", async () => {
      const program = await startListening(python, ["--wait-for-client"], [path.join(fixtures, "main.py")]);
      const client = new RecordingClient();
      await client.start();
      try {
        await attachWith(
          client,
          {
            name: "Python Debugger: Remote Attach",
            type: "debugpy",
            request: "attach",
            connect: { host: "localhost", port: program.port },
            pathMappings: [{ localRoot: fixtures, remoteRoot: fixtures }],
          },
          { "main.py": [MAIN_BP] },
        );
        const { frames } = await client.nextStop();
        assert.equal(frames[0].line, MAIN_BP);
        await client.continueRequest({ threadId: 1 });
        assert.deepEqual(await program.exited, { code: 0, signal: null });
      } finally {
        await client.stop();
        ensureGone(program);
      }
    });

    test("sudo runs the program as root, its children too", async (context) => {
      if (process.platform === "win32" || !sudoWorks()) return context.skip("sudo -n is not allowed here");
      const client = new RecordingClient();
      await client.start();
      try {
        await client.launchWith({
          type: "debugpy",
          request: "launch",
          name: "As root",
          code: "import os, subprocess, sys; print('uid', os.geteuid()); subprocess.run([sys.executable, '-c', 'import os; print(\"child uid\", os.geteuid())'])",
          python: python.executable,
          sudo: true,
          subProcess: false,
          console: "internalConsole",
        });
        assert.equal(await client.finished(), 0);
        assert.match(client.output("stdout"), /uid 0\n[\s\S]*child uid 0/);
      } finally {
        await client.stop();
      }
    });

    for (const web of webCases) {
      test(`the documentation's ${web.name} configuration stops at a breakpoint in a view on a request`, async (context) => {
        const dir = path.join(fixtures, web.fixture);
        const venv = fixtureVenv(python, web.fixture);
        if (!venv.executable) return context.skip(venv.reason);
        const adapter = await startServer();
        const [file, name] = web.view;
        const line = marker(path.join(web.fixture, file), name);
        const tree = new SessionTree(adapter.port, { [path.join(dir, file)]: [line] }, true);
        try {
          const port = await freePort();
          await tree.root.start(tree.port);
          tree.root.continueEveryStop();
          await tree.root.launchWith(
            { ...web.configuration(port), cwd: dir, python: venv.executable, console: "internalConsole" },
            { [path.join(web.fixture, file)]: [line] },
            { supportsStartDebuggingRequest: true },
          );
          for (let index = 0; index < web.children; index++) await tree.nextChild(60000);
          const response = getWhenServing(port);
          const stops = () => tree.sessions.flatMap((session) => session.stops);
          await waitUntil(() => stops().length > 0 || tree.failures.length > 0, 40000, "the stop in the view");
          if (tree.failures.length > 0) throw tree.failures[0];
          assert.deepEqual(stops(), [`${file}:${line}`]);
          assert.deepEqual(await response, { status: 200, body: "hello from the view" });
          // Their django and jinja are read as they are (template breakpoints): no note.
          assert.doesNotMatch(tree.root.output("console"), /debugpy's '(django|jinja)'/);
        } finally {
          await tree.stop();
          adapter.stop();
        }
      });
    }
  });
}
