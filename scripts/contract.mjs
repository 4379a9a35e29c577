// Rewrites extension/src/host/contract.ts, the TypeScript copy of the engine's contract,
// from the Rust types (core/src/contract.rs, core/src/contract/ids.rs) through ts-rs. The
// generator is a test of the engine (core/src/contract/typescript.rs), which fails while
// the file is stale and writes it when BLESS=1.
//
//   node scripts/contract.mjs
import { run } from "./lib.mjs";

run("cargo", ["test", "-q", "-p", "dapper-core", "--lib", "contract::typescript"], { env: { BLESS: "1" } });
console.log("extension/src/host/contract.ts written");
