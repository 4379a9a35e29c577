// `flask run --debug`, the way most Flask developers start their application: Werkzeug's
// reloader starts the program again from its own command line, and that restart (which
// serves) is a child session that stops at a breakpoint in a view function once an HTTP
// request comes in on loopback. Flask comes from PyPI into a venv of its own, cached
// under .cache/e2e-flask; without the network the test is skipped, saying why.
import http from "node:http";
import net from "node:net";
import path from "node:path";
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SessionTree } from "./children-support";
import { fixtures, marker, pythons, startServer, venvWith, waitUntil } from "./support";

const dir = path.join(fixtures, "flask");
const requirements = path.join(dir, "requirements.txt");

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** GET on loopback; rejects when nothing answers. */
function get(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: "127.0.0.1", port, path: "/", timeout: 30000 }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on("timeout", () => request.destroy(new Error("the request timed out")));
    request.on("error", reject);
  });
}

for (const python of pythons()) {
  describe(`Python ${python.version}: flask run --debug`, () => {
    test("the reloader's restart is a child session that stops at a breakpoint in a view", async (context) => {
      const flask = venvWith(python, "flask", requirements);
      if (!flask.executable) return context.skip(flask.reason);
      const server = await startServer();
      const line = marker(path.join("flask", "app.py"), "view");
      const tree = new SessionTree(server.port, { [path.join(dir, "app.py")]: [line] }, true);
      try {
        const port = await freePort();
        await tree.root.start(tree.port);
        await tree.root.launchWith(
          { module: "flask", args: ["--app", "app", "run", "--debug", "--host", "127.0.0.1", "--port", String(port)], cwd: dir, python: flask.executable, console: "internalConsole" },
          {},
          { supportsStartDebuggingRequest: true },
        );
        const serving = await tree.nextChild(60000);
        let response: { status: number; body: string } | undefined;
        const deadline = Date.now() + 30000;
        while (!response) {
          response = await get(port).catch(async (error: unknown) => {
            if (Date.now() > deadline) throw error;
            await new Promise((resolve) => setTimeout(resolve, 200));
            return undefined;
          });
        }
        assert.deepEqual(response, { status: 200, body: "hello from the view" });
        await waitUntil(() => serving.stops.length > 0 || tree.failures.length > 0, 10000, "the stop in the view");
        if (tree.failures.length > 0) throw tree.failures[0];
        assert.deepEqual(serving.stops, [`app.py:${line}`]);
        assert.equal(tree.children.length, 1);
        assert.equal(tree.root.events.filter((e) => e.event === "stopped").length, 0);
      } finally {
        await tree.stop();
        server.stop();
      }
    });
  });
}
