import assert from "assert/strict";
import * as net from "net";
import { test } from "node:test";
import { PassThrough } from "stream";
import { b64, delay, scriptedHost, unb64, waitFor, type Script } from "../testing/standIns";
import { hostSocketClient, hostStreamClient } from "./streamClient";

/** A host that hosts connections to its client listener as child-session clients, as the adapter does. */
function makeHost(script: Script) {
  const made = scriptedHost(script, {
    acceptChildClient: (socket) => hostSocketClient(made.host, socket, made.logger, "childClient"),
  });
  return made;
}

function collect(stream: NodeJS.ReadableStream): { text: string; ended: boolean } {
  const state = { text: "", ended: false };
  stream.on("data", (chunk: Buffer) => (state.text += chunk.toString("utf8")));
  stream.on("end", () => (state.ended = true));
  return state;
}

// The engine frames, the adapter does not: chunks go in as they come and come out as written.
const chunkings: { name: string; chunks: string[] }[] = [
  { name: "one whole message", chunks: ['Content-Length: 13\r\n\r\n{"seq":1,"x":1}'] },
  { name: "a header split mid-word", chunks: ["Content-Le", "ngth: 2\r\n", "\r\n{}"] },
  { name: "two messages in one chunk", chunks: ["Content-Length: 2\r\n\r\n{}Content-Length: 2\r\n\r\n{}"] },
  { name: "bytes that are not DAP at all", chunks: ["garbage\n"] },
];

for (const { name, chunks } of chunkings) {
  test(`stream adapter passes ${name} through untouched, both ways`, async () => {
    const { host, inputs, logger } = makeHost((input) =>
      input.type === "clientBytes" ? [{ type: "writeToClient", client: input.client, data: input.data }] : [],
    );
    const fromClient = new PassThrough();
    const toClient = new PassThrough();
    const seen = collect(toClient);
    const session = hostStreamClient(host, fromClient, toClient, logger, "test");
    for (const chunk of chunks) {
      fromClient.write(chunk);
      await delay(5);
    }
    await waitFor(() => (seen.text === chunks.join("") ? true : undefined), "the echo");
    const bytes = inputs().filter((input) => input.type === "clientBytes");
    assert.deepEqual(bytes.map((input) => ("data" in input ? unb64(input.data) : "")), chunks);
    fromClient.end();
    await session.closed;
    assert.equal(inputs().filter((input) => input.type === "clientClosed").length, 1);
    host.dispose();
  });
}

test("closeClient flushes, ends the output, then reports clientClosed once", async () => {
  const { host, inputs, logger } = makeHost((input) =>
    input.type === "clientBytes"
      ? [
          { type: "writeToClient", client: input.client, data: b64("bye") },
          { type: "closeClient", client: input.client },
        ]
      : [],
  );
  const fromClient = new PassThrough();
  const toClient = new PassThrough();
  const seen = collect(toClient);
  const session = hostStreamClient(host, fromClient, toClient, logger, "test");
  fromClient.write("disconnect");
  await session.closed;
  await waitFor(() => (seen.ended ? true : undefined), "the end of the output");
  assert.equal(seen.text, "bye");
  fromClient.end();
  await delay(20);
  assert.deepEqual(
    inputs().map((input) => input.type),
    ["clientOpened", "clientBytes", "clientClosed"],
  );
});

test("a TCP client socket is a client: its bytes in, the engine's bytes out, closed on hang-up", async () => {
  const { host, inputs, logger } = makeHost((input) =>
    input.type === "clientBytes" ? [{ type: "writeToClient", client: input.client, data: b64("pong") }] : [],
  );
  const server = net.createServer((socket) => void hostStreamClient(host, socket, socket, logger, "tcp test"));
  await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
  const socket = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
  const seen = collect(socket);
  socket.write("ping");
  await waitFor(() => (seen.text === "pong" ? true : undefined), "the answer");
  socket.end();
  await waitFor(() => (inputs().some((input) => input.type === "clientClosed") ? true : undefined), "clientClosed");
  server.close();
  host.dispose();
});

