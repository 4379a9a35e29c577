// Executes openListener / closeListener / connect / send / close: the sockets debuggees
// connect back to, and the connections to programs that listen for a debugger (attach).
// Listener and connect request ids come from the engine; connection ids (accepted or
// connected) come from the host. Every connection is reported closed exactly once.

import * as fs from "fs";
import * as net from "net";
import * as os from "os";
import * as path from "path";
import type { ListenerAddress, OutputOf, Report } from "../protocol";
import type { Logger } from "../../log";
import { judgePeer } from "./peer";

/** How long an ended connection may stay half-open before it is destroyed. */
const CLOSE_GRACE_MS = 2000;
/** sun_path holds 104 bytes on macOS and 108 on Linux, including the final NUL. */
const MAX_SOCKET_PATH_BYTES = 100;

interface Listener {
  server: net.Server;
  /** The private directory that holds a Unix socket, removed with the listener. */
  directory?: string;
}

export class Transports {
  private readonly listeners = new Map<number, Listener>();
  private readonly connections = new Map<number, net.Socket>();
  /** Outgoing connections not yet established, destroyed on dispose. */
  private readonly connecting = new Set<net.Socket>();
  private disposed = false;

  constructor(
    private readonly report: Report,
    private readonly logger: Logger,
    /** Hands out the host-owned connection ids. */
    private readonly nextConnectionId: () => number,
    /** Takes the connections of listeners whose purpose is "clients": they are DAP clients. */
    private readonly acceptClient: (socket: net.Socket) => void = (socket) => socket.destroy(),
  ) {}

  openListener(command: OutputOf<"openListener">): void {
    const id = command.listener;
    if (this.disposed) return;
    if (this.listeners.has(id)) {
      this.emit({ type: "listenerFailed", listener: id, error: `listener id ${id} is already in use` });
      return;
    }
    if (command.transport === "tcp") {
      this.listen(id, { host: command.host ?? "127.0.0.1", port: command.port ?? 0 }, undefined, command.purpose);
    } else if (command.transport === "unix") {
      let directory: string;
      try {
        directory = makePrivateDirectory(os.tmpdir());
        if (Buffer.byteLength(path.join(directory, `s${id}.sock`)) > MAX_SOCKET_PATH_BYTES && process.platform !== "win32") {
          // A long TMPDIR (macOS's /var/folders/…, a deep container path) would overflow
          // sockaddr_un; /tmp is short and exists on every POSIX system.
          fs.rmSync(directory, { recursive: true, force: true });
          directory = makePrivateDirectory("/tmp");
        }
      } catch (error) {
        this.emit({ type: "listenerFailed", listener: id, error: `cannot create a private socket directory: ${messageOf(error)}` });
        return;
      }
      this.listen(id, { path: path.join(directory, `s${id}.sock`) }, directory, command.purpose);
    } else {
      const transport = (command as { transport: unknown }).transport;
      this.emit({ type: "listenerFailed", listener: id, error: `unknown transport ${JSON.stringify(transport)}` });
    }
  }

  closeListener(id: number): void {
    const listener = this.listeners.get(id);
    if (listener === undefined) {
      this.logger.debug(`closeListener: listener ${id} is not open`);
      return;
    }
    this.listeners.delete(id);
    closeServer(listener);
  }

  /** Opens an outgoing TCP connection; answers connected (then bytes and a close) or connectFailed. */
  connect(command: OutputOf<"connect">): void {
    const { request, host, port } = command;
    if (this.disposed) return;
    let socket: net.Socket;
    try {
      socket = net.connect({ host, port });
    } catch (error) {
      // net.connect throws synchronously on options it rejects, such as a port out of range.
      this.emit({ type: "connectFailed", request, error: messageOf(error) });
      return;
    }
    this.connecting.add(socket);
    const failed = (error: Error) => {
      this.connecting.delete(socket);
      socket.destroy();
      this.emit({ type: "connectFailed", request, error: error.message });
    };
    socket.once("error", failed);
    socket.once("connect", () => {
      this.connecting.delete(socket);
      socket.off("error", failed);
      if (this.disposed) return socket.destroy();
      socket.setNoDelay(true);
      this.adopt(socket, (conn) => this.emit({ type: "connected", request, conn }));
    });
  }

  send(conn: number, data: Buffer): void {
    const socket = this.connections.get(conn);
    if (socket === undefined) {
      // The peer may have closed a moment ago; the engine hears about it from connectionClosed.
      this.logger.debug(`send: connection ${conn} is not open`);
      return;
    }
    socket.write(data);
  }

  /** Stops or starts reading a connection: its peer blocks once the socket's buffers are full. */
  flow(conn: number, paused: boolean): void {
    const socket = this.connections.get(conn);
    if (socket === undefined) return this.logger.debug(`${paused ? "pause" : "resume"}Reading: connection ${conn} is not open`);
    if (paused) socket.pause();
    else socket.resume();
  }

  close(conn: number): void {
    const socket = this.connections.get(conn);
    if (socket === undefined) {
      this.logger.debug(`close: connection ${conn} is not open`);
      return;
    }
    // end() flushes what was written before; a peer that never closes its side is cut off.
    socket.end();
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  }

