// The JSON contract between the Rust engine and this host, exactly as docs/engine-io.md
// describes it. Every object carries a camelCase "type" tag; byte payloads are base64.

/** A DAP message (request, response or event). The host never looks inside one. */
export type DapMessage = { [key: string]: unknown };

export type Platform = "linux" | "darwin" | "win32";

export interface EngineOptions {
  pythonPackageDir: string;
  platform: Platform;
  /** 64 hex characters of OS randomness. */
  seed: string;
  adapterVersion: string;
}

export type ClientFraming = "messages" | "contentLength";
export type ProcessStream = "stdout" | "stderr";
export type LogLevel = "error" | "warn" | "info" | "debug" | "trace";
export type KillSignal = "SIGTERM" | "SIGKILL" | "SIGINT";

export type ListenerAddress =
  | { transport: "tcp"; host: string; port: number }
  | { transport: "unix"; path: string };

// ---------------------------------------------------------------------------------------
// Fact queries and answers.

export type FactQuery =
  | { kind: "path"; path: string }
  | { kind: "env"; name: string }
  | { kind: "python"; executable: string }
  | { kind: "file"; path: string };

export type FactAnswer =
  | { kind: "path"; path: string; exists: boolean; isFile: boolean; isDirectory: boolean }
  | { kind: "env"; name: string; value: string | null }
  | { kind: "python"; executable: string; ok: true; version: string; path: string }
  | { kind: "python"; executable: string; ok: false; error: string }
  | { kind: "file"; path: string; ok: true; text: string }
  | { kind: "file"; path: string; ok: false; error: string }
  // A query of a kind this host does not know is still answered, as a failure.
  | { kind: string; ok: false; error: string; [key: string]: unknown };

/**
 * How a client reached the host. "stdio" matters to the engine (such a client cannot open a
 * second session on its adapter, so child sessions are offered a loopback address);
 * "childClient" marks a connection to the engine's own client listener.
 */
export type ClientTransport = "inline" | "stdio" | "tcp" | "childClient";

// ---------------------------------------------------------------------------------------
// Inputs: facts, in the past tense.

export type Input =
  | { type: "clientOpened"; client: number; framing: ClientFraming; transport?: ClientTransport }
  | { type: "clientMessage"; client: number; message: DapMessage }
  | { type: "clientBytes"; client: number; data: string }
  | { type: "clientClosed"; client: number }
  | { type: "listenerOpened"; listener: number; address: ListenerAddress }
  | { type: "listenerFailed"; listener: number; error: string }
  | { type: "connectionAccepted"; listener: number; conn: number }
  | { type: "connectionBytes"; conn: number; data: string }
  | { type: "connectionClosed"; conn: number; error?: string }
  | { type: "processSpawned"; process: number; pid: number }
  | { type: "spawnFailed"; process: number; error: string }
  | { type: "processOutput"; process: number; stream: ProcessStream; data: string }
  | { type: "processExited"; process: number; code: number | null; signal: string | null }
  | { type: "timerFired"; timer: number }
  | { type: "factsGathered"; request: number; facts: FactAnswer[] }
  // Answers to connect: conn is a host-numbered connection, like an accepted one.
  | { type: "connected"; request: number; conn: number }
  | { type: "connectFailed"; request: number; error: string };

// ---------------------------------------------------------------------------------------
// Outputs: commands, in the imperative.

export type KillTarget = { process: number } | { pid: number };

export type Output =
  | { type: "sendToClient"; client: number; message: DapMessage }
  // On the buffered fast path (docs/engine-io.md) the bytes are raw beside the outputs'
  // JSON, at dataRange ([start, end]) of the engine's `outputBytes()`, instead of `data`.
  | { type: "writeToClient"; client: number; data: string; dataRange?: undefined }
  | { type: "writeToClient"; client: number; data?: undefined; dataRange: [number, number] }
  | { type: "closeClient"; client: number }
  // purpose "clients": accepted connections are DAP clients (child sessions of stdio clients).
  | { type: "openListener"; listener: number; transport: "tcp" | "unix"; host?: string; port?: number; purpose?: "clients" }
  | { type: "closeListener"; listener: number }
  | { type: "send"; conn: number; data: string }
  | { type: "close"; conn: number }
  // Without cwd the process starts in the host's own working directory.
  | { type: "spawn"; process: number; argv: string[]; cwd?: string; env: { [name: string]: string | null } }
  | { type: "kill"; target: KillTarget; signal: KillSignal; tree: boolean }
  | { type: "setTimer"; timer: number; afterMs: number }
  | { type: "cancelTimer"; timer: number }
  | { type: "gatherFacts"; request: number; queries: FactQuery[] }
  | { type: "log"; level: LogLevel; message: string }
  // An outgoing TCP connection (attach to `python -m dapper --listen`).
  | { type: "connect"; request: number; host: string; port: number };

export type OutputOf<T extends Output["type"]> = Extract<Output, { type: T }>;

/** The function every executor uses to hand a fact back to the engine. */
export type Report = (input: Input) => void;
