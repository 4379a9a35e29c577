// EngineHost: one per extension host or adapter process. It owns the engine, feeds it
// every Input and executes its Outputs in order, through one executor per concern. It
// decides nothing about DAP: the only DAP messages it makes up are the ones that tell
// clients the engine itself failed.

import * as crypto from "crypto";
import type * as net from "net";
import { describeError, isLogLevel, type Logger } from "../log";
import { ClientRegistry, deliverMessage, frameMessage, type ClientEntry, type ClientHost, type ClientSink, type HostedClient } from "./clients";
import { gatherFacts } from "./executors/facts";
import { Injector } from "./executors/inject";
import { Processes } from "./executors/processes";
import { Timers } from "./executors/timers";
import { Transports } from "./executors/transports";
import { engineFailedEvents, orphanResponse } from "./failure";
import { inputJson, type DapMessage, type EngineOptions, type Input, type Output, type ReadSource } from "./protocol";
import { inputLine, outputLine, SessionRecorder, type LineSink } from "./sessionLog";
import { outputBytes, withData, type EngineCore, type EngineFactory } from "./wasm";

/** A session token is this many bytes of OS randomness (core/src/token.rs). */
const TOKEN_BYTES = 16;
/** Tokens' worth the engine starts with, and the most one `gatherRandomness` is given. */
const INITIAL_TOKENS = 32;

export interface EngineHostOptions {
  createEngine: EngineFactory;
  logger: Logger;
  /** The directory that contains the `dapper` Python package. */
  pythonPackageDir: string;
  adapterVersion: string;
  /** Defaults to process.platform. */
  platform?: string;
  /**
   * Takes a connection to the engine's client listener (openListener purpose "clients"):
   * a DAP client of its own, the child session of a client that runs the adapter over
   * stdio. The standalone adapter passes one (standalone/streamClient.ts); without it such
   * connections are closed (VS Code's inline clients never make the engine open one).
   */
  acceptChildClient?: (socket: net.Socket) => void;
  /**
   * Where to write the session log (docs/session-logs.md) of each engine the host creates
   * (a new one after a failure): asked once per engine; undefined writes none.
   */
  openSessionLog?: () => LineSink | undefined;
}

/** One engine and every resource it asked for. Replaced as a whole when the engine fails. */
interface Runtime {
  readonly generation: number;
  readonly engine: EngineCore;
  readonly transports: Transports;
  readonly processes: Processes;
  readonly timers: Timers;
  readonly injector: Injector;
  readonly recorder: SessionRecorder | undefined;
}

export class EngineHost implements ClientHost {
  private readonly clients = new ClientRegistry();
  private runtime: Runtime | undefined;
  /**
   * Counts engines. Clients, executors and pending fact requests remember the generation
   * they belong to, so nothing that belonged to a failed engine ever reaches its successor.
   */
  private generation = 1;
  private nextConnectionId = 1;
  private readonly queue: Input[] = [];
  private draining = false;
  private disposed = false;
  private readonly logger: Logger;

  constructor(private readonly options: EngineHostOptions) {
    this.logger = options.logger;
  }

  /** Registers a DAP client and tells the engine about it. */
  openClient(sink: ClientSink): HostedClient {
    const entry = this.clients.add(sink, this.generation);
    const id = entry.id;
    this.logger.debug(`Client ${id} opened (${sink.framing})`);
    const opened: Input = { type: "clientOpened", client: id, framing: sink.framing };
    if (sink.transport !== undefined) opened.transport = sink.transport;
    this.enqueue(opened, entry.generation);
    return {
      id,
      message: (message) => this.clientMessage(id, message),
      bytes: (chunk) => this.clientBytes(id, chunk),
      backlog: (bytes) => this.clientBacklog(id, bytes),
      closed: () => this.clientClosed(id),
    };
  }

  /** Number of DAP clients still open (the stdio adapter lives while any is). */
  get openClientCount(): number {
    return this.clients.size;
  }

  /** Number of processes spawned for the engine that are still running. */
  get liveProcessCount(): number {
    return this.runtime?.processes.size ?? 0;
  }

  /** Resolves once every process spawned for the engine has exited. */
  whenProcessesExited(): Promise<void> {
    return this.runtime?.processes.whenAllExited() ?? Promise.resolve();
  }

  /** Kills every spawned process tree synchronously (for process.on("exit")). */
  killAllProcesses(): void {
    this.runtime?.processes.killAll();
  }

