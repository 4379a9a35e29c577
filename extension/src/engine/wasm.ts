// The one place that loads the WebAssembly engine that the build generates from core/
// (wasm-bindgen --target nodejs, in wasm-pkg/). The bundler inlines the generated glue,
// which reads dapper_core_bg.wasm from the bundle's own directory at load time.

import type { Input } from "./protocol";

/** What the host needs of an engine: the real WasmEngine or a stand-in in tests. */
export interface EngineCore {
  /** One Input as JSON in, a JSON array of Outputs out. Throws only when the engine panics. */
  handle(nowMs: number, inputJson: string): string;
  /**
   * The same for an Input object, when the engine has a faster way to take it than JSON
   * text (the real engine does: see `encodeInput`). Hosts use it when it is there.
   */
  handleInput?(nowMs: number, input: Input): string;
  free(): void;
}

/** Builds an engine from EngineOptions serialised as JSON. */
export type EngineFactory = (optionsJson: string) => EngineCore;

/** The class wasm-bindgen generates from core/src/wasm.rs (tests may bundle a stand-in with `handle` only). */
interface WasmEngine {
  handle(nowMs: number, inputJson: string): string;
  handleUtf8?(nowMs: number, inputJson: Uint8Array, data?: Uint8Array): string;
  free(): void;
}

/** The shape of the module wasm-bindgen generates; declared here so tsc passes before it exists. */
interface DapperCoreModule {
  WasmEngine: new (optionsJson: string) => WasmEngine;
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

/**
 * An Input as the engine's fast path (`handleUtf8`, docs/engine-io.md) takes it: the JSON
 * as UTF-8 bytes, which cross into WebAssembly as one copy (a string crosses character by
 * character in wasm-bindgen's glue), and the bytes of a `data` field beside it rather
 * than as base64 inside the JSON the engine would have to scan and decode.
 */
export function encodeInput(input: Input): { json: Buffer; data: Buffer | undefined } {
  if (input.type === "clientBytes" || input.type === "connectionBytes" || input.type === "processOutput") {
    const { data, ...rest } = input;
    return { json: Buffer.from(JSON.stringify(rest), "utf8"), data: Buffer.from(data, "base64") };
  }
  return { json: Buffer.from(JSON.stringify(input), "utf8"), data: undefined };
}

/** Creates the real engine. */
export const createWasmEngine: EngineFactory = (optionsJson) => {
  const engine = new (loadModule().WasmEngine)(optionsJson);
  const handleUtf8 = engine.handleUtf8?.bind(engine);
  if (handleUtf8 === undefined) return engine;
  return {
    handle: (nowMs, inputJson) => handleUtf8(nowMs, Buffer.from(inputJson, "utf8")),
    handleInput: (nowMs, input) => {
      const { json, data } = encodeInput(input);
      return handleUtf8(nowMs, json, data);
    },
    free: () => engine.free(),
  };
};
