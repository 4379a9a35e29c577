// `npm run replay FILE` (bundled to dist/replay.js): replays a session log through the
// engine of this build and prints where its outputs differ from the recorded ones
// (docs/session-logs.md). Exit code 0: no difference; 1: differences (or the engine
// failed); 2: the log cannot be read.

import * as fs from "fs";
import { formatReplay, MalformedLog, replaySessionLog } from "./host/sessionLog";
import { createWasmEngine } from "./host/wasm";

function main(argv: readonly string[]): number {
  if (argv.length !== 1 || argv[0].startsWith("-")) {
    process.stderr.write("Usage: npm run replay FILE\n  Replays a Dapper session log (docs/session-logs.md); exit 0 when the engine's outputs are the recorded ones, 1 when they differ, 2 when the log is malformed.\n");
    return 2;
  }
  const file = argv[0];
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    process.stderr.write(`replay: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  try {
    const result = replaySessionLog(text, createWasmEngine);
    process.stdout.write(formatReplay(result, file) + "\n");
    return result.differences.length === 0 && result.failure === undefined ? 0 : 1;
  } catch (error) {
    if (!(error instanceof MalformedLog)) throw error;
    process.stderr.write(`replay: ${file} is not a session log: ${error.message}\n`);
    return 2;
  }
}

process.exitCode = main(process.argv.slice(2));
