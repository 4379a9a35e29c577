// Development servers with their reloaders on, the way their users start them: the
// reloader starts the program again from its own command line, and that restart (which
// serves) is a child session that stops at a breakpoint in a view once an HTTP request
// comes in on loopback; the response is what it is without the debugger.
// - `flask run --debug` (Werkzeug's reloader);
// - `python manage.py runserver` (Django's autoreloader);
// - `uvicorn --reload` (the server is a multiprocessing spawn child of the reloader);
// - `gunicorn --workers 2 --reload` (its workers are forks of its arbiter: a child
//   session each, one of them serves the request).
// The frameworks come from PyPI into a venv each, cached under .cache/e2e-NAME; without
// the network a test is skipped, saying why.
import path from "node:path";
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { freePort } from "./attach-support";
import { SessionTree } from "./children-support";
import { fixtures, getWhenServing, marker, pythons, startServer, fixtureVenv, waitUntil } from "./support";

interface DevServer {
  name: string;
  /** The fixture directory (under test/fixtures); its libraries are fixtureVenv's. */
  fixture: string;
  /** The launch configuration's target and arguments, for a port. */
  launch: (port: number) => Record<string, unknown>;
  /** The file (in the fixture) and marker of the breakpoint in the view. */
  view: [string, string];
  /** How many child sessions the server has (1: the reloader's restart). */
  children?: number;
}

const servers: DevServer[] = [
  {
    name: "flask run --debug",
    fixture: "flask",
    launch: (port) => ({ module: "flask", args: ["--app", "app", "run", "--debug", "--host", "127.0.0.1", "--port", String(port)] }),
    view: ["app.py", "view"],
  },
  {
    name: "python manage.py runserver (Django)",
    fixture: "django",
    launch: (port) => ({ program: path.join(fixtures, "django", "manage.py"), args: ["runserver", `127.0.0.1:${port}`] }),
    view: ["site_urls.py", "view"],
  },
  {
    name: "uvicorn --reload",
    fixture: "uvicorn",
    launch: (port) => ({ module: "uvicorn", args: ["app:app", "--reload", "--host", "127.0.0.1", "--port", String(port)] }),
    view: ["app.py", "view"],
  },
  {
    name: "gunicorn --workers 2 --reload",
    fixture: "gunicorn",
    launch: (port) => ({ module: "gunicorn", args: ["--workers", "2", "--reload", "--bind", `127.0.0.1:${port}`, "app:app"] }),
    view: ["app.py", "view"],
    children: 2,
  },
];

for (const python of pythons()) {
  describe(`Python ${python.version}: development servers with their reloaders`, () => {
    for (const server of servers) {
      test(`${server.name}: the reloader's restart is a child session that stops at a breakpoint in a view`, async (context) => {
        const dir = path.join(fixtures, server.fixture);
        const venv = fixtureVenv(python, server.fixture);
        if (!venv.executable) return context.skip(venv.reason);
        const adapter = await startServer();
        const [file, name] = server.view;
        const line = marker(path.join(server.fixture, file), name);
        const tree = new SessionTree(adapter.port, { [path.join(dir, file)]: [line] }, true);
        try {
          const port = await freePort();
          await tree.root.start(tree.port);
          await tree.root.launchWith({ ...server.launch(port), cwd: dir, python: venv.executable, console: "internalConsole" }, {}, { supportsStartDebuggingRequest: true });
          const children = server.children ?? 1;
          for (let index = 0; index < children; index++) await tree.nextChild(60000);
          assert.deepEqual(await getWhenServing(port), { status: 200, body: "hello from the view" });
          const stops = () => tree.children.flatMap((child) => child.stops);
          await waitUntil(() => stops().length > 0 || tree.failures.length > 0, 10000, "the stop in the view");
          if (tree.failures.length > 0) throw tree.failures[0];
          assert.deepEqual(stops(), [`${file}:${line}`]);
          assert.equal(tree.children.length, children);
          assert.equal(tree.root.events.filter((e) => e.event === "stopped").length, 0);
        } finally {
          await tree.stop();
          adapter.stop();
        }
      });
    }
  });
}
