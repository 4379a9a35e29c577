// Bounded resources, against `node dist/adapter.js --port N`:
// one adapter and one engine for every client, as VS Code hosts one. A client that does
// not read while its program prints without end, a client that announces a 1 GB body,
// and clients halfway through 60 MB bodies, neither grow the adapter without bound nor
// end another client's session.
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fixtures, later, marker, pythons, RecordingClient, startServer } from "./support";

type Message = { type: string; seq: number; command?: string; event?: string; success?: boolean; body?: { output?: string; category?: string } };

/** A DAP client on a bare socket that reads only when told to. */
class RawClient {
  readonly socket: net.Socket;
  readonly messages: Message[] = [];
  closed = false;
  private buffer = Buffer.alloc(0);
  private seq = 1;

  constructor(port: number) {
    this.socket = net.connect(port, "127.0.0.1");
    this.socket.on("data", (chunk: Buffer) => this.receive(chunk));
    this.socket.on("error", () => undefined);
    this.socket.on("close", () => (this.closed = true));
  }

  request(command: string, args: object): void {
    const body = Buffer.from(JSON.stringify({ seq: this.seq++, type: "request", command, arguments: args }));
    this.socket.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  }

  /** Resolves when `condition` holds, or rejects after `ms`. */
  async until<T>(condition: () => T | undefined, what: string, ms = 30000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = condition();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.messages).slice(-600)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const end = this.buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, end).toString())?.[1]);
      if (this.buffer.length < end + 4 + length) return;
      this.messages.push(JSON.parse(this.buffer.subarray(end + 4, end + 4 + length).toString()) as Message);
      this.buffer = this.buffer.subarray(end + 4 + length);
    }
  }
}

/** The adapter's resident memory, sampled until stopped; `peak` in MiB. */
function sampleRss(pid: number): { peak: () => number; stop: () => void } {
  let peakKb = 0;
  const sample = () => {
    const kb = Number(/^VmRSS:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    peakKb = Math.max(peakKb, kb);
  };
  sample();
  const timer = setInterval(sample, 50);
  return { peak: () => peakKb / 1024, stop: () => clearInterval(timer) };
}

/** A whole ordinary session on the same adapter: it stops at a breakpoint and ends. */
async function ordinarySession(port: number, python: string): Promise<void> {
  const client = new RecordingClient();
  try {
    await client.start(port);
    await client.launchWith(
      { program: path.join(fixtures, "main.py"), args: ["5"], cwd: fixtures, python, console: "internalConsole" },
      { "helper.py": later(marker("helper.py", "helper")) },
    );
    const { event, frames } = await client.nextStop();
    assert.equal(frames[0].name, "add");
    await client.continueRequest({ threadId: event.body.threadId ?? 0 });
    assert.equal(await client.finished(), 5);
    await client.disconnectRequest({});
  } finally {
    await client.stop();
  }
}

test("a client that stops reading while its program prints without end keeps the adapter's memory bounded; another session goes on", { skip: process.platform !== "linux" }, async (t) => {
  const [python] = pythons().slice(-1);
  const server = await startServer();
  const rss = sampleRss(server.process.pid ?? 0);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dapper-flood-"));
  const program = path.join(dir, "flood.py");
  // About 1 GB of output if nothing holds it back; it prints where it got to on exit.
  fs.writeFileSync(program, 'import sys\nline = "x" * 1000 + "\\n"\nfor i in range(1_000_000):\n    sys.stdout.write(line)\n');
  const slow = new RawClient(server.port);
  try {
    slow.request("initialize", { adapterID: "dapper", clientID: "bounds-test" });
    slow.request("launch", { program, cwd: dir, python: python.executable, console: "internalConsole" });
    await slow.until(() => slow.messages.find((m) => m.event === "initialized"), "initialized");
    slow.request("configurationDone", {});
    await slow.until(() => slow.messages.find((m) => m.event === "output" && m.body?.category === "stdout"), "the first output");
    // From here on the client reads nothing.
    slow.socket.pause();
    const baseline = rss.peak();
    await ordinarySession(server.port, python.executable);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const growth = rss.peak() - baseline;
    t.diagnostic(`adapter RSS ${baseline.toFixed(0)} MiB before the client stopped reading, peak ${rss.peak().toFixed(0)} MiB after`);
    // Unbounded, the adapter takes in the program's 100+ MB/s: gigabytes within seconds.
    assert.ok(growth < 200, `the adapter grew by ${growth.toFixed(0)} MiB (from ${baseline.toFixed(0)} MiB) while its client did not read`);
    assert.ok(!slow.closed, "the slow client is still connected");
  } finally {
    rss.stop();
    slow.socket.destroy();
    server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a client that announces a 1 GB body, and clients halfway through 60 MB bodies, are closed with an error they can read; another session goes on", { skip: process.platform !== "linux" }, async (t) => {
  const [python] = pythons().slice(-1);
  const server = await startServer();
  const rss = sampleRss(server.process.pid ?? 0);
  const partial: RawClient[] = [];
  try {
    const huge = new RawClient(server.port);
    huge.socket.write("Content-Length: 1000000000\r\n\r\n{");
    const refusal = await huge.until(() => huge.messages.find((m) => m.event === "output"), "the refusal");
    assert.match(refusal.body?.output ?? "", /a message body of 1000000000 bytes exceeds the limit of 67108864 bytes\. The connection is closed/);
    await huge.until(() => (huge.closed ? true : undefined), "the connection closed");

    // Eight clients each send all of a 60 MB body but its last byte: the engine holds
    // 256 MiB of unfinished large messages at most, so some of them are refused.
    const body = Buffer.alloc(60_000_000 - 1, "x");
    for (let i = 0; i < 8; i++) {
      const client = new RawClient(server.port);
      partial.push(client);
      client.socket.write("Content-Length: 60000000\r\n\r\n");
      await new Promise<void>((resolve) => client.socket.write(body, () => resolve()));
    }
    const refused = await partial[0].until(() => {
      const closed = partial.filter((client) => client.closed);
      return closed.length >= 4 ? closed : undefined;
    }, "four partial clients closed", 60000);
    for (const client of refused) {
      const output = client.messages.find((m) => m.event === "output")?.body?.output ?? "";
      assert.match(output, /unfinished large messages; the engine holds at most 268435456 bytes of them at once/);
    }
    assert.ok(partial.slice(0, 4).some((client) => !client.closed), "the first clients' messages were kept");
    await ordinarySession(server.port, python.executable);
    t.diagnostic(`${refused.length} of 8 partial clients refused; adapter RSS peak ${rss.peak().toFixed(0)} MiB`);
    // 4 GiB would be the WebAssembly memory's end; the budget keeps it to a fraction.
    assert.ok(rss.peak() < 1500, `the adapter's RSS peaked at ${rss.peak().toFixed(0)} MiB`);
  } finally {
    rss.stop();
    for (const client of partial) client.socket.destroy();
    server.stop();
  }
});
