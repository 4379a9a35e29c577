// GENERATED from core/src/contract.rs and core/src/contract/ids.rs by ts-rs
// (core/src/contract/typescript.rs): do not edit. `node scripts/contract.mjs` rewrites it
// after the Rust types change; the engine's tests fail while it is stale.
//
// The JSON contract between the Rust engine and the host, as docs/engine-io.md describes
// it. Byte payloads (`Bytes`) are base64; the host's own forms, with raw bytes, are in
// protocol.ts.

/** A DAP message (request, response or event), as JSON; the host never looks inside one. */
export type DapMessage = { [key: string]: unknown };

/**
 * A DAP client connection, numbered by the host.
 */
export type ClientId = number;

/**
 * A debuggee connection accepted on one of the engine's listeners, numbered by the host.
 */
export type ConnectionId = number;

/**
 * A listener the engine asked for.
 */
export type ListenerId = number;

/**
 * A process the engine asked the host to spawn.
 */
export type ProcessId = number;

/**
 * A timer the engine set.
 */
export type TimerId = number;

/**
 * A `gatherFacts` request.
 */
export type FactRequestId = number;

/**
 * A `connect` request: an outgoing connection the engine asked the host to open.
 */
export type ConnectRequestId = number;

/**
 * An `inject` request: a bootstrap the engine asked the host to run inside a
 * running process (attach by process id).
 */
export type InjectionId = number;

/**
 * Bytes that travel as a base64 string (standard alphabet, padded) in JSON.
 */
export type Bytes = string;

/**
 * The operating system the host runs on, as Node's `process.platform` names it.
 */
export type Platform =
  | "linux"
  | "darwin"
  | "win32";

/**
 * How the engine is configured once, when the host creates it.
 */
export type EngineOptions = { /** The directory holding the `dapper` Python package; prepended to `PYTHONPATH`. */ pythonPackageDir: string, platform: Platform, /** OS randomness for the session tokens, as hex: 16 bytes (32 characters) a token, each used once; the engine asks for more with `gatherRandomness`. */ randomness: string, adapterVersion: string, /** The host's own working directory: where a program launched without `cwd` runs. A spawned program inherits it anyway; a terminal the client opens does not, so `runInTerminal` names it. Empty: unknown, and the client's terminal decides. */ workingDirectory: string, };

/**
 * How a DAP client's messages reach the engine.
 */
export type Framing =
  | "messages"
  | "contentLength";

/**
 * Which output stream of a process some bytes came from.
 */
export type Stream =
  | "stdout"
  | "stderr";

/**
 * Where a listener ended up listening.
 */
export type Address =
  | { "transport": "tcp", host: string, port: number, }
  | { "transport": "unix", path: string, };

/**
 * How a DAP client is connected to the adapter.
 */
export type ClientTransport =
  | "inline"
  | "stdio"
  | "tcp"
  | "childClient";

/**
 * What the peers of a listener are.
 */
export type ListenerPurpose =
  | "clients"
  | "attach"
  | "attachRemote";

/**
 * The transport of a listener the engine asks for.
 */
export type Transport =
  | "tcp"
  | "unix";

/**
 * A question about the host's world (see docs/engine-io.md, "Fact queries").
 */
export type FactQuery =
  | { "kind": "path", path: string, }
  | { "kind": "env", name: string, }
  | { "kind": "python", executable: string, }
  | { "kind": "file", path: string, };

/**
 * The host's answer to one `FactQuery`.
 */
export type FactAnswer =
  | { "kind": "path", path: string, exists: boolean, isFile: boolean, isDirectory: boolean, }
  | { "kind": "env", name: string, /** `null`: the variable is not set. */ value?: string | null, }
  | { "kind": "python", executable: string, ok: boolean, version?: string, path?: string, /** Why it could not be run, for the message: a key of `messages::PYTHON_PROBLEMS` (`missing`, `folder`, `notExecutable`, `notPython`, `noAnswer`, `failed`). Absent: `failed`. */ problem?: string, /** What the problem names (`{detail}`): the interpreter's own words, a timeout. */ error?: string, }
  | { "kind": "file", path: string, ok: boolean, text?: string, error?: string, };

/**
 * A fact the host reports. Named in the past tense.
 */