  /** Kills the debuggees, closes the listeners and frees the engine. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.queue.length = 0;
    if (this.runtime) this.disposeRuntime(this.runtime);
    this.runtime = undefined;
  }

  // -------------------------------------------------------------------------------------
  // Client traffic.

  private clientMessage(id: number, message: DapMessage): void {
    const entry = this.clients.get(id);
    if (entry === undefined) return;
    if (entry.generation !== this.generation) return this.answerOrphan(entry, message);
    this.enqueue({ type: "clientMessage", client: id, message }, entry.generation);
  }

  private clientBytes(id: number, chunk: Buffer): void {
    const entry = this.clients.get(id);
    // An orphaned byte-stream client was ended when its engine failed; late bytes are moot.
    if (entry === undefined || entry.generation !== this.generation) return;
    this.enqueue({ type: "clientBytes", client: id, data: chunk }, entry.generation);
  }

  private clientBacklog(id: number, bytes: number): void {
    const entry = this.clients.get(id);
    if (entry === undefined || entry.generation !== this.generation) return;
    this.enqueue({ type: "clientBacklog", client: id, bytes }, entry.generation);
  }

  private clientClosed(id: number): void {
    const entry = this.clients.get(id);
    if (entry === undefined) return;
    this.clients.remove(id);
    this.logger.debug(`Client ${id} closed`);
    this.enqueue({ type: "clientClosed", client: id }, entry.generation);
  }

  private answerOrphan(entry: ClientEntry, message: DapMessage): void {
    const response = orphanResponse(message, entry.lastSeq + 1);
    if (response !== undefined) deliverMessage(entry, response);
  }

  // -------------------------------------------------------------------------------------
  // The loop: inputs are queued and handled one at a time, so an executor that reports a
  // fact synchronously never re-enters the engine.

  private enqueue(input: Input, generation: number): void {
    if (this.disposed || generation !== this.generation) return;
    this.queue.push(input);
    if (!this.draining) this.drain();
  }

  private drain(): void {
    this.draining = true;
    try {
      for (let input = this.queue.shift(); input !== undefined; input = this.queue.shift()) {
        this.handleOne(input);
      }
    } finally {
      this.draining = false;
    }
  }

  private handleOne(input: Input): void {
    const runtime = this.ensureRuntime();
    if (runtime === undefined) return;
    if (this.logger.enabled("trace")) this.logger.trace(inputLine(input, this.logger.secrets));
    runtime.recorder?.input(input);
    let outputsJson: string;
    const stderr: string[] = [];
    try {
      const engine = runtime.engine;
      outputsJson = withConsoleErrorCaptured(stderr, () =>
        engine.handleInput ? engine.handleInput(input) : engine.handle(JSON.stringify(inputJson(input))),
      );
    } catch (error) {
      this.engineFailed(runtime, error, stderr);
      return;
    }
    if (stderr.length > 0) this.logger.error(`The engine wrote: ${stderr.join("\n")}`);
    let outputs: unknown;
    try {
      outputs = JSON.parse(outputsJson);
    } catch (error) {
      this.logger.error(`The engine returned text that is not JSON (${describeError(error)}): ${outputsJson.slice(0, 500)}`);
      return;
    }
    if (!Array.isArray(outputs)) {
      this.logger.error(`The engine returned JSON that is not an array of outputs: ${outputsJson.slice(0, 500)}`);
      return;
    }
    for (const output of outputs) {
      const traced = this.logger.enabled("trace");
      if (traced || runtime.recorder !== undefined) {
        const readable = withData(runtime.engine, output);
        if (traced) this.logger.trace(outputLine(readable, this.logger.secrets));
        runtime.recorder?.output(readable);
      }
      // A failure executing one output is logged and the rest still run: the engine has
      // already moved on, and skipping outputs would leave it and the world out of step.
      try {
        this.execute(runtime, output as Output);
      } catch (error) {
        this.logger.error(`Executing ${JSON.stringify(output).slice(0, 300)} failed: ${describeError(error)}`);
      }
    }
  }

  private execute(runtime: Runtime, output: Output): void {
    switch (output.type) {
      case "sendToClient": {
        const entry = this.liveClient(output.client, output.type);
        if (entry && !deliverMessage(entry, output.message)) {
          this.logger.error(`sendToClient: client ${output.client} is a byte stream and takes writeToClient`);
        }
        return;
      }
      case "writeToClient": {
        const entry = this.liveClient(output.client, output.type);
        if (entry === undefined) return;
        if (entry.sink.framing !== "contentLength") {
          this.logger.error(`writeToClient: client ${output.client} takes DAP objects (sendToClient)`);
          return;
        }
        entry.sink.write(outputBytes(runtime.engine, output));
        return;
      }
      case "closeClient": {
        const entry = this.liveClient(output.client, output.type);
        // An inline client stays open: VS Code still sends disconnect after terminated and
        // must get its response; VS Code closes it by disposing the adapter.
        if (entry === undefined || entry.sink.framing !== "contentLength") return;
        entry.ended = true;
        entry.sink.end();
        return;
      }
      case "pauseReading":
      case "resumeReading":
        return this.flow(runtime, output.from, output.type === "pauseReading");
      case "openListener":
        return runtime.transports.openListener(output);
      case "closeListener":
        return runtime.transports.closeListener(output.listener);
      case "send":
        return runtime.transports.send(output.conn, outputBytes(runtime.engine, output));
      case "close":
        return runtime.transports.close(output.conn);
      case "connect":
        return runtime.transports.connect(output);
      case "spawn":
        return runtime.processes.spawn(output);
      case "kill":
        return runtime.processes.kill(output.target, output.signal, output.tree);
      case "disown":
        return runtime.processes.disown(output.process);
      case "setTimer":
        return runtime.timers.setTimer(output.timer, output.afterMs);
      case "cancelTimer":
        return runtime.timers.cancelTimer(output.timer);
      case "inject":
        return runtime.injector.inject(output);
      case "gatherFacts":
        return this.gatherFacts(runtime, output.request, output.queries);
      case "gatherRandomness": {
        const bytes = Math.min(Math.max(0, Math.floor(output.bytes)), TOKEN_BYTES * INITIAL_TOKENS);
        this.enqueue({ type: "randomnessGathered", hex: this.tokenRandomness(bytes) }, runtime.generation);
        return;
      }
      case "log":
        this.logger.log(isLogLevel(output.level) ? output.level : "info", output.message);
        return;
      default:
        this.logger.error(`The engine asked for an output the host does not know: ${JSON.stringify(output).slice(0, 300)}`);
    }
  }

  /** Stops or starts reading a source (plain IO flow control; the engine decides when). */
  private flow(runtime: Runtime, from: ReadSource, paused: boolean): void {
    if ("conn" in from) return runtime.transports.flow(from.conn, paused);
    if ("process" in from) return runtime.processes.flow(from.process, paused);
    const entry = this.liveClient(from.client, paused ? "pauseReading" : "resumeReading");
    if (entry === undefined || entry.sink.framing !== "contentLength") return;
    if (paused) entry.sink.pause();
    else entry.sink.resume();
  }