test("a connection to a listener opened for clients becomes a DAP client of its own (child sessions of stdio clients)", async () => {
  const { host, engines } = makeHost((input) => {
    if (input.type === "clientOpened" && input.transport === "stdio") {
      return [{ type: "openListener", listener: 5, transport: "tcp", purpose: "clients" }];
    }
    if (input.type === "clientBytes" && unb64(input.data) === "ping") {
      return [{ type: "writeToClient", client: input.client, data: b64("pong") }];
    }
    return [];
  });
  const stdio = host.openClient({ framing: "contentLength", transport: "stdio", write: () => undefined, end: () => undefined, pause: () => undefined, resume: () => undefined });
  const engine = engines[0];
  const opened = await waitFor(() => engine.inputs.find((input) => input.type === "listenerOpened"), "the client listener");
  assert.equal(opened.type === "listenerOpened" && opened.address.transport, "tcp");
  const port = opened.type === "listenerOpened" && opened.address.transport === "tcp" ? opened.address.port : 0;

  const socket = net.connect({ host: "127.0.0.1", port });
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("utf8")));
  const clientOpened = await waitFor(
    () => engine.inputs.find((input) => input.type === "clientOpened" && input.transport === "childClient"),
    "the child-session client",
  );
  assert.equal(engine.inputs.some((input) => input.type === "connectionAccepted"), false, "not a debuggee connection");
  assert.equal(host.openClientCount, 2);
  socket.write("ping");
  await waitFor(() => (received === "pong" ? true : undefined), "the engine's answer on the socket");
  socket.end();
  const childId = clientOpened.type === "clientOpened" ? clientOpened.client : -1;
  await waitFor(() => engine.inputs.find((input) => input.type === "clientClosed" && input.client === childId), "clientClosed");
  assert.equal(host.openClientCount, 1);
  stdio.closed();
  host.dispose();
});

test("a TCP client that does not read has its backlog reported as it grows, 0 once it reads, and its requests paused on pauseReading", async () => {
  const chunk = b64("x".repeat(256 * 1024));
  const { host, inputs, logger } = makeHost((input) => {
    if (input.type === "clientBytes" && unb64(input.data) === "flood") {
      // 8 MiB for a client that does not read, and the engine's answer to the backlog.
      return Array.from({ length: 32 }, () => ({ type: "writeToClient" as const, client: input.client, data: chunk }));
    }
    if (input.type === "clientBacklog" && input.bytes >= 4 << 20) return [{ type: "pauseReading", from: { client: input.client } }];
    if (input.type === "clientBacklog" && input.bytes === 0) return [{ type: "resumeReading", from: { client: input.client } }];
    return [];
  });
  const server = net.createServer((socket) => void hostStreamClient(host, socket, socket, logger, "tcp test"));
  await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
  const socket = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
  socket.pause();
  socket.write("flood");
  const backlogs = () => inputs().flatMap((input) => (input.type === "clientBacklog" ? [input.bytes] : []));
  await waitFor(() => (backlogs().some((bytes) => bytes >= 4 << 20) ? true : undefined), "a backlog of 4 MiB");
  const reported = backlogs();
  // Once per MiB passed, rising; what the kernel's buffers took is not counted.
  assert.ok(reported.length >= 4 && reported.length <= 8, `reported ${reported.join(", ")}`);
  assert.deepEqual([...reported].sort((a, b) => a - b), reported);
  // Paused: a request sent now is not read until the client catches up.
  socket.write("later");
  await delay(100);
  assert.ok(!inputs().some((input) => input.type === "clientBytes" && unb64(input.data) === "later"));
  let received = 0;
  socket.on("data", (data: Buffer) => (received += data.length));
  socket.resume();
  await waitFor(() => (received === 32 * 256 * 1024 ? true : undefined), "all 8 MiB");
  await waitFor(() => (backlogs().at(-1) === 0 ? true : undefined), "the backlog reported as 0");
  await waitFor(() => (inputs().some((input) => input.type === "clientBytes" && unb64(input.data) === "later") ? true : undefined), "the request read after resumeReading");
  socket.end();
  await waitFor(() => (inputs().some((input) => input.type === "clientClosed") ? true : undefined), "clientClosed");
  server.close();
  host.dispose();
});
