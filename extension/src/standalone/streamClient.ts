// Hosts a contentLength DAP client on a pair of streams: stdin/stdout for the stdio
// adapter, or both directions of one socket for the TCP server. The engine frames and
// unframes the Content-Length messages; this module only moves bytes.

import type * as net from "net";
import type { Writable } from "stream";
import type { ClientHost, HostedClient } from "../host/clients";
import type { ClientTransport } from "../host/protocol";
import type { Logger } from "../log";

const MIB = 1 << 20;

export interface StreamClient {
  readonly client: HostedClient;
  /** Resolves once the client is closed, by either side. */
  readonly closed: Promise<void>;
}

export function hostStreamClient(
  host: ClientHost,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  logger: Logger,
  label: string,
  transport?: ClientTransport,
): StreamClient {
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let ended = false;
  // The backlog last reported, in whole MiB (see noteBacklog).
  let reportedMiB = 0;

  const client = host.openClient({
    framing: "contentLength",
    transport,
    write: (data) => {
      if (ended) return;
      output.write(data);
      noteBacklog();
    },
    pause: () => input.pause(),
    resume: () => input.resume(),
    end: () => {
      if (ended) return;
      ended = true;
      // end() flushes everything written before it; the client is closed once it has.
      output.end(() => finish());
    },
  });

  // What waits for the client is reported each time it passes another MiB, and as 0 once
  // the client has taken it all; the engine decides what to pause (clientBacklog).
  const noteBacklog = () => {
    const queued = (output as Partial<Writable>).writableLength ?? 0;
    const mib = Math.floor(queued / MIB);
    if (mib > reportedMiB) {
      reportedMiB = mib;
      client.backlog(queued);
    }
  };
  output.on("drain", () => {
    if (reportedMiB === 0 || finished) return;
    reportedMiB = 0;
    client.backlog(0);
  });

  let finished = false;
  const finish = (reason?: string) => {
    if (finished) return;
    finished = true;
    if (reason !== undefined) logger.debug(`${label}: ${reason}`);
    client.closed();
    resolveClosed();
  };

  input.on("data", (chunk: Buffer | string) => client.bytes(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk));
  input.on("end", () => finish("the client ended its stream"));
  input.on("close", () => finish("the client's stream closed"));
  input.on("error", (error: Error) => finish(`the client's stream failed: ${error.message}`));
  output.on("error", (error: Error) => {
    // A client that stopped reading (EPIPE) is gone as surely as one that hung up.
    ended = true;
    finish(`writing to the client failed: ${error.message}`);
  });
  return { client, closed };
}

/**
 * Hosts one socket as a DAP client until either side closes it: a connection to the
 * adapter's --port server ("tcp"), or to the engine's own client listener
 * ("childClient": the child session of a client that runs the adapter over stdio).
 */
export function hostSocketClient(host: ClientHost, socket: net.Socket, logger: Logger, transport: "tcp" | "childClient"): void {
  socket.setNoDelay(true);
  const peer = `${socket.remoteAddress ?? "?"}:${socket.remotePort ?? "?"}`;
  const what = transport === "tcp" ? "client" : "child-session client";
  const session = hostStreamClient(host, socket, socket, logger, `${what} ${peer}`, transport);
  logger.info(`Client ${session.client.id} connected from ${peer}${transport === "tcp" ? "" : " for a child session"}`);
  void session.closed.then(() => {
    logger.info(`Client ${session.client.id} (${peer}) disconnected`);
    socket.destroy();
  });
}