  private liveClient(id: number, what: string): ClientEntry | undefined {
    const entry = this.clients.get(id);
    if (entry === undefined || entry.ended) {
      // The client may have gone a moment ago; the engine hears about it from clientClosed.
      this.logger.debug(`${what}: client ${id} is not open`);
      return undefined;
    }
    return entry;
  }

  /**
   * Bytes for session tokens, from the OS CSPRNG (never a seeded generator's), as hex;
   * the logger learns them first, so that no log line shows a token.
   */
  private tokenRandomness(bytes: number): string {
    const hex = crypto.randomBytes(bytes).toString("hex");
    this.logger.secrets.addTokens(hex);
    return hex;
  }

  private gatherFacts(runtime: Runtime, request: number, queries: unknown): void {
    const list = Array.isArray(queries) ? queries : [];
    if (!Array.isArray(queries)) this.logger.error(`gatherFacts ${request}: queries is not an array`);
    gatherFacts(list).then(
      (facts) => this.enqueue({ type: "factsGathered", request, facts }, runtime.generation),
      (error) => this.logger.error(`gatherFacts ${request} failed: ${describeError(error)}`),
    );
  }

  // -------------------------------------------------------------------------------------
  // Engine lifetime.

  private ensureRuntime(): Runtime | undefined {
    if (this.runtime !== undefined) return this.runtime;
    const generation = this.generation;
    const options: EngineOptions = {
      pythonPackageDir: this.options.pythonPackageDir,
      // The engine treats platforms other than linux, darwin and win32 as POSIX.
      platform: (this.options.platform ?? process.platform) as EngineOptions["platform"],
      randomness: this.tokenRandomness(TOKEN_BYTES * INITIAL_TOKENS),
      adapterVersion: this.options.adapterVersion,
      // Where a program launched without a cwd runs: a terminal the client opens needs
      // to be told; a spawned program inherits it.
      workingDirectory: process.cwd(),
    };
    let engine: EngineCore;
    try {
      engine = this.options.createEngine(JSON.stringify(options));
    } catch (error) {
      this.logger.error(`The Dapper engine could not be created: ${describeError(error)}`);
      this.queue.length = 0;
      this.orphanClients(generation);
      return undefined;
    }
    this.logger.debug(
      `Engine ${generation} created (python package ${options.pythonPackageDir}, platform ${options.platform}, version ${options.adapterVersion})`,
    );
    const recorder = this.openRecorder(options);
    const report = (input: Input) => this.enqueue(input, generation);
    const runtime: Runtime = {
      generation,
      engine,
      transports: new Transports(report, this.logger, () => this.nextConnectionId++, this.options.acceptChildClient),
      processes: new Processes(report, this.logger),
      timers: new Timers(report, this.logger),
      injector: new Injector(report, this.logger),
      recorder,
    };
    this.runtime = runtime;
    return runtime;
  }

