import assert from "assert/strict";
import * as fs from "fs";
import * as net from "net";
import * as os from "os";
import * as path from "path";
import { test } from "node:test";
import type { ListenerAddress } from "../protocol";
import { delay, Recorder, testLogger, textOf, waitFor } from "../../testing/standIns";
import { Transports } from "./transports";

function makeTransports() {
  const recorder = new Recorder();
  let next = 100;
  const transports = new Transports(recorder.report, testLogger("info").logger, () => next++);
  return { recorder, transports };
}

function connect(address: ListenerAddress): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket =
      address.transport === "tcp" ? net.connect({ host: address.host, port: address.port }) : net.connect({ path: address.path });
    socket.once("connect", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Everything a test socket receives, as text. */
function received(socket: net.Socket): { text: string; ended: boolean } {
  const state = { text: "", ended: false };
  socket.on("data", (chunk: Buffer) => (state.text += chunk.toString("utf8")));
  socket.on("end", () => (state.ended = true));
  return state;
}

const transportsUnderTest = process.platform === "win32" ? (["tcp"] as const) : (["tcp", "unix"] as const);

for (const transport of transportsUnderTest) {
  test(`${transport}: a listener accepts a real socket and passes bytes both ways`, async () => {
    const { recorder, transports } = makeTransports();
    transports.openListener({ type: "openListener", listener: 3, transport });
    const opened = await recorder.waitFor("listenerOpened");
    assert.equal(opened.listener, 3);
    if (opened.address.transport === "tcp") {
      assert.equal(opened.address.host, "127.0.0.1");
      assert.ok(opened.address.port > 0);
    } else {
      assert.equal(transport, "unix");
      const directory = opened.address.path.slice(0, opened.address.path.lastIndexOf("/"));
      assert.equal(fs.statSync(directory).mode & 0o777, 0o700, "the socket's directory is private");
    }

    const socket = await connect(opened.address);
    const peer = received(socket);
    const accepted = await recorder.waitFor("connectionAccepted");
    assert.deepEqual(accepted, { type: "connectionAccepted", listener: 3, conn: 100 });

    socket.write("hello from the debuggee");
    await waitFor(() => (recorder.of("connectionBytes").map((input) => textOf(input.data)).join("") === "hello from the debuggee" ? true : undefined), "bytes from the peer");
    assert.ok(recorder.of("connectionBytes").every((input) => input.conn === 100));

    transports.send(100, Buffer.from("hello from the engine"));
    await waitFor(() => (peer.text === "hello from the engine" ? true : undefined), "bytes to the peer");

    socket.end();
    const closed = await recorder.waitFor("connectionClosed");
    assert.deepEqual(closed, { type: "connectionClosed", conn: 100 });
    await delay(50);
    assert.equal(recorder.of("connectionClosed").length, 1, "connectionClosed is reported exactly once");

    transports.closeListener(3);
    if (opened.address.transport === "unix") {
      assert.equal(fs.existsSync(opened.address.path.slice(0, opened.address.path.lastIndexOf("/"))), false, "the private directory is removed");
    }
    transports.dispose();
  });

  test(`${transport}: close from the engine flushes, ends the peer and is reported once`, async () => {
    const { recorder, transports } = makeTransports();
    transports.openListener({ type: "openListener", listener: 1, transport });
    const opened = await recorder.waitFor("listenerOpened");
    const socket = await connect(opened.address);
    const peer = received(socket);
    socket.on("end", () => socket.end());
    const { conn } = await recorder.waitFor("connectionAccepted");
    transports.send(conn, Buffer.from("last words"));
    transports.close(conn);
    await waitFor(() => (peer.ended ? true : undefined), "the peer to see the end");
    assert.equal(peer.text, "last words");
    await recorder.waitFor("connectionClosed");
    transports.send(conn, Buffer.from("too late"));
    transports.close(conn);
    await delay(50);
    assert.equal(recorder.of("connectionClosed").length, 1);
    transports.dispose();
  });
}

test("each accepted connection gets its own host id", async () => {
  const { recorder, transports } = makeTransports();
  transports.openListener({ type: "openListener", listener: 1, transport: "tcp", host: "127.0.0.1", port: 0 });
  const opened = await recorder.waitFor("listenerOpened");
  const sockets = [await connect(opened.address), await connect(opened.address)];
  await waitFor(() => (recorder.of("connectionAccepted").length === 2 ? true : undefined), "two connections");
  assert.deepEqual(recorder.of("connectionAccepted").map((input) => input.conn), [100, 101]);
  sockets.forEach((socket) => socket.destroy());
  transports.dispose();
});

test("a reset connection is reported closed with the error", async () => {
  const { recorder, transports } = makeTransports();
  transports.openListener({ type: "openListener", listener: 1, transport: "tcp" });
  const opened = await recorder.waitFor("listenerOpened");
  const socket = await connect(opened.address);
  await recorder.waitFor("connectionAccepted");
  socket.resetAndDestroy();
  const closed = await recorder.waitFor("connectionClosed");
  assert.match(closed.error ?? "", /ECONNRESET/);
  transports.dispose();
});

test("a port in use gives listenerFailed with the OS error", async () => {
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen({ host: "127.0.0.1", port: 0 }, resolve));
  const port = (blocker.address() as net.AddressInfo).port;
  const { recorder, transports } = makeTransports();
  transports.openListener({ type: "openListener", listener: 9, transport: "tcp", port });
  const failed = await recorder.waitFor("listenerFailed");
  assert.equal(failed.listener, 9);
  assert.match(failed.error, /EADDRINUSE/);
  assert.equal(recorder.of("listenerOpened").length, 0);
  blocker.close();
  transports.dispose();
});

