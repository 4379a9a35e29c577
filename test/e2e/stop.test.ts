// Editors end the adapter with a signal once a session is over or the user stops it:
// nvim-dap sends SIGINT to an adapter on stdio and SIGTERM to a server it started. A stop
// the client asked for is no failure: the adapter ends its debuggees and exits with 0.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { fixtures, isAlive, pythons, RecordingClient, startServer, waitUntil } from "./support";

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

const cases: { transport: "stdio" | "tcp"; signal: NodeJS.Signals }[] = [
  { transport: "stdio", signal: "SIGINT" },
  { transport: "stdio", signal: "SIGTERM" },
  { transport: "tcp", signal: "SIGTERM" },
  { transport: "tcp", signal: "SIGINT" },
];

for (const { transport, signal } of cases) {
  test(`${signal} to the adapter (${transport}) during a session: exit status 0, the debuggee ends with it`, async () => {
    const [python] = pythons().slice(-1);
    const server = transport === "tcp" ? await startServer() : undefined;
    const client = new RecordingClient();
    try {
      await client.start(server?.port);
      const adapter = server?.process ?? client.adapterProcess;
      assert.ok(adapter, "the adapter process is known");
      await client.launchWith({ program: path.join(fixtures, "forever.py"), cwd: fixtures, python: python.executable, console: "internalConsole" });
      const pid = Number((await client.next("process")).body.systemProcessId);
      assert.ok(isAlive(pid), "the debuggee runs");

      const exited = exitOf(adapter);
      adapter.kill(signal);
      assert.deepEqual(await exited, { code: 0, signal: null });
      await waitUntil(() => !isAlive(pid), 5000, `the debuggee ${pid} to end`);
    } finally {
      await client.stop();
      server?.stop();
    }
  });
}
