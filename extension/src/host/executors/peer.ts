// Who is on the other end of an accepted TCP connection. A debug adapter runs any program
// its client asks for, so the standalone server admits only its owner: on Linux the
// kernel says which uid owns the peer's socket (/proc/net/tcp and tcp6 list every socket
// of the network namespace with its owner), so a connection from another local account
// is refused. Elsewhere the OS cannot tell, which the README states as the risk.

import * as fs from "fs";
import * as os from "os";
import type * as net from "net";

/** Whether the uid of a connection's peer can be known on the OS: Linux's /proc tells; macOS and Windows have no such table. */
export function canTellPeerUid(platform: NodeJS.Platform = process.platform): boolean {
  return platform === "linux";
}

/** canTellPeerUid on this machine. */
export const CAN_TELL_PEER_UID = canTellPeerUid();

export type PeerVerdict = { admit: true; why: string } | { admit: false; why: string };

/**
 * Decides whether to serve `socket`: a peer on this machine must be owned by `ownerUid`;
 * one not found among this machine's sockets (a remote host) only when `allowRemote`.
 */
export async function judgePeer(socket: net.Socket, ownerUid: number, allowRemote: boolean, platform: NodeJS.Platform = process.platform): Promise<PeerVerdict> {
  if (!canTellPeerUid(platform)) return { admit: true, why: "the OS cannot tell the peer's uid" };
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (remoteAddress === undefined || remotePort === undefined || localAddress === undefined || localPort === undefined) {
    return { admit: false, why: "the connection has no addresses (already closed?)" };
  }
  let uid: number | undefined;
  try {
    uid = await peerUid({ address: remoteAddress, port: remotePort }, { address: localAddress, port: localPort });
  } catch (error) {
    return { admit: false, why: `the peer's owner cannot be read: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (uid === undefined) {
    return allowRemote
      ? { admit: true, why: "a remote peer (allowed by --allow-remote)" }
      : { admit: false, why: "the peer is not a socket of this machine, and --allow-remote was not given" };
  }
  if (uid !== ownerUid) return { admit: false, why: `the peer belongs to uid ${uid}, not to the adapter's owner (uid ${ownerUid})` };
  return { admit: true, why: `the peer belongs to the adapter's owner (uid ${uid})` };
}

interface Endpoint {
  address: string;
  port: number;
}

/**
 * The uid that owns the socket whose local end is `peer` and remote end is `us`, from
 * /proc/net/tcp and /proc/net/tcp6; undefined when no socket of this machine matches.
 * A table is read as it comes and left as soon as the socket is found: the kernel walks
 * its whole connection hash table for a full read (4-5 ms on a machine with 24 GiB, on
 * every connection a client opens, a child session's included), and sockets are listed
 * in no useful order, so a read that stops at the socket costs half of that on average.
 */
export async function peerUid(peer: Endpoint, us: Endpoint): Promise<number | undefined> {
  const wanted = `${endpointKey(peer)} ${endpointKey(us)}`;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let file: fs.promises.FileHandle;
    try {
      file = await fs.promises.open(table, "r");
    } catch (error) {
      // A kernel without IPv6 has no tcp6 table.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    try {
      const uid = await scanTable(file, wanted);
      if (uid !== undefined) return uid;
    } finally {
      await file.close();
    }
  }
  return undefined;
}

const READ_CHUNK = 64 * 1024;

/** Reads `file` (one table) until the line of `wanted`; its uid, or undefined at the end. */
async function scanTable(file: fs.promises.FileHandle, wanted: string): Promise<number | undefined> {
  const buffer = Buffer.alloc(READ_CHUNK);
  let partial = "";
  let header = true;
  for (;;) {
    const { bytesRead } = await file.read(buffer, 0, READ_CHUNK, null);
    const text = partial + buffer.toString("latin1", 0, bytesRead);
    const lines = text.split("\n");
    // The last piece is a line still being read, or "" after the last newline.
    partial = bytesRead === 0 ? "" : (lines.pop() ?? "");
    if (header) {
      lines.shift();
      header = false;
    }
    for (const line of lines) {
      const uid = uidOfLine(line, wanted);
      if (uid !== undefined) return uid;
    }
    if (bytesRead === 0) return undefined;
  }
}

/** Scans one table: "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid …". */
export function findUid(table: string, wanted: string): number | undefined {
  for (const line of table.split("\n").slice(1)) {
    const uid = uidOfLine(line, wanted);
    if (uid !== undefined) return uid;
  }
  return undefined;
}

function uidOfLine(line: string, wanted: string): number | undefined {
  const columns = line.trim().split(/\s+/);
  if (columns.length < 8) return undefined;
  const local = procEndpointKey(columns[1]);
  const remote = procEndpointKey(columns[2]);
  if (local === undefined || remote === undefined || `${local} ${remote}` !== wanted) return undefined;
  const uid = Number(columns[7]);
  return Number.isInteger(uid) ? uid : undefined;
}

/** "127.0.0.1", "::ffff:127.0.0.1" and "::1" as canonical hex bytes (IPv4-mapped as IPv4) and the port. */
function endpointKey({ address, port }: Endpoint): string {
  return `${addressBytes(address)}:${port}`;
}

function addressBytes(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const v4 = mapped ? mapped[1] : address;
  if (/^\d+\.\d+\.\d+\.\d+$/.test(v4)) return v4.split(".").map((part) => Number(part).toString(16).padStart(2, "0")).join("");
  // IPv6: expand "::" to the missing groups of zeros.
  const [head, tail] = address.split("::");
  const groups = (text: string | undefined) => (text === undefined || text === "" ? [] : text.split(":"));
  const before = groups(head);
  const after = tail === undefined ? [] : groups(tail);
  const all = [...before, ...Array<string>(8 - before.length - after.length).fill("0"), ...after];
  return all.map((group) => group.padStart(4, "0").toLowerCase()).join("");
}

/** A /proc/net/tcp{,6} address "0100007F:1267": 32-bit words in host byte order, port big-endian. */
function procEndpointKey(field: string): string | undefined {
  const [hex, portHex] = field.split(":");
  if (portHex === undefined || (hex.length !== 8 && hex.length !== 32)) return undefined;
  let bytes = "";
  for (let word = 0; word < hex.length; word += 8) {
    const text = hex.slice(word, word + 8).toLowerCase();
    bytes += os.endianness() === "LE" ? (text.match(/../g) ?? []).reverse().join("") : text;
  }
  // An IPv4-mapped IPv6 address is the IPv4 address, as endpointKey writes it.
  if (bytes.length === 32 && bytes.startsWith("00000000000000000000ffff")) bytes = bytes.slice(24);
  return `${bytes}:${parseInt(portHex, 16)}`;
}
