// Helpers for the host's unit tests: a recorder for reported inputs, a scripted stand-in
// for the engine (it only drives the executors; it decides nothing), and process probes.

import * as fs from "fs";
import { EngineHost, type EngineHostOptions } from "../host/host";
import type * as contract from "../host/contract";
import type { Input, Output } from "../host/protocol";
import type { EngineCore } from "../host/wasm";
import { Logger, MemorySink } from "../log";

/** Waits until check() returns something other than undefined, or fails after timeoutMs. */
export async function waitFor<T>(check: () => T | undefined, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(10);
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Collects what an executor reports. */
export class Recorder {
  readonly inputs: Input[] = [];
  readonly report = (input: Input): void => {
    this.inputs.push(input);
  };

  of<T extends Input["type"]>(type: T): Extract<Input, { type: T }>[] {
    return this.inputs.filter((input): input is Extract<Input, { type: T }> => input.type === type);
  }

  waitFor<T extends Input["type"]>(type: T, what = type, timeoutMs?: number): Promise<Extract<Input, { type: T }>> {
    return waitFor(() => this.of(type)[0], what, timeoutMs);
  }
}

export function testLogger(level: "trace" | "debug" | "info" = "trace"): { logger: Logger; sink: MemorySink } {
  const sink = new MemorySink();
  return { logger: new Logger(sink, level), sink };
}

/** What a scripted engine does with one input (as JSON gives it): return outputs, or throw like a panic. */
export type Script = (input: contract.Input, engine: ScriptedEngine) => Output[];

/** A stand-in for WasmEngine: records inputs and answers with scripted outputs. */
export class ScriptedEngine implements EngineCore {
  readonly inputs: contract.Input[] = [];
  /** The bytes that the script's outputs locate with `dataRange` (the buffered form's). */
  beside = Buffer.alloc(0);
  freed = false;
  /** Set when handle was entered while already running: the host must never do that. */
  reentered = false;
  private depth = 0;

  constructor(
    readonly optionsJson: string,
    private readonly script: Script,
  ) {}

  handle(inputJson: string): string {
    if (this.depth > 0) this.reentered = true;
    this.depth++;
    try {
      const input = JSON.parse(inputJson) as contract.Input;
      this.inputs.push(input);
      return JSON.stringify(this.script(input, this));
    } finally {
      this.depth--;
    }
  }

  outputBytes(): Buffer {
    return this.beside;
  }

  free(): void {
    this.freed = true;
  }
}

/**
 * An EngineHost over scripted engines, each kept for inspection; `options` replace the
 * defaults (a trace-level test logger, a made-up package directory, version and platform).
 */
export function scriptedHost(script: Script, options: Partial<EngineHostOptions> = {}) {
  const engines: ScriptedEngine[] = [];
  const { logger, sink } = testLogger("trace");
  const host = new EngineHost({
    createEngine: (optionsJson) => {
      const engine = new ScriptedEngine(optionsJson, script);
      engines.push(engine);
      return engine;
    },
    logger,
    pythonPackageDir: "/opt/dapper/extension/python",
    adapterVersion: "9.9.9",
    platform: "linux",
    ...options,
  });
  /** The inputs of the first engine. */
  const inputs = (): contract.Input[] => engines[0]?.inputs ?? [];
  const lines = () => sink.lines.map((line) => line.line);
  return { host, engines, inputs, logger, sink, lines };
}

/**
 * True while the process exists and is not a zombie. A zombie has exited but waits for a
 * parent to reap it, which a container's pid 1 may never do.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform === "linux") {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
    } catch {
      return false;
    }
  }
  return true;
}

export const b64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");
export const unb64 = (data: string): string => Buffer.from(data, "base64").toString("utf8");
/** The text of bytes as the executors report them (raw) or as the engine gets them in JSON (base64). */
export const textOf = (data: Uint8Array | string): string => (typeof data === "string" ? unb64(data) : Buffer.from(data).toString("utf8"));