  private openRecorder(options: EngineOptions): SessionRecorder | undefined {
    let sink: LineSink | undefined;
    try {
      sink = this.options.openSessionLog?.();
    } catch (error) {
      this.logger.error(`The session log could not be opened: ${describeError(error)}`);
    }
    if (sink === undefined) return undefined;
    const recorder = new SessionRecorder(sink, this.logger.secrets);
    recorder.engineCreated(options);
    return recorder;
  }

  /**
   * The engine panicked. Every session it served is over: its clients are told so, every
   * resource it owned is released, and the next client gets a fresh engine.
   */
  private engineFailed(runtime: Runtime, error: unknown, stderr: string[]): void {
    // The panic hook's message (file, line, reason) is the useful part; the thrown error is
    // usually just "RuntimeError: unreachable".
    const panic = stderr.length > 0 ? `${stderr.join("\n")}\n` : "";
    this.logger.error(`The Dapper engine failed; every open debug session is ended. ${panic}${describeError(error)}`);
    this.queue.length = 0;
    this.disposeRuntime(runtime);
    this.runtime = undefined;
    this.orphanClients(runtime.generation);
  }

  /** Ends every client of a failed generation and moves the host to a new one. */
  private orphanClients(generation: number): void {
    this.generation = generation + 1;
    for (const entry of this.clients.all()) {
      if (entry.generation !== generation || entry.ended) continue;
      entry.ended = true;
      try {
        const events = engineFailedEvents(entry.lastSeq + 1);
        if (entry.sink.framing === "messages") {
          for (const event of events) deliverMessage(entry, event);
        } else {
          // The engine frames byte streams, but it is gone; this is the one place the host
          // frames, and it then ends the stream so the client's transport closes.
          for (const event of events) entry.sink.write(frameMessage(event));
          entry.sink.end();
          this.clients.remove(entry.id);
        }
      } catch (failure) {
        this.logger.error(`Could not tell client ${entry.id} that the engine failed: ${describeError(failure)}`);
      }
    }
  }

  private disposeRuntime(runtime: Runtime): void {
    runtime.recorder?.close();
    runtime.timers.dispose();
    runtime.processes.dispose();
    runtime.transports.dispose();
    try {
      runtime.engine.free();
    } catch (error) {
      // A panicked wasm instance may refuse even this; it is garbage either way.
      this.logger.debug(`Freeing the engine failed: ${describeError(error)}`);
    }
  }
}

/**
 * Runs fn with console.error redirected into lines. The engine's panic hook reports a
 * panic through console.error just before the panic surfaces as a thrown error; captured
 * here, it lands in Dapper's log next to the failure instead of in a console nobody reads.
 */
function withConsoleErrorCaptured<T>(lines: string[], fn: () => T): T {
  const original = console.error;
  console.error = (...values: unknown[]) => {
    lines.push(values.map((value) => (typeof value === "string" ? value : describeError(value))).join(" "));
  };
  try {
    return fn();
  } finally {
    console.error = original;
  }
}
