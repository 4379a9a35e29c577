// Breakpoints in templates under the development servers with their reloaders: Django's
// ("django": true) under `python manage.py runserver`, Jinja's ("jinja": true) under
// `flask run --debug`. The restart that serves is a child session, a request renders the
// fixture's template, and the session stops at the template's line with the template's
// frame on top of the stack and its context in the Variables view; the response is what
// it is without the debugger. It reuses the venvs devservers.test.ts caches
// (.cache/e2e-django, .cache/e2e-flask): one server start and one request per server
// and Python.
import path from "node:path";
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { freePort } from "./attach-support";
import { SessionTree } from "./children-support";
import { fixtures, getWhenServing, pythons, startServer, fixtureVenv, waitUntil } from "./support";

interface TemplateServer {
  name: string;
  /** The fixture directory (under test/fixtures) with its templates/page.html; its libraries are fixtureVenv's. */
  fixture: string;
  /** The launch configuration's target, arguments and template option, for a port. */
  launch: (dir: string, port: number) => Record<string, unknown>;
}

const servers: TemplateServer[] = [
  {
    name: "python manage.py runserver (Django)",
    fixture: "django",
    launch: (dir, port) => ({ program: path.join(dir, "manage.py"), args: ["runserver", `127.0.0.1:${port}`], django: true }),
  },
  {
    name: "flask run --debug (Jinja)",
    fixture: "flask",
    launch: (_dir, port) => ({ module: "flask", args: ["--app", "app", "run", "--debug", "--host", "127.0.0.1", "--port", String(port)], jinja: true }),
  },
];

for (const python of pythons()) {
  describe(`Python ${python.version}: template breakpoints`, () => {
    for (const server of servers) {
      test(`${server.name}: a breakpoint in a template stops on a request, with the template's context`, async (context) => {
        const dir = path.join(fixtures, server.fixture);
        const venv = fixtureVenv(python, server.fixture);
        if (!venv.executable) return context.skip(venv.reason);
        const adapter = await startServer();
        const template = path.join(dir, "templates", "page.html");
        const tree = new SessionTree(adapter.port, { [template]: [4] });
        try {
          const port = await freePort();
          await tree.root.start(tree.port);
          await tree.root.launchWith(
            { ...server.launch(dir, port), cwd: dir, python: venv.executable, console: "internalConsole" },
            {},
            { supportsStartDebuggingRequest: true },
          );
          const child = await tree.nextChild(60000);
          const response = getWhenServing(port, "/page");
          const seen: string[] = [];
          for (const item of ["apple", "pear"]) {
            await waitUntil(() => child.events.some((e) => e.event === "stopped") || tree.failures.length > 0, 30000, `the stop in the template (${item})`);
            const index = child.events.findIndex((e) => e.event === "stopped");
            const stopped = child.events.splice(index, 1)[0].body as { threadId: number; reason: string };
            assert.equal(stopped.reason, "breakpoint");
            const stack = await child.stackTraceRequest({ threadId: stopped.threadId, startFrame: 0, levels: 1 });
            const top = stack.body.stackFrames[0];
            assert.equal(top.source?.path, template);
            assert.equal(top.line, 4);
            assert.equal(top.name, "page.html");
            const scopes = await child.scopesRequest({ frameId: top.id });
            const variables = await child.variablesRequest({ variablesReference: scopes.body.scopes[0].variablesReference });
            const values = Object.fromEntries(variables.body.variables.map((v) => [v.name, v.value]));
            assert.equal(values.title, "'Fruit'");
            seen.push(values.item);
            await child.continueRequest({ threadId: stopped.threadId });
          }
          assert.deepEqual(seen, ["'apple'", "'pear'"]);
          const { status, body } = await response;
          assert.equal(status, 200);
          assert.match(body, /<li>apple<\/li>[\s\S]*<li>pear<\/li>/);
          if (tree.failures.length > 0) throw tree.failures[0];
        } finally {
          await tree.stop();
          adapter.stop();
        }
      });
    }
  });
}
