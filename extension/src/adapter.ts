// The standalone debug adapter (bundled to dist/adapter.js) for DAP clients other than
// VS Code's inline host: Neovim, Helix, Zed, Emacs and the end-to-end tests.
//   node dist/adapter.js                  DAP on stdin/stdout, one session
//   node dist/adapter.js --port 4711      DAP over TCP, one engine, a session per connection
//   node dist/adapter.js --mcp            the agents' debugging tools over MCP on stdio
// Nothing but DAP (or MCP) is ever written to stdout: logs go to stderr or --log-file.

import * as fs from "fs";
import * as net from "net";
import { format } from "util";
import { hostSocketClient, hostStreamClient } from "./standalone/streamClient";
import { parseAdapterArgs, USAGE, type AdapterArgs } from "./standalone/args";
import { CAN_TELL_PEER_UID, judgePeer } from "./host/executors/peer";
import { EngineSessions } from "./agent/engineSessions";
import { EngineHost } from "./host/host";
import { serveMcp } from "./mcp/server";
import { sessionLogFiles } from "./host/sessionLog";
import type { LogLevel } from "./host/protocol";
import { createWasmEngine } from "./host/wasm";
import { findExtensionRoot, pythonPackageDirOf } from "./extensionRoot";
import { describeError, FileSink, Logger, StreamSink, type LogSink } from "./log";

/** How long a closed stdio session waits for its debuggees to exit before killing them. */
const STDIO_EXIT_GRACE_MS = 10_000;

function main(): void {
  let args: AdapterArgs;
  try {
    args = parseAdapterArgs(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`dapper adapter: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exit(2);
  }
  if (args.help) {
    // Not a DAP session, so the help may go to stdout like any command's help.
    process.stdout.write(USAGE);
    return;
  }

  let sink: LogSink;
  try {
    sink = args.logFile !== undefined ? new FileSink(args.logFile) : new StreamSink(process.stderr);
  } catch (error) {
    process.stderr.write(`dapper adapter: cannot open the log file: ${describeError(error)}\n`);
    process.exit(2);
  }
  const logger = new Logger(sink, args.logLevel);
  protectStdout(logger);

  const root = findExtensionRoot(__dirname);
  if (root === undefined) {
    logger.error(`Cannot find Dapper's package.json above ${__dirname}; the installation is incomplete.`);
    process.exit(1);
  }
  const pythonPackageDir = pythonPackageDirOf(root.directory);
  if (!fs.existsSync(pythonPackageDir)) logger.warn(`The Python package directory ${pythonPackageDir} does not exist.`);

  const host: EngineHost = new EngineHost({
    createEngine: createWasmEngine,
    logger,
    pythonPackageDir,
    adapterVersion: root.version,
    // Child sessions of a stdio client connect back to the engine's client listener.
    acceptChildClient: (socket) => admitOwner(socket, logger, false, () => hostSocketClient(host, socket, logger, "childClient")),
    openSessionLog: args.sessionLog !== undefined ? sessionLogFiles(args.sessionLog) : undefined,
  });
  installProcessHandlers(host, logger);
  logger.info(`Dapper adapter ${root.version} (node ${process.version}, pid ${process.pid}) starting in ${args.mode.kind} mode`);
  if (args.sessionLog !== undefined) logger.info(`Recording the session log in ${args.sessionLog}`);

  if (args.mode.kind === "stdio") runStdio(host, logger);
  else if (args.mode.kind === "mcp") runMcp(host, logger, root.version);
  else runServer(host, logger, args.mode.host, args.mode.port, args.mode.allowRemote);
}

/** One session on stdin/stdout; the process exits when it is over. */
function runStdio(host: EngineHost, logger: Logger): void {
  const session = hostStreamClient(host, process.stdin, process.stdout, logger, "stdio client", "stdio");
  void session.closed.then(async () => {
    // Child sessions of this client connect to the engine's own client listener; the
    // adapter serves them until the last one is gone.
    while (host.openClientCount > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    // The engine stops launched debuggees when its client goes; give them time to exit
    // so that their last output and exit codes are logged, then make sure of it.
    if (host.liveProcessCount > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, STDIO_EXIT_GRACE_MS)));
      await Promise.race([host.whenProcessesExited(), grace]);
      clearTimeout(timer);
      if (host.liveProcessCount > 0) {
        logger.warn(`${host.liveProcessCount} debuggee process(es) still running after the session ended; killing them.`);
      }
    }
    logger.info("The client is gone; the adapter exits.");
    host.dispose();
    process.exit(0);
  });
}

