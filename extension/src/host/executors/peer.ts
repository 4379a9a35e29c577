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
 * The socket's line is found by its two addresses as the kernel writes them, and only
 * that line is read into columns: parsing every line cost the engine about 1.6 ms of
 * CPU a connection with 750 sockets listed (a test run leaves hundreds waiting to close).
 */
export async function peerUid(peer: Endpoint, us: Endpoint): Promise<number | undefined> {
  for (const table of ["tcp", "tcp6"] as const) {
    const wanted = procAddresses(peer, us, table);
    if (wanted === undefined) continue;
    let file: fs.promises.FileHandle;
    try {
      file = await fs.promises.open(`/proc/net/${table}`, "r");
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
  for (;;) {
    const { bytesRead } = await file.read(buffer, 0, READ_CHUNK, null);
    const text = partial + buffer.toString("latin1", 0, bytesRead);
    // What follows the last newline is a line still being read (nothing at the end).
    const complete = bytesRead === 0 ? text.length : text.lastIndexOf("\n") + 1;
    const uid = uidIn(text.slice(0, complete), wanted);
    if (uid !== undefined) return uid;
    if (bytesRead === 0) return undefined;
    partial = text.slice(complete);
  }
}

/**
 * Scans one table ("sl local_address rem_address st tx_queue:rx_queue tr:tm->when
 * retrnsmt uid …") for the socket whose local end is `peer` and remote end `us`.
 */
export function findUid(table: string, kind: "tcp" | "tcp6", peer: Endpoint, us: Endpoint, endianness = os.endianness()): number | undefined {
  const wanted = procAddresses(peer, us, kind, endianness);
  return wanted === undefined ? undefined : uidIn(table, wanted);
}

/** The uid on the line of `text` whose local and remote addresses are `wanted`. */
function uidIn(text: string, wanted: string): number | undefined {
  for (let at = text.indexOf(` ${wanted} `); at !== -1; at = text.indexOf(` ${wanted} `, at + 1)) {
    const end = text.indexOf("\n", at);
    const columns = text
      .slice(text.lastIndexOf("\n", at) + 1, end === -1 ? text.length : end)
      .trim()
      .split(/\s+/);
    // The addresses must be the line's own two (its second and third columns).
    if (columns.length < 8 || `${columns[1]} ${columns[2]}` !== wanted) continue;
    const uid = Number(columns[7]);
    return Number.isInteger(uid) ? uid : undefined;
  }
  return undefined;
}

/**
 * "LOCAL REMOTE" as /proc/net/`table` writes a socket's two ends, "0100007F:1267": the
 * address as 32-bit words in host byte order (one word in tcp, four in tcp6, where an IPv4
 * address is IPv4-mapped), in upper-case hex, and the port in four. Undefined for an
 * IPv6 address, which tcp cannot list.
 */
function procAddresses(local: Endpoint, remote: Endpoint, table: "tcp" | "tcp6", endianness = os.endianness()): string | undefined {
  const first = procEndpoint(local, table, endianness);
  const second = procEndpoint(remote, table, endianness);
  return first === undefined || second === undefined ? undefined : `${first} ${second}`;
}

function procEndpoint({ address, port }: Endpoint, table: "tcp" | "tcp6", endianness: "BE" | "LE"): string | undefined {
  let bytes = addressBytes(address);
  if (table === "tcp" && bytes.length !== 8) return undefined;
  if (table === "tcp6" && bytes.length === 8) bytes = `00000000000000000000ffff${bytes}`;
  let words = "";
  for (let word = 0; word < bytes.length; word += 8) {
    const text = bytes.slice(word, word + 8);
    words += endianness === "LE" ? `${text.slice(6, 8)}${text.slice(4, 6)}${text.slice(2, 4)}${text.slice(0, 2)}` : text;
  }
  return `${words.toUpperCase()}:${port.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** "127.0.0.1", "::ffff:127.0.0.1" and "::1" as hex bytes in network order (IPv4-mapped as IPv4). */
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
