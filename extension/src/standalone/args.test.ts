import assert from "assert/strict";
import { test } from "node:test";
import { parseAdapterArgs, type AdapterArgs } from "./args";

const defaults: AdapterArgs = { mode: { kind: "stdio" }, logLevel: "info", logFile: undefined, sessionLog: undefined, help: false };

// Each case: argv, environment, and the parsed arguments or the error expected.
const cases: [string[], NodeJS.ProcessEnv, Partial<AdapterArgs> | RegExp][] = [
  [[], {}, {}],
  [["--port", "4711"], {}, { mode: { kind: "tcp", host: "127.0.0.1", port: 4711, allowRemote: false } }],
  [["--port=0", "--host", "::1"], {}, { mode: { kind: "tcp", host: "::1", port: 0, allowRemote: false } }],
  [["--port=0", "--host", "0.0.0.0", "--allow-remote"], {}, { mode: { kind: "tcp", host: "0.0.0.0", port: 0, allowRemote: true } }],
  [["--port=0", "--host", "0.0.0.0"], {}, /--host 0\.0\.0\.0 lets other hosts run programs as you; add --allow-remote/],
  [["--port=0", "--host", "192.168.1.5"], {}, /add --allow-remote/],
  [["--allow-remote"], {}, /--allow-remote only makes sense with --port/],
  [["--log-level", "trace", "--log-file", "/tmp/d.log"], {}, { logLevel: "trace", logFile: "/tmp/d.log" }],
  [["--log", "/tmp/s.log"], {}, { sessionLog: "/tmp/s.log" }],
  [["--log="], {}, /--log must not be empty/],
  [[], { DAPPER_LOG_LEVEL: "debug" }, { logLevel: "debug" }],
  [["--log-level=warn"], { DAPPER_LOG_LEVEL: "debug" }, { logLevel: "warn" }],
  [["--help"], {}, { help: true }],
  [["--port"], {}, /--port needs a value/],
  [["--port", "--host", "x"], {}, /--port needs a value/],
  [["--port", "70000"], {}, /--port must be a port number/],
  [["--port", "12ab"], {}, /--port must be a port number/],
  [["--host", "0.0.0.0"], {}, /--host only makes sense with --port/],
  [["--log-level", "loud"], {}, /--log-level must be one of error, warn, info, debug, trace/],
  [[], { DAPPER_LOG_LEVEL: "verbose" }, /DAPPER_LOG_LEVEL must be one of/],
  [["--stdio"], {}, /unknown argument "--stdio"/],
];

for (const [argv, env, expected] of cases) {
  test(`adapter arguments: ${JSON.stringify(argv)} ${JSON.stringify(env)}`, () => {
    if (expected instanceof RegExp) assert.throws(() => parseAdapterArgs(argv, env), expected);
    else assert.deepEqual(parseAdapterArgs(argv, env), { ...defaults, ...expected });
  });
}
