// Rewrites extension/src/host/contract.ts, the TypeScript copy of the engine's contract,
// from the Rust types (core/src/contract.rs, core/src/contract/ids.rs) through ts-rs. The
// generator is a test of the engine (core/src/contract/typescript.rs), which fails while
// the file is stale and, with BLESS=1, prints the file's text between two marker lines
// (the engine's crate writes no files): this script writes it.
//
//   node scripts/contract.mjs
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const output = execFileSync(
  "cargo",
  ["test", "-q", "-p", "dapper-core", "--lib", "contract::typescript", "--", "--nocapture"],
  { cwd: root, env: { ...process.env, BLESS: "1" }, encoding: "utf8", maxBuffer: 64 * 2 ** 20, stdio: ["ignore", "pipe", "inherit"] },
);
const match = /----- BEGIN contract\.ts -----\n([\s\S]*?)----- END contract\.ts -----/.exec(output);
if (!match) throw new Error(`the contract test printed no contract.ts (its output ended with ${JSON.stringify(output.slice(-500))})`);
writeFileSync(path.join(root, "extension", "src", "host", "contract.ts"), match[1]);
console.log("extension/src/host/contract.ts written");
