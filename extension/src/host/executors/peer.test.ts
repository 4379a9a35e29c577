import assert from "assert/strict";
import * as net from "net";
import { test } from "node:test";
import { findUid, judgePeer, peerUid } from "./peer";

// Lines as the kernel writes them on a little-endian machine: 127.0.0.1:4711 ↔ 127.0.0.1:40000.
const header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";
const v4 = "   0: 0100007F:1267 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000        0 123 1\n";
const v4peer = "   1: 0100007F:9C40 0100007F:1267 01 00000000:00000000 00:00000000 00000000    65534        0 124 1\n";
const mapped = "   0: 0000000000000000FFFF00000100007F:9C40 0000000000000000FFFF00000100007F:1267 01 00000000:00000000 00:00000000 00000000  42 0 125 1\n";
const v6 = "   0: 00000000000000000000000001000000:9C40 00000000000000000000000001000000:1267 01 00000000:00000000 00:00000000 00000000  7 0 126 1\n";
const peer = { address: "127.0.0.1", port: 40000 };
const us = { address: "127.0.0.1", port: 4711 };

const cases: [string, string, "tcp" | "tcp6", typeof peer, typeof us, number | undefined][] = [
  ["the peer's line, not ours", header + v4 + v4peer, "tcp", peer, us, 65534],
  ["IPv4-mapped in tcp6", header + mapped, "tcp6", peer, us, 42],
  ["IPv4-mapped, as a dual-stack listener names it", header + mapped, "tcp6", { address: "::ffff:127.0.0.1", port: 40000 }, { address: "::ffff:127.0.0.1", port: 4711 }, 42],
  ["no such socket", header + v4, "tcp", peer, us, undefined],
  ["an address that is a column's tail is not the column", header + v4.replace("0100007F:9C40", "10100007F:9C40"), "tcp", us, peer, undefined],
  ["empty table", header, "tcp", peer, us, undefined],
  ["an IPv6 address is never in tcp", header + v4, "tcp", { address: "::1", port: 4711 }, peer, undefined],
  ["::1 in tcp6", header + v6, "tcp6", { address: "::1", port: 40000 }, { address: "::1", port: 4711 }, 7],
];
for (const [what, table, kind, local, remote, uid] of cases) {
  test(`findUid: ${what}`, () => assert.equal(findUid(table, kind, local, remote, "LE"), uid));
}
test("findUid: a big-endian machine's table writes the words as they are", () => {
  const line = "   0: 7F000001:9C40 7F000001:1267 01 00000000:00000000 00:00000000 00000000  1000        0 123 1\n";
  assert.equal(findUid(header + line, "tcp", peer, us, "BE"), 1000);
  assert.equal(findUid(header + line, "tcp", peer, us, "LE"), undefined);
});

// A real loopback connection: the kernel says it is ours, and the judge admits it.
test("a real loopback peer is this process's own uid", { skip: process.platform !== "linux" }, async () => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  const accepted = new Promise<net.Socket>((resolve) => server.once("connection", resolve));
  const client = net.connect(port, "127.0.0.1");
  const socket = await accepted;
  try {
    const us = { address: socket.localAddress ?? "", port: socket.localPort ?? 0 };
    assert.equal(await peerUid({ address: socket.remoteAddress ?? "", port: socket.remotePort ?? 0 }, us), process.getuid?.());
    assert.equal((await judgePeer(socket, process.getuid?.() ?? -1, false, "linux")).admit, true);
    const stranger = await judgePeer(socket, 12345, false, "linux");
    assert.equal(stranger.admit, false);
    assert.match(stranger.why, /not to the adapter's owner \(uid 12345\)/);
    // macOS and Windows cannot tell whose a socket is: every local peer is admitted (the
    // README states the risk), the stranger too.
    for (const platform of ["darwin", "win32"] as const) {
      assert.deepEqual(await judgePeer(socket, 12345, false, platform), { admit: true, why: "the OS cannot tell the peer's uid" }, platform);
    }
  } finally {
    client.destroy();
    socket.destroy();
    server.close();
  }
});

// A dual-stack listener ("::") names an IPv4 client "::ffff:127.0.0.1", and the kernel
// lists the socket in tcp6; an IPv6 client on ::1 too.
for (const [listen, connect] of [["::", "127.0.0.1"], ["::", "::1"]] as const) {
  test(`a real peer of a listener on ${listen}, from ${connect}, is this process's own uid`, { skip: process.platform !== "linux" }, async (context) => {
    const server = net.createServer();
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, listen, resolve);
      });
    } catch {
      context.skip("no IPv6 on this machine");
      return;
    }
    const port = (server.address() as net.AddressInfo).port;
    const accepted = new Promise<net.Socket>((resolve) => server.once("connection", resolve));
    const client = net.connect(port, connect);
    client.on("error", () => undefined);
    const socket = await accepted;
    try {
      const us = { address: socket.localAddress ?? "", port: socket.localPort ?? 0 };
      assert.equal(await peerUid({ address: socket.remoteAddress ?? "", port: socket.remotePort ?? 0 }, us), process.getuid?.());
    } finally {
      client.destroy();
      socket.destroy();
      server.close();
    }
  });
}
