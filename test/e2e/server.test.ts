// `node dist/adapter.js --port N`: one adapter process, one engine, many DAP clients over TCP.
import assert from "node:assert/strict";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { fixtures, later, marker, pythons, RecordingClient, startServer } from "./support";

test("one adapter serves two concurrent sessions over TCP", async () => {
  const [python] = pythons().slice(-1);
  const server = await startServer();
  const clients = [new RecordingClient(), new RecordingClient()];
  try {
    await Promise.all(clients.map((client) => client.start(server.port)));
    await Promise.all(
      clients.map(async (client, index) => {
        await client.launchWith(
          { program: path.join(fixtures, "main.py"), args: [String(index + 10)], cwd: fixtures, python: python.executable, console: "internalConsole" },
          { "helper.py": later(marker("helper.py", "helper")) },
        );
        const { event, frames } = await client.nextStop();
        assert.equal(frames[0].name, "add");
        await client.continueRequest({ threadId: event.body.threadId ?? 0 });
        assert.equal(await client.finished(), index + 10);
        await client.disconnectRequest({});
      }),
    );
  } finally {
    await Promise.all(clients.map((client) => client.stop()));
    server.stop();
  }
});

// A debug adapter runs whatever its client asks for, so its server serves only its owner:
// another local account (here `nobody`, through setpriv) is refused before its first byte.
test("the TCP server refuses a connection from another local user", { skip: process.platform !== "linux" || process.getuid?.() !== 0 }, async () => {
  const server = await startServer();
  try {
    const client = [
      `const socket = require("net").connect(${server.port}, "127.0.0.1");`,
      `const body = JSON.stringify({ seq: 1, type: "request", command: "initialize", arguments: { adapterID: "dapper" } });`,
      `socket.on("connect", () => socket.write("Content-Length: " + Buffer.byteLength(body) + "\\r\\n\\r\\n" + body));`,
      `let got = "";`,
      `socket.on("data", (chunk) => (got += chunk));`,
      `socket.on("error", () => {});`,
      `socket.on("close", () => { console.log(got === "" ? "refused" : "answered: " + got.slice(0, 80)); process.exit(0); });`,
      `setTimeout(() => { console.log("still open: " + got.slice(0, 80)); process.exit(0); }, 5000);`,
    ].join("\n");
    const output = execFileSync("setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", process.execPath, "-e", client], { encoding: "utf8" });
    assert.equal(output.trim(), "refused");
  } finally {
    server.stop();
  }
});
