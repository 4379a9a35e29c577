// The DAP clients the host currently serves. Client ids are host-owned. A client is
// either a "messages" client (VS Code's inline adapter: DAP objects both ways) or a
// "contentLength" client (stdio or a TCP socket: framed bytes both ways, framed by the
// engine).

import type { ClientTransport, DapMessage } from "./protocol";

export type ClientSink = { transport?: ClientTransport } & (
  | { framing: "messages"; deliver(message: DapMessage): void }
  | {
      framing: "contentLength";
      write(data: Buffer): void;
      /** Ends the stream after everything written so far. */
      end(): void;
      /** Stops and starts reading the client's requests (pauseReading, resumeReading). */
      pause(): void;
      resume(): void;
    }
);

/** The host's side of one DAP client: what the transport calls when something happens. */
export interface HostedClient {
  readonly id: number;
  /** A DAP object from a messages client. */
  message(message: DapMessage): void;
  /** A chunk of a contentLength client's byte stream. */
  bytes(chunk: Buffer): void;
  /** How many bytes written to a contentLength client wait for it to take them (clientBacklog). */
  backlog(bytes: number): void;
  /** The client went away. Safe to call more than once. */
  closed(): void;
}

/** What a client transport needs of the host: EngineHost, seen from the transports. */
export interface ClientHost {
  /** Registers a DAP client and tells the engine about it. */
  openClient(sink: ClientSink): HostedClient;
}

export interface ClientEntry {
  readonly id: number;
  readonly sink: ClientSink;
  /** The engine generation that owns this client (see EngineHost). */
  readonly generation: number;
  /** The last seq delivered to a messages client, so that host-made messages continue it. */
  lastSeq: number;
  /** Its stream was ended (closeClient on a byte stream), or an engine failure orphaned it. */
  ended: boolean;
}

export class ClientRegistry {
  private readonly entries = new Map<number, ClientEntry>();
  private nextId = 1;

  add(sink: ClientSink, generation: number): ClientEntry {
    const entry: ClientEntry = { id: this.nextId++, sink, generation, lastSeq: 0, ended: false };
    this.entries.set(entry.id, entry);
    return entry;
  }

  get(id: number): ClientEntry | undefined {
    return this.entries.get(id);
  }

  remove(id: number): void {
    this.entries.delete(id);
  }

  /** Every client still registered, in the order they opened. */
  all(): ClientEntry[] {
    return [...this.entries.values()];
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Hands a DAP object to a messages client; false when the client cannot take objects. */
export function deliverMessage(entry: ClientEntry, message: DapMessage): boolean {
  if (entry.sink.framing !== "messages") return false;
  if (typeof message.seq === "number") entry.lastSeq = Math.max(entry.lastSeq, message.seq);
  entry.sink.deliver(message);
  return true;
}

/** Frames a DAP object the way the engine does; used only when the engine cannot. */
export function frameMessage(message: DapMessage): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]);
}
