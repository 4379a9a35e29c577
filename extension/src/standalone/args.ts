// The standalone adapter's command line, parsed without side effects so it can be tested.

import { isLogLevel, LOG_LEVELS } from "../log";
import type { LogLevel } from "../host/protocol";

export interface AdapterArgs {
  /** stdio: DAP on stdin/stdout. tcp: a server, one DAP client per connection. */
  mode: { kind: "stdio" } | { kind: "mcp" } | { kind: "tcp"; host: string; port: number; allowRemote: boolean };
  logLevel: LogLevel;
  logFile: string | undefined;
  /** --log: where the session log (docs/session-logs.md) goes. */
  sessionLog: string | undefined;
  help: boolean;
}

export const USAGE = `Usage: node dist/adapter.js [options]

Dapper's debug adapter. Without --port it speaks the Debug Adapter Protocol on
stdin/stdout; with --port it serves it over TCP, one session per connection.

Options:
  --mcp             serve the Model Context Protocol on stdin/stdout instead:
                    debugging tools for coding agents (docs/agents.md)
  --port N          serve DAP over TCP on port N (0 picks a free port)
  --host H          the address to listen on with --port (default 127.0.0.1); an
                    address other hosts can reach also needs --allow-remote
  --allow-remote    serve clients on other hosts too: anyone who can reach the
                    port can run programs as you (on Linux, local connections
                    are still admitted only from your own user id)
  --log-level L     one of ${LOG_LEVELS.join(", ")} (default info, or $DAPPER_LOG_LEVEL)
  --log-file F      append the log to file F instead of stderr
  --log F           record the session in file F (replaced) for a bug report:
                    every engine input and output, tokens and secrets redacted;
                    "npm run replay F" replays it (docs/session-logs.md)
  --help            print this help and exit
`;

/** Parses argv (without node and the script); throws an Error with a clear message on bad input. */
export function parseAdapterArgs(argv: readonly string[], env: NodeJS.ProcessEnv = {}): AdapterArgs {
  let port: number | undefined;
  let host: string | undefined;
  let logLevel: string | undefined;
  let logFile: string | undefined;
  let sessionLog: string | undefined;
  let help = false;
  let allowRemote = false;
  let mcp = false;

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    // Both "--port 4711" and "--port=4711" are accepted.
    const equals = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = equals >= 0 ? arg.slice(0, equals) : arg;
    const inlineValue = equals >= 0 ? arg.slice(equals + 1) : undefined;
    const value = (): string => {
      if (inlineValue !== undefined) return inlineValue;
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("--")) throw new Error(`${name} needs a value`);
      i++;
      return next;
    };
    switch (name) {
      case "--port": {
        const text = value();
        const parsed = Number(text);
        if (!/^\d+$/.test(text) || parsed > 65535) throw new Error(`--port must be a port number from 0 to 65535, not ${JSON.stringify(text)}`);
        port = parsed;
        break;
      }
      case "--host":
        host = value();
        if (host === "") throw new Error("--host must not be empty");
        break;
      case "--allow-remote":
        if (inlineValue !== undefined) throw new Error("--allow-remote takes no value");
        allowRemote = true;
        break;
      case "--log-level":
        logLevel = value();
        break;
      case "--log-file":
        logFile = value();
        if (logFile === "") throw new Error("--log-file must not be empty");
        break;
      case "--log":
        sessionLog = value();
        if (sessionLog === "") throw new Error("--log must not be empty");
        break;
      case "--mcp":
        if (inlineValue !== undefined) throw new Error("--mcp takes no value");
        mcp = true;
        break;
      case "--help":
      case "-h":
        help = true;
        break;
      default:
        throw new Error(`unknown argument ${JSON.stringify(arg)}`);
    }
  }

  if (mcp && port !== undefined) throw new Error("--mcp serves on stdin/stdout; it cannot be combined with --port");
  if (host !== undefined && port === undefined) throw new Error("--host only makes sense with --port");
  if (allowRemote && port === undefined) throw new Error("--allow-remote only makes sense with --port");
  if (host !== undefined && !isLoopback(host) && !allowRemote) {
    throw new Error(`--host ${host} lets other hosts run programs as you; add --allow-remote if that is what you want`);
  }
  const level = logLevel ?? (env.DAPPER_LOG_LEVEL !== undefined && env.DAPPER_LOG_LEVEL !== "" ? env.DAPPER_LOG_LEVEL : "info");
  if (!isLogLevel(level)) {
    const source = logLevel !== undefined ? "--log-level" : "DAPPER_LOG_LEVEL";
    throw new Error(`${source} must be one of ${LOG_LEVELS.join(", ")}, not ${JSON.stringify(level)}`);
  }
  return {
    mode: mcp ? { kind: "mcp" } : port === undefined ? { kind: "stdio" } : { kind: "tcp", host: host ?? "127.0.0.1", port, allowRemote },
    logLevel: level,
    logFile,
    sessionLog,
    help,
  };
}

/** Whether an address to listen on is reachable from this machine only. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host) || /^::ffff:127\.\d+\.\d+\.\d+$/i.test(host);
}
