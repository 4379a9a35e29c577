// `node dist/adapter.js --port N`: one adapter process, one engine, many DAP clients over TCP.
import assert from "node:assert/strict";
import path from "node:path";
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