// Each case: an openListener the host must refuse, and what the error says.
const badListeners: { name: string; command: Record<string, unknown>; error: RegExp }[] = [
  { name: "an unknown transport", command: { transport: "pipe" }, error: /unknown transport "pipe"/ },
  { name: "a port out of range", command: { transport: "tcp", port: 70000 }, error: /port/i },
];

for (const bad of badListeners) {
  test(`openListener with ${bad.name} gives listenerFailed`, async () => {
    const { recorder, transports } = makeTransports();
    transports.openListener({ type: "openListener", listener: 2, ...bad.command } as never);
    const failed = await recorder.waitFor("listenerFailed");
    assert.match(failed.error, bad.error);
    transports.dispose();
  });
}

test("a listener id in use is refused; dispose closes listeners and connections", async () => {
  const { recorder, transports } = makeTransports();
  transports.openListener({ type: "openListener", listener: 1, transport: "tcp" });
  const opened = await recorder.waitFor("listenerOpened");
  transports.openListener({ type: "openListener", listener: 1, transport: "tcp" });
  assert.match((await recorder.waitFor("listenerFailed")).error, /already in use/);
  const socket = await connect(opened.address);
  const peer = received(socket);
  socket.on("close", () => (peer.ended = true));
  await recorder.waitFor("connectionAccepted");
  transports.dispose();
  await waitFor(() => (peer.ended ? true : undefined), "the peer to be cut off");
  await assert.rejects(connect(opened.address), /ECONNREFUSED/);
  assert.equal(recorder.of("connectionClosed").length, 0, "nothing is reported after dispose");
});

test("a unix listener under a very long TMPDIR falls back to /tmp", { skip: process.platform === "win32" }, async () => {
  const long = path.join(os.tmpdir(), "dapper-long-" + "x".repeat(90));
  fs.mkdirSync(long, { recursive: true });
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = long;
  try {
    const { recorder, transports } = makeTransports();
    transports.openListener({ type: "openListener", listener: 1, transport: "unix" });
    const opened = await recorder.waitFor("listenerOpened");
    assert.ok(opened.address.transport === "unix" && opened.address.path.startsWith("/tmp/dapper-"), JSON.stringify(opened.address));
    assert.deepEqual(fs.readdirSync(long), [], "nothing is left in the long directory");
    transports.dispose();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    fs.rmSync(long, { recursive: true, force: true });
  }
});

// An attach listener (a program the user started connects, with no token): the owner's
// own process is admitted; another user's (here nobody, a real second uid) is refused,
// closed before a byte is read, and reported as peerRefused.
test("an attach listener admits the owner's peers and refuses another user's", { skip: process.platform !== "linux" }, async () => {
  const { recorder, transports } = makeTransports();
  transports.openListener({ type: "openListener", listener: 4, transport: "tcp", host: "127.0.0.1", port: 0, purpose: "attach" });
  const opened = await recorder.waitFor("listenerOpened");
  assert.equal(opened.address.transport, "tcp");
  const socket = await connect(opened.address);
  assert.deepEqual(await recorder.waitFor("connectionAccepted"), { type: "connectionAccepted", listener: 4, conn: 100 });
  socket.destroy();
  if (process.getuid?.() === 0 && fs.existsSync("/usr/bin/python3") && opened.address.transport === "tcp") {
    const { execFile } = await import("child_process");
    const stranger = `import socket; s = socket.create_connection(("127.0.0.1", ${opened.address.port})); print(repr(s.recv(10)))`;
    const output = await new Promise<string>((resolve, reject) => {
      execFile("/usr/bin/python3", ["-c", stranger], { uid: 65534, gid: 65534, cwd: "/", encoding: "utf8", timeout: 10_000 }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      );
    });
    assert.equal(output.trim(), "b''");
    const refused = await recorder.waitFor("peerRefused");
    assert.equal(refused.listener, 4);
    assert.match(refused.reason, /belongs to uid 65534, not to the adapter's owner/);
    assert.equal(recorder.of("connectionAccepted").length, 1);
  }
  transports.dispose();
});

test("a paused connection is not read, so its peer's writes back up, until resumed", async () => {
  const { recorder, transports } = makeTransports();
  transports.openListener({ type: "openListener", listener: 3, transport: "tcp" });
  const opened = await recorder.waitFor("listenerOpened");
  const socket = await connect(opened.address);
  await recorder.waitFor("connectionAccepted");
  transports.flow(100, true);
  const readBytes = () => recorder.of("connectionBytes").reduce((sum, input) => sum + Buffer.from(input.data).length, 0);
  const chunk = Buffer.alloc(1 << 20, "x");
  for (let i = 0; i < 32; i++) socket.write(chunk);
  await delay(300);
  const whilePaused = readBytes();
  await delay(200);
  assert.equal(readBytes(), whilePaused, "nothing is read while paused");
  assert.ok(socket.writableLength > 16 << 20, `the peer still holds ${socket.writableLength} bytes`);
  transports.flow(100, false);
  await waitFor(() => (readBytes() === 32 << 20 ? true : undefined), "all 32 MiB once resumed");
  socket.destroy();
  transports.dispose();
});
