// `node dist/adapter.js --port N`: one adapter process, one engine, many DAP clients over TCP.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { fixtures, later, marker, pythons, RecordingClient, startServer, tokenOf } from "./support";

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

// The token is the key to every debuggee: a trace log that users attach to bug reports
// must not hold it, neither in the spawn's or runInTerminal's environment, nor in the
// debuggee's hello.
test("a trace log of whole sessions never contains their tokens", { skip: process.platform !== "linux" }, async () => {
  const [python] = pythons().slice(-1);
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "dapper-redact-")), "adapter.log");
  const server = await startServer(["--log-level", "trace", "--log-file", logFile]);
  const tokens: string[] = [];
  try {
    for (const console of ["internalConsole", "integratedTerminal"]) {
      const client = new RecordingClient();
      try {
        await client.start(server.port);
        await client.launchWith(
          { program: path.join(fixtures, "main.py"), args: ["7"], cwd: fixtures, python: python.executable, console },
          { "helper.py": later(marker("helper.py", "helper")) },
          { supportsRunInTerminalRequest: true },
        );
        const { event } = await client.nextStop();
        const pid = console === "internalConsole" ? Number((await client.next("process")).body.systemProcessId) : client.terminalProcesses[0].pid;
        tokens.push(tokenOf(pid ?? 0));
        await client.continueRequest({ threadId: event.body.threadId ?? 0 });
        assert.equal(await client.finished(), 7);
        await client.disconnectRequest({});
      } finally {
        await client.stop();
      }
    }
  } finally {
    server.stop();
  }
  const log = fs.readFileSync(logFile, "utf8");
  assert.match(log, /\[trace\] > \{"type":"connectionBytes"/, "the log is a trace of the sessions");
  assert.match(log, /runInTerminal/, "the log has the runInTerminal request");
  assert.match(log, /<random:\d+>/, "the tokens were there to redact");
  for (const token of tokens) assert.ok(!log.includes(token), `the log holds token ${token}`);
});