  /** Closes every listener and connection and stops reporting. */
  dispose(): void {
    this.disposed = true;
    for (const listener of this.listeners.values()) closeServer(listener);
    this.listeners.clear();
    for (const socket of this.connections.values()) socket.destroy();
    this.connections.clear();
    for (const socket of this.connecting) socket.destroy();
    this.connecting.clear();
  }

  private listen(id: number, options: net.ListenOptions, directory: string | undefined, purpose: OutputOf<"openListener">["purpose"]): void {
    const server = net.createServer();
    const listener: Listener = { server, directory };
    this.listeners.set(id, listener);
    let listening = false;

    server.on("error", (error) => {
      if (listening) {
        this.logger.error(`Listener ${id}: ${error.message}`);
        return;
      }
      this.listeners.delete(id);
      closeServer(listener);
      this.emit({ type: "listenerFailed", listener: id, error: error.message });
    });
    server.on("listening", () => {
      listening = true;
      const address = addressOf(server, options);
      if (address === undefined) {
        this.emit({ type: "listenerFailed", listener: id, error: "the listener has no address" });
        return;
      }
      this.logger.debug(`Listener ${id} open on ${JSON.stringify(address)}`);
      this.emit({ type: "listenerOpened", listener: id, address });
    });
    server.on("connection", (socket) => {
      if (this.disposed) return socket.destroy();
      if (purpose === "attach" || purpose === "attachRemote") return this.admit(id, socket, purpose === "attachRemote");
      if (purpose === undefined) return this.accept(id, socket);
      socket.setNoDelay(true);
      this.acceptClient(socket);
    });
    try {
      server.listen(options);
    } catch (error) {
      // listen throws synchronously on options it rejects, such as a port out of range.
      this.listeners.delete(id);
      closeServer(listener);
      this.emit({ type: "listenerFailed", listener: id, error: messageOf(error) });
    }
  }

  /**
   * A peer of an attach listener (a program the user started, which has no token): on
   * Linux one of this machine must belong to our user; one of another machine is
   * admitted only when the user chose a listening address other machines can reach.
   */
  private admit(listener: number, socket: net.Socket, allowRemote: boolean): void {
    const peer = `${socket.remoteAddress ?? "?"}:${socket.remotePort ?? "?"}`;
    void judgePeer(socket, process.getuid?.() ?? -1, allowRemote).then((verdict) => {
      if (this.disposed || socket.destroyed || !this.listeners.has(listener)) {
        socket.destroy();
      } else if (verdict.admit) {
        this.logger.debug(`Admitting ${peer} on listener ${listener}: ${verdict.why}`);
        this.accept(listener, socket);
      } else {
        socket.destroy();
        this.emit({ type: "peerRefused", listener, reason: `${peer}: ${verdict.why}` });
      }
    });
  }

  private accept(listener: number, socket: net.Socket): void {
    if (this.disposed) {
      socket.destroy();
      return;
    }
    socket.setNoDelay(true);
    this.adopt(socket, (conn) => this.emit({ type: "connectionAccepted", listener, conn }));
  }

  /**
   * Gives a connected socket a host id, reports it with `opened` (before any of its bytes)
   * and then reports its bytes and its close.
   */
  private adopt(socket: net.Socket, opened: (conn: number) => void): void {
    const conn = this.nextConnectionId();
    this.connections.set(conn, socket);
    opened(conn);

    let failure: string | undefined;
    socket.on("data", (chunk: Buffer) => this.emit({ type: "connectionBytes", conn, data: chunk }));
    socket.on("error", (error) => {
      failure = error.message;
    });
    socket.on("close", () => {
      if (this.connections.get(conn) !== socket) return;
      this.connections.delete(conn);
      this.emit(failure === undefined ? { type: "connectionClosed", conn } : { type: "connectionClosed", conn, error: failure });
    });
  }

  private emit(input: Parameters<Report>[0]): void {
    if (!this.disposed) this.report(input);
  }
}

/** Makes a fresh directory only this user can enter, for Unix sockets. */
function makePrivateDirectory(parent: string): string {
  const directory = fs.mkdtempSync(path.join(parent, "dapper-"));
  // mkdtemp already uses 0700, but the umask and other platforms are not trusted with it.
  fs.chmodSync(directory, 0o700);
  return directory;
}

function addressOf(server: net.Server, options: net.ListenOptions): ListenerAddress | undefined {
  const address = server.address();
  if (address === null) return undefined;
  if (typeof address === "string") return { transport: "unix", path: address };
  if (options.path !== undefined) return { transport: "unix", path: options.path };
  return { transport: "tcp", host: address.address, port: address.port };
}

function closeServer(listener: Listener): void {
  try {
    listener.server.close();
  } catch {
    // A server that never listened cannot be closed; nothing is left to release.
  }
  if (listener.directory !== undefined) {
    // The socket file may still be in use by close(); removing the directory is safe on
    // POSIX because open connections do not need the name.
    fs.rmSync(listener.directory, { recursive: true, force: true });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
