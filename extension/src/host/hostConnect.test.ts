// EngineHost executes the engine's `connect` (attach): a scripted engine asks for a
// connection to a real loopback server and gets `connected`, the server's bytes and the
// close back as inputs; a refused connect comes back as `connectFailed`.
import assert from "assert/strict";
import * as net from "net";
import { test } from "node:test";
import type { Input } from "./contract";
import { b64, scriptedHost, unb64, waitFor, type Script } from "../testing/standIns";

/**
 * A host whose engine answers the client's opening with `connect` and sends "ping" on
 * connection: base64 in `data`, or raw beside the JSON (`dataRange`) as the buffered form does.
 */
function hostConnectingTo(port: number, form: "data" | "dataRange" = "data") {
  const script: Script = (input, engine) => {
    if (input.type === "clientOpened") return [{ type: "connect", request: 1, host: "127.0.0.1", port }];
    if (input.type === "connected" && form === "data") return [{ type: "send", conn: input.conn, data: b64("ping") }];
    if (input.type === "connected") {
      engine.beside = Buffer.from("..ping");
      return [{ type: "send", conn: input.conn, dataRange: [2, 6] }];
    }
    return [];
  };
  const { host, inputs } = scriptedHost(script);
  host.openClient({ framing: "messages", deliver: () => undefined });
  return { host, inputs };
}

for (const form of ["data", "dataRange"] as const) {
  test(`connect: the host connects, reports connected, passes bytes both ways (${form}) and the close`, async () => {
    let received = "";
    const server = net.createServer((socket) => {
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString();
        socket.end("pong");
      });
    });
    await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
    const { host, inputs } = hostConnectingTo((server.address() as net.AddressInfo).port, form);
    const closed = await waitFor(() => inputs().find((input) => input.type === "connectionClosed"), "connectionClosed");
    const connected = inputs().find((input): input is Extract<Input, { type: "connected" }> => input.type === "connected");
    assert.ok(connected !== undefined && connected.request === 1);
    assert.deepEqual(closed, { type: "connectionClosed", conn: connected.conn });
    const bytes = inputs().filter((input): input is Extract<Input, { type: "connectionBytes" }> => input.type === "connectionBytes");
    assert.equal(bytes.map((input) => unb64(input.data)).join(""), "pong");
    assert.equal(received, "ping");
    const order = inputs().map((input) => input.type).filter((type) => type !== "clientOpened");
    assert.deepEqual(order.slice(0, 1), ["connected"], "connected comes before the connection's bytes");
    host.dispose();
    server.close();
  });
}

test("connect: a refused connection is answered connectFailed with the OS's reason", async () => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const { host, inputs } = hostConnectingTo(port);
  const failed = await waitFor(() => inputs().find((input): input is Extract<Input, { type: "connectFailed" }> => input.type === "connectFailed"), "connectFailed");
  assert.equal(failed.request, 1);
  assert.match(failed.error, new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
  host.dispose();
});
