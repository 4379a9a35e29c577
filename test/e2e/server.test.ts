// `node dist/adapter.js --port N`: one adapter process, one engine, many DAP clients over TCP.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { adapterScript, fixtures, later, marker, pythons, RecordingClient, root } from "./support";

async function startServer(): Promise<{ port: number; stop: () => void }> {
  const server = spawn(process.execPath, [adapterScript, "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the adapter did not report its port: ${stderr}`)), 10000);
    server.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = stderr.match(/listening on [^\s]*:(\d+)/i);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    server.on("exit", (code) => reject(new Error(`the adapter exited with ${code}: ${stderr}`)));
  });
  return { port, stop: () => server.kill() };
}

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