export type Input =
  | { "type": "clientOpened", client: ClientId, framing: Framing, /** How the client reaches the adapter; only `stdio` changes anything: such a client cannot open a second session on its adapter process, so child sessions are told to connect to the engine's client listener. */ transport?: ClientTransport, }
  | { "type": "clientMessage", client: ClientId, message: DapMessage, }
  | { "type": "clientBytes", client: ClientId, data: Bytes, }
  | { "type": "clientClosed", client: ClientId, }
  | { "type": "clientBacklog", client: ClientId, bytes: number, }
  | { "type": "listenerOpened", listener: ListenerId, address: Address, }
  | { "type": "listenerFailed", listener: ListenerId, error: string, }
  | { "type": "connectionAccepted", listener: ListenerId, conn: ConnectionId, }
  | { "type": "peerRefused", listener: ListenerId, reason: string, }
  | { "type": "connectionBytes", conn: ConnectionId, data: Bytes, }
  | { "type": "connectionClosed", conn: ConnectionId, error?: string, }
  | { "type": "processSpawned", process: ProcessId, pid: number, }
  | { "type": "spawnFailed", process: ProcessId, error: string, }
  | { "type": "processOutput", process: ProcessId, stream: Stream, data: Bytes, }
  | { "type": "processExited", process: ProcessId, code: number | null, signal: string | null, }
  | { "type": "timerFired", timer: TimerId, }
  | { "type": "factsGathered", request: FactRequestId, facts: Array<FactAnswer>, }
  | { "type": "connected", request: ConnectRequestId, conn: ConnectionId, }
  | { "type": "connectFailed", request: ConnectRequestId, error: string, }
  | { "type": "randomnessGathered", hex: string, }
  | { "type": "injected", injection: InjectionId, /** How it was injected, for the log and the deadline's error ("sys.remote_exec with /usr/bin/python3.14", "gdb /usr/bin/gdb"). */ method: string, }
  | { "type": "injectFailed", injection: InjectionId, reason: string, };

/**
 * What `pauseReading` and `resumeReading` stop and start reading.
 */
export type ReadSource =
  | { "client": ClientId }
  | { "conn": ConnectionId }
  | { "process": ProcessId };

/**
 * What `kill` signals.
 */
export type KillTarget =
  | { "process": ProcessId }
  | { "pid": number };

/**
 * The signals the engine sends.
 */
export type Signal =
  | "SIGTERM"
  | "SIGKILL"
  | "SIGINT";

/**
 * Log levels, most severe first.
 */
export type LogLevel =
  | "error"
  | "warn"
  | "info"
  | "debug"
  | "trace";

/**
 * A command for the host. Named as a verb.
 */
export type Output =
  | { "type": "sendToClient", client: ClientId, message: DapMessage, }
  | { "type": "writeToClient", client: ClientId, data: Bytes, }
  | { "type": "closeClient", client: ClientId, }
  | { "type": "openListener", listener: ListenerId, transport: Transport, host?: string, port?: number, /** Absent: a debuggee listener, whose peers are reported as `connectionAccepted`. `clients`: its peers are DAP clients, reported as `clientOpened`. */ purpose?: ListenerPurpose, }
  | { "type": "closeListener", listener: ListenerId, }
  | { "type": "send", conn: ConnectionId, data: Bytes, }
  | { "type": "close", conn: ConnectionId, }
  | { "type": "spawn", process: ProcessId, argv: Array<string>, /** Absent: the host's own working directory. */ cwd?: string, env: { [name: string]: string | null }, }
  | { "type": "kill", target: KillTarget, signal: Signal, tree: boolean, }
  | { "type": "pauseReading", from: ReadSource, }
  | { "type": "resumeReading", from: ReadSource, }
  | { "type": "disown", process: ProcessId, }
  | { "type": "setTimer", timer: TimerId, afterMs: number, }
  | { "type": "cancelTimer", timer: TimerId, }
  | { "type": "gatherFacts", request: FactRequestId, queries: Array<FactQuery>, }
  | { "type": "log", level: LogLevel, message: string, }
  | { "type": "gatherRandomness", bytes: number, }
  | { "type": "connect", request: ConnectRequestId, host: string, port: number, }
  | { "type": "inject", injection: InjectionId, pid: number, address: Address, token: string, sessionId: string, packageDir: string, /** The debugger to inject with (the attach configuration's `debuggerPath`); absent: the host's choice (sys.remote_exec, else gdb or lldb on PATH). */ debugger?: string, };
