// The one place that loads the WebAssembly engine that the build generates from core/
// (wasm-bindgen --target nodejs, in wasm-pkg/). The bundler inlines the generated glue,
// which reads dapper_core_bg.wasm from the bundle's own directory at load time.

import type { Input, OutputOf } from "./protocol";

/** What the host needs of an engine: the real WasmEngine or a stand-in in tests. */
export interface EngineCore {
  /** One Input as JSON in, a JSON array of Outputs out. Throws only when the engine panics. */
  handle(inputJson: string): string;
  /**
   * The same for an Input object, its bytes raw, when the engine has a faster way to take
   * it than JSON text (the real engine does: the buffered form, see `wrapEngine`). Hosts
   * use it when it is there.
   */
  handleInput?(input: Input): string;
  /**
   * The bytes that the last call's `writeToClient` and `send` outputs locate with `dataRange`, when
   * the engine leaves them raw beside its JSON (the buffered fast path). A view of the
   * engine's memory: valid only until the next call, so whoever keeps them copies them.
   */
  outputBytes?(): Buffer;
  free(): void;
}

/** Builds an engine from EngineOptions serialised as JSON. */
export type EngineFactory = (optionsJson: string) => EngineCore;

/** The class wasm-bindgen generates from core/src/wasm.rs (tests may bundle a stand-in with `handle` only). */
export interface WasmEngine {
  handle(inputJson: string): string;
  /** The buffered fast path (docs/engine-io.md): the address of an input buffer of at least `length` bytes. */
  inputBuffer?(length: number): number;
  /** Handles the input written there; returns the length of the outputs' JSON, found at `outputAddress()`. */
  handleBuffered?(jsonLength: number, dataLength?: number): number;
  outputAddress?(): number;
  outputBytesAddress?(): number;
  free(): void;
}

/** The engine's `WebAssembly.Memory`, as far as the host uses it. */
export interface EngineMemory {
  readonly buffer: ArrayBuffer;
}

/** The shape of the module wasm-bindgen generates; declared here so tsc passes before it exists. */
export interface DapperCoreModule {
  WasmEngine: new (optionsJson: string) => WasmEngine;
  /** The engine's memory, where the buffered fast path's buffers live. */
  engineMemory?(): EngineMemory;
}

let loaded: DapperCoreModule | undefined;

function loadModule(): DapperCoreModule {
  if (loaded === undefined) {
    try {
      // A literal path, so that esbuild bundles the generated glue.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = require("../../../wasm-pkg/dapper_core") as DapperCoreModule;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`The Dapper engine (wasm-pkg/dapper_core) could not be loaded; run "npm run build" first. ${reason}`);
    }
  }
  return loaded;
}

/** Creates the real engine. */
export const createWasmEngine: EngineFactory = (optionsJson) => {
  const module = loadModule();
  return wrapEngine(new module.WasmEngine(optionsJson), module.engineMemory?.());
};

/**
 * The host's side of an engine: the buffered fast path when the engine has it (the
 * real one does; stand-ins in tests may not), else the plain JSON form. On the buffered path the input's JSON is
 * written straight into an input buffer in the engine's memory, the raw bytes of its
 * `data` beside it, and the outputs' JSON is read straight out of an output buffer there,
 * with the bytes of `writeToClient` and `send` outputs raw beside it (`outputBytes`): the engine reuses
 * its buffers, so nothing is allocated on its side, nothing is copied twice and nothing
 * goes through base64 (docs/engine-io.md, "The fast path").
 */
export function wrapEngine(engine: WasmEngine, memory: EngineMemory | undefined): EngineCore {
  const { inputBuffer, handleBuffered, outputAddress, outputBytesAddress } = engine;
  if (memory !== undefined && inputBuffer && handleBuffered && outputAddress && outputBytesAddress) {
    // A view of the whole memory. When the memory grows, which any call into the engine
    // may make it do, its ArrayBuffer is replaced and the old one detached, which
    // leaves a view of it empty: then a new view is taken.
    let view = Buffer.from(memory.buffer);
    const current = (): Buffer => {
      if (view.byteLength === 0) view = Buffer.from(memory.buffer);
      return view;
    };
    const run = (json: string, data: Uint8Array | undefined): string => {
      // UTF-8 needs at most 3 bytes per UTF-16 unit.
      const jsonRoom = json.length * 3;
      const at = inputBuffer.call(engine, jsonRoom + (data?.length ?? 0));
      const input = current();
      const jsonLength = input.write(json, at, jsonRoom, "utf8");
      if (data !== undefined) input.set(data, at + jsonLength);
      const dataLength = data?.length;
      const outputLength = handleBuffered.call(engine, jsonLength, dataLength);
      const from = outputAddress.call(engine);
      return current().toString("utf8", from, from + outputLength);
    };
    return {
      handle: (inputJson) => run(inputJson, undefined),
      handleInput: (input) => {
        if ("data" in input) {
          const { data, ...rest } = input;
          return run(JSON.stringify(rest), data);
        }
        return run(JSON.stringify(input), undefined);
      },
      outputBytes: () => current().subarray(outputBytesAddress.call(engine)),
      free: () => engine.free(),
    };
  }
  return engine;
}

/**
 * The bytes of a writeToClient or send: raw beside the outputs' JSON on the buffered fast
 * path (`dataRange`, docs/engine-io.md), copied because the sink or socket may keep them
 * past the next engine call, which reuses that memory; else base64 in `data`.
 */
export function outputBytes(engine: EngineCore, output: OutputOf<"writeToClient" | "send">): Buffer {
  if (!("dataRange" in output)) return Buffer.from(output.data, "base64");
  const beside = engine.outputBytes?.();
  if (beside === undefined) throw new Error("the engine gave a dataRange but no output bytes");
  const [start, end] = output.dataRange;
  if (!(Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start <= end && end <= beside.length)) {
    throw new Error(`the engine gave the dataRange [${start}, ${end}] outside its ${beside.length} output bytes`);
  }
  return Buffer.from(beside.subarray(start, end));
}

/** An output as the trace log shows it: bytes beside the JSON put back into `data`. */
export function withData(engine: EngineCore, output: unknown): unknown {
  const record = output as { type?: unknown; dataRange?: unknown };
  if ((record?.type !== "writeToClient" && record?.type !== "send") || record.dataRange === undefined) return output;
  try {
    const data = outputBytes(engine, output as OutputOf<"writeToClient" | "send">).toString("base64");
    const readable: Record<string, unknown> = { ...(output as object), data };
    delete readable.dataRange;
    return readable;
  } catch {
    return output;
  }
}