/**
 * The MCP server: its sessions are DAP clients of the engine in this process. It exits
 * when the MCP client goes, stopping the programs it started.
 */
function runMcp(host: EngineHost, logger: Logger, version: string): void {
  // Values of secret-looking names are masked unless the user says otherwise.
  const maskSecrets = process.env.DAPPER_AGENT_SHOW_SECRETS !== "1";
  const sessions = new EngineSessions(host, logger, maskSecrets);
  const finish = () => {
    logger.info("The MCP client is gone; the adapter exits.");
    sessions.dispose();
    host.dispose();
    process.exit(0);
  };
  process.stdin.once("end", finish);
  process.stdin.once("close", finish);
  serveMcp(sessions, process.cwd(), version, logger).then(finish, (error: unknown) => {
    logger.error(`The MCP server failed: ${describeError(error)}`);
    finish();
  });
}

/** A DAP server: every accepted connection is a client of the one engine. */
function runServer(host: EngineHost, logger: Logger, address: string, port: number, allowRemote: boolean): void {
  const server = net.createServer((socket) => admitOwner(socket, logger, allowRemote, () => hostSocketClient(host, socket, logger, "tcp")));
  server.on("error", (error) => {
    logger.error(`The DAP server failed: ${error.message}`);
    process.stderr.write(`dapper adapter: cannot serve on ${formatHostPort(address, port)}: ${error.message}\n`);
    host.dispose();
    process.exit(1);
  });
  server.listen({ host: address, port }, () => {
    const bound = server.address();
    const realPort = typeof bound === "object" && bound !== null ? bound.port : port;
    // The one line scripts wait for; always on stderr, even with --log-file.
    process.stderr.write(`Dapper listening on ${formatHostPort(address, realPort)}\n`);
    if (allowRemote) {
      process.stderr.write(
        `dapper adapter: WARNING: --allow-remote: anyone who can reach ${formatHostPort(address, realPort)} from another host ` +
          "can launch programs and run code as this user; only use it on a network you trust.\n",
      );
    }
    if (!CAN_TELL_PEER_UID) {
      process.stderr.write(
        `dapper adapter: WARNING: on ${process.platform} the adapter cannot tell which user a connection comes from, ` +
          "so any local user who can reach the port can run code as this user.\n",
      );
    }
  });
}

/**
 * Serves a connection only if it comes from the adapter's own user (where the OS can
 * tell) or, with --allow-remote, from another host; otherwise logs why and closes it
 * before reading a byte.
 */
function admitOwner(socket: net.Socket, logger: Logger, allowRemote: boolean, serve: () => void): void {
  const peer = `${socket.remoteAddress ?? "?"}:${socket.remotePort ?? "?"}`;
  const ownerUid = process.getuid?.() ?? -1;
  void judgePeer(socket, ownerUid, allowRemote).then((verdict) => {
    if (socket.destroyed) {
      logger.debug(`The connection from ${peer} closed before it was admitted`);
    } else if (verdict.admit) {
      logger.debug(`Admitting ${peer}: ${verdict.why}`);
      serve();
    } else {
      logger.warn(`Refused the connection from ${peer}: ${verdict.why}`);
      socket.destroy();
    }
  });
}

function formatHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Keeps stray console output away from stdout, where it would corrupt the DAP stream, and
 * sends all of it to the log (a --log-file then has everything).
 */
function protectStdout(logger: Logger): void {
  const toLog = (level: LogLevel) => (...values: unknown[]) => logger.log(level, format(...values));
  console.log = toLog("info");
  console.info = toLog("info");
  console.debug = toLog("debug");
  console.warn = toLog("warn");
  console.error = toLog("error");
}

function installProcessHandlers(host: EngineHost, logger: Logger): void {
  // Debuggees lead their own process groups, so they would outlive the adapter; whatever
  // ends it, they end with it.
  process.on("exit", () => host.killAllProcesses());
  // A signal is how clients end an adapter they started: nvim-dap sends SIGINT to one on
  // stdio and SIGTERM to a server (SIGHUP on Windows), and warns about any exit status
  // but 0. A stop that was asked for is no failure, so it exits with 0.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      logger.info(`Received ${signal}; stopping.`);
      host.dispose();
      process.exit(0);
    });
  }
  // An error that escapes every handler is logged loudly. The adapter keeps serving: one
  // broken callback must not end every session of every client.
  process.on("uncaughtException", (error) => logger.error(`Uncaught exception: ${describeError(error)}`));
  process.on("unhandledRejection", (reason) => logger.error(`Unhandled promise rejection: ${describeError(reason)}`));
}

main();
