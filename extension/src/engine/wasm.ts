// The one place that loads the WebAssembly engine that the build generates from core/
// (wasm-bindgen --target nodejs, in wasm-pkg/). The bundler inlines the generated glue,
// which reads dapper_core_bg.wasm from the bundle's own directory at load time.

/** What the host needs of an engine: the real WasmEngine or a stand-in in tests. */
export interface EngineCore {
  /** One Input as JSON in, a JSON array of Outputs out. Throws only when the engine panics. */
  handle(nowMs: number, inputJson: string): string;
  free(): void;
}

/** Builds an engine from EngineOptions serialised as JSON. */
export type EngineFactory = (optionsJson: string) => EngineCore;

/** The shape of the module wasm-bindgen generates; declared here so tsc passes before it exists. */
interface DapperCoreModule {
  WasmEngine: new (optionsJson: string) => EngineCore;
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
export const createWasmEngine: EngineFactory = (optionsJson) => new (loadModule().WasmEngine)(optionsJson);
