// GENERATED from core/src/config/debugpy.rs: do not edit. `BLESS=1 cargo test -p
// dapper-core debugpy` rewrites it; the engine's tests fail while it is stale.
//
// What VS Code's extension needs to hand a debugpy configuration to the engine.

/** The configuration types whose configurations are debugpy's. */
export const DEBUGPY_TYPES: readonly string[] = ["debugpy", "python"];

/** The private key that says which debugpy type a configuration had before it became Dapper's. */
export const FROM_TYPE_KEY = "__dapperFromType";
