// The host's side of `connect` (attach to a program started with `python -m dapperdbg
// --listen`): real sockets, one helper, a table of the ways a connect can end.
import assert from "assert/strict";
import * as net from "net";
import { test } from "node:test";
import { delay, Recorder, testLogger, textOf, waitFor } from "../../testing/standIns";
import { Transports } from "./transports";

function makeTransports() {
  const recorder = new Recorder();
  let next = 100;
  const transports = new Transports(recorder.report, testLogger("info").logger, () => next++);
  return { recorder, transports };
}

/** A loopback server that records what its one peer sends; resolves once it listens. */
async function server(): Promise<{ port: number; peer: Promise<net.Socket>; received: () => string; close: () => void }> {
  let text = "";
  let resolvePeer: (socket: net.Socket) => void = () => undefined;
  const peer = new Promise<net.Socket>((resolve) => (resolvePeer = resolve));
  const listening = net.createServer((socket) => {
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    resolvePeer(socket);
  });
  await new Promise<void>((resolve) => listening.listen({ host: "127.0.0.1", port: 0 }, resolve));
  const address = listening.address() as net.AddressInfo;
  return { port: address.port, peer, received: () => text, close: () => listening.close() };
}

/** A loopback port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const probe = await server();
  probe.close();
  await delay(20);
  return probe.port;
}

test("connect reaches a listening program: connected first, bytes both ways, one close", async () => {
  const { recorder, transports } = makeTransports();
  const program = await server();
  transports.connect({ type: "connect", request: 7, host: "127.0.0.1", port: program.port });
  const connected = await recorder.waitFor("connected");
  assert.deepEqual(connected, { type: "connected", request: 7, conn: 100 });
  const socket = await program.peer;

  socket.write("hello from the program");
  await waitFor(() => (recorder.of("connectionBytes").map((input) => textOf(input.data)).join("") === "hello from the program" ? true : undefined), "bytes from the program");
  assert.ok(recorder.of("connectionBytes").every((input) => input.conn === 100));
  transports.send(100, Buffer.from("hello from the engine"));
  await waitFor(() => (program.received() === "hello from the engine" ? true : undefined), "bytes to the program");

  socket.end();
  assert.deepEqual(await recorder.waitFor("connectionClosed"), { type: "connectionClosed", conn: 100 });
  await delay(50);
  assert.equal(recorder.of("connectionClosed").length, 1, "connectionClosed is reported exactly once");
  assert.equal(recorder.of("connectFailed").length, 0);
  program.close();
  transports.dispose();
});

const failures: { name: string; target: () => Promise<{ host: string; port: number }>; error: RegExp }[] = [
  { name: "nothing listens on the port", target: async () => ({ host: "127.0.0.1", port: await closedPort() }), error: /ECONNREFUSED/ },
  // .invalid never resolves (RFC 2606); without DNS at all the lookup fails too.
  { name: "the host is unknown", target: async () => Promise.resolve({ host: "no-such-host.invalid", port: 5678 }), error: /ENOTFOUND|EAI_AGAIN|getaddrinfo/ },
  { name: "the port is out of range", target: async () => Promise.resolve({ host: "127.0.0.1", port: 70000 }), error: /port/i },
];

for (const { name, target, error } of failures) {
  test(`connect fails with the OS's reason when ${name}`, async () => {
    const { recorder, transports } = makeTransports();
    const { host, port } = await target();
    transports.connect({ type: "connect", request: 3, host, port });
    const failed = await recorder.waitFor("connectFailed", "connectFailed", 10000);
    assert.equal(failed.request, 3);
    assert.match(failed.error, error);
    await delay(50);
    assert.equal(recorder.of("connectFailed").length, 1, "one answer per connect");
    assert.equal(recorder.of("connected").length + recorder.of("connectionClosed").length, 0, "a failed connect has no connection");
    transports.dispose();
  });
}

test("a connect still in progress when the transports are disposed reports nothing", async () => {
  const { recorder, transports } = makeTransports();
  const program = await server();
  transports.connect({ type: "connect", request: 1, host: "127.0.0.1", port: program.port });
  transports.dispose();
  await delay(100);
  assert.deepEqual(recorder.inputs, []);
  program.close();
});
