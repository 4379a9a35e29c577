// Hosts a contentLength DAP client on a pair of streams: stdin/stdout for the stdio
// adapter, or both directions of one socket for the TCP server. The engine frames and
// unframes the Content-Length messages; this module only moves bytes.

import type { EngineHost, HostedClient } from "../engine/host";
import type { ClientTransport } from "../engine/protocol";
import type { Logger } from "../log";

export interface StreamClient {
  readonly client: HostedClient;
  /** Resolves once the client is closed, by either side. */
  readonly closed: Promise<void>;
}

export function hostStreamClient(
  host: EngineHost,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  logger: Logger,
  label: string,
  transport?: ClientTransport,
): StreamClient {
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let ended = false;

  const client = host.openClient({
    framing: "contentLength",
    transport,
    write: (data) => {
      if (!ended) output.write(data);
    },
    end: () => {
      if (ended) return;
      ended = true;
      // end() flushes everything written before it; the client is closed once it has.
      output.end(() => finish());
    },
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
