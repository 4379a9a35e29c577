#!/usr/bin/env node
// npm run replay FILE: replays a Dapper session log through the built engine and shows
// where its outputs differ from the recording (docs/session-logs.md). The replay itself is
// extension/src/replay.ts, bundled by `npm run build` into dist/replay.js with the engine.

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bundle = path.join(root, "dist", "replay.js");
if (!existsSync(bundle)) {
  process.stderr.write(`replay: ${bundle} is missing; run "npm run build" first.\n`);
  process.exit(2);
}
createRequire(import.meta.url)(bundle);
