// The two debuggers the benchmark compares, started and launched the same way: an adapter
// process speaking DAP on stdio, one session, `internalConsole` so that the program's
// output comes back as `output` events.
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { killGroup, trackGroup, trackPid } from "./cleanup.mjs";
import { DapClient } from "./dap-client.mjs";
import { root } from "./paths.mjs";

export const DAPPER = "dapper";
export const DEBUGPY = "debugpy";

/**
 * @param {string} kind DAPPER or DEBUGPY
 * @param {{python: string}} env python: the benchmark venv's interpreter (it has debugpy)
 */
export function adapterSpec(kind, { python }) {
  if (kind === DAPPER) {
    return {
      kind,
      label: "Dapper",
      command: process.execPath,
      args: [path.join(root, "dist", "adapter.js")],
      env: { ...process.env, DAPPER_LOG_LEVEL: "warn" },
      adapterID: "dapper",
      launch: (program, args, extra = {}) => ({
        type: "dapper",
        request: "launch",
        name: "bench",
        program,
        args,
        python,
        cwd: path.dirname(program),
        console: "internalConsole",
        justMyCode: true,
        ...extra,
      }),
    };
  }
  if (kind === DEBUGPY) {
    return {
      kind,
      label: "debugpy",
      command: python,
      args: ["-m", "debugpy.adapter"],
      env: { ...process.env },
      adapterID: "python",
      launch: (program, args, extra = {}) => ({
        type: "python",
        request: "launch",
        name: "bench",
        program,
        args,
        python,
        cwd: path.dirname(program),
        console: "internalConsole",
        justMyCode: true,
        ...extra,
      }),
    };
  }
  throw new Error(`unknown debugger ${JSON.stringify(kind)}`);
}

/**
 * A running session: the adapter started, initialized, launched with the given
 * breakpoints, configuration done. Resolves once the launch succeeded.
 *
 * @param breakpoints Array of {path, line, condition?, logMessage?}
 * @param defaultExceptionFilters set the exception filters the adapter marks as defaults
 * @param concurrentBreakpoints send every file's setBreakpoints at once, as VS Code does
 * @param client an already connected DapClient (a server-mode adapter); without it the
 *   adapter process is started here, and the session owns it
 * @param dapperEvents ask for Dapper's own `dapper/*` events (`supportsDapperEvents`),
 *   which VS Code's host does not: for a part that counts the children announced
 * @returns {{client: DapClient, startedAt: number, debuggeePid: number|undefined}}
 */
export async function startSession(spec, { program, args = [], breakpoints = [], timeoutMs = 60000, launchExtra = {}, client, launchArguments, defaultExceptionFilters = false, concurrentBreakpoints = false, dapperEvents = false }) {
  const startedAt = performance.now();
  client ??= DapClient.spawnAdapter(spec.command, spec.args, { env: spec.env, cwd: root, name: spec.label });
  const session = { client, startedAt, debuggeePid: undefined };
  // The launch or attach, and whether it was answered (see the set-up's end below).
  let launched;
  let answered = false;
  client.nextEvent("process", timeoutMs).then(
    (event) => {
      session.debuggeePid = event.body?.systemProcessId;
      trackPid(session.debuggeePid);
    },
    () => undefined,
  );
  try {
    const initializeResponse = await client.request(
      "initialize",
      {
        clientID: "dapper-bench",
        adapterID: spec.adapterID,
        linesStartAt1: true,
        columnsStartAt1: true,
        pathFormat: "path",
        supportsVariableType: true,
        supportsVariablePaging: true,
        supportsRunInTerminalRequest: false,
        supportsStartDebuggingRequest: true,
        ...(dapperEvents ? { supportsDapperEvents: true } : {}),
      },
      timeoutMs,
    );
    const initialized = client.nextEvent("initialized", timeoutMs);
    // A child session is started with the request and configuration its parent's
    // `startDebugging` named; everything else is a launch of `program`.
    const [command, config] = launchArguments ?? ["launch", spec.launch(program, args, launchExtra)];
    launched = client.request(command, config, timeoutMs);
    // A launch that fails before `initialized` must surface as the launch's error.
    launched.catch(() => undefined);
    // A child that ran on its parent's configuration may end before its session came
    // (Dapper answers its attach without `initialized`, then reports its exit), or
    // before its session's configurationDone: as VS Code does, the session is then over.
    launched.then(() => (answered = true), () => undefined);
    if ((await Promise.race([initialized.then(() => "initialized"), launched.then(() => "answered")])) === "answered") {
      session.endedEarly = true;
      return session;
    }
    const initializedEvent = await initialized;
    // When each step of the set-up was reached, for the breakdown of the time to the first stop.
    session.phases = { initializeAnswered: initializeResponse.receivedAt - startedAt, initialized: initializedEvent.receivedAt - startedAt };
    const setFile = async ([file, group]) => {
      const response = await client.request(
        "setBreakpoints",
        {
          source: { path: file },
          breakpoints: group.map(({ line, condition, logMessage }) => ({ line, condition, logMessage })),
        },
        timeoutMs,
      );
      const refused = response.body.breakpoints.filter((bp) => !bp.verified);
      // Breakpoints in files not imported yet are verified later: debugpy answers them
      // without a message, Dapper with DAP's reason "pending". Anything else is a refusal.
      const explained = refused.filter((bp) => bp.message && bp.reason !== "pending");
      if (explained.length > 0) throw new Error(`${spec.label} refused a breakpoint in ${file}: ${explained[0].message}`);
    };
    // VS Code sends every file's breakpoints at once and waits for all the answers
    // (concurrentBreakpoints); one file after the other otherwise.
    if (concurrentBreakpoints) await Promise.all([...groupByFile(breakpoints)].map(setFile));
    else for (const entry of groupByFile(breakpoints)) await setFile(entry);
    if (defaultExceptionFilters) {
      // What VS Code sends before configurationDone: the filters the adapter marks default.
      const filters = (initializeResponse.body?.exceptionBreakpointFilters ?? []).filter((f) => f.default).map((f) => f.filter);
      await client.request("setExceptionBreakpoints", { filters }, timeoutMs);
    }
    const configured = await client.request("configurationDone", {}, timeoutMs);
    session.phases.configurationDone = configured.receivedAt - startedAt;
    await launched;
  } catch (error) {
    // A child that ended before its configurationDone: its attach is answered right
    // after the refusal of the requests it could no longer take.
    if (launchArguments && launched && (answered || (await launched.then(() => true, () => false)))) {
      session.endedEarly = true;
      return session;
    }
    await client.dispose({ debuggeePid: session.debuggeePid });
    const stderr = client.stderr?.trim();
    throw new Error(`${error.message}${stderr ? `\n${spec.label} stderr: ${stderr.slice(-1500)}` : ""}`);
  }
  return session;
}

/**
 * Dapper's adapter as a DAP server (`--port 0`), with the benchmark's memory probe
 * preloaded; resolves once it listens. `stop()` ends it.
 */
export async function startDapperServer({ memoryFile, logLevel = "warn", countLines = [] } = {}) {
  const probe = path.join(root, "bench", "lib", "memory-probe.cjs");
  const child = spawn(process.execPath, ["--expose-gc", "-r", probe, path.join(root, "dist", "adapter.js"), "--port", "0"], {
    cwd: root,
    env: { ...process.env, DAPPER_LOG_LEVEL: logLevel, DAPPER_BENCH_MEMORY_FILE: memoryFile ?? "" },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  trackGroup(child.pid);
  let stderr = "";
  // Lines of the log matching each of `countLines`, counted as whole lines arrive.
  const counts = countLines.map(() => 0);
  let partial = "";
  child.stderr.on("data", (chunk) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop();
    for (const line of lines) countLines.forEach((pattern, index) => (counts[index] += (line.match(pattern) ?? []).length));
  });
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the Dapper server did not listen within 10 s: ${stderr}`)), 10000);
    child.stderr.on("data", (chunk) => {
      stderr = (stderr + chunk).slice(-4000);
      const match = /Dapper listening on [^\s]*:(\d+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the Dapper server exited (${code}): ${stderr}`));
    });
  });
  return {
    pid: child.pid,
    port,
    counted: () => [...counts],
    stop() {
      killGroup(child.pid);
    },
  };
}

function groupByFile(breakpoints) {
  const byFile = new Map();
  for (const bp of breakpoints) {
    if (!byFile.has(bp.path)) byFile.set(bp.path, []);
    byFile.get(bp.path).push(bp);
  }
  return byFile;
}

/** Ends a session and everything it started. */
export async function endSession(session) {
  await session.client.dispose({ debuggeePid: session.debuggeePid });
}

/**
 * Runs `program` under Dapper's adapter `server` with every child process attached as a
 * session of its own (each started as VS Code starts one: a new connection with the
 * request and configuration the parent's `startDebugging` named, no breakpoint), to the
 * end of the parent and every child; the parent's stdout. Throws if more than `children`
 * children had sessions; with `dapperEvents` (the parent's client asks for Dapper's own
 * events, as VS Code's does not), unless `children` children were announced and none
 * was refused.
 */
export async function runWithChildrenAttached(spec, server, { program, args, children, launchExtra = {}, timeoutMs, dapperEvents = false }) {
  const parent = await DapClient.connect(server.port, `${spec.label} (parent)`);
  const started = [];
  parent.reverseRequestHandler = (request) => {
    if (request.command !== "startDebugging") throw new Error(`unexpected reverse request ${request.command}`);
    const { request: command, configuration } = request.arguments;
    started.push(
      (async () => {
        const client = await DapClient.connect(server.port, `${spec.label} (child)`);
        await startSession(spec, { client, timeoutMs, launchArguments: [command, configuration] });
        await client.nextEvent("terminated", timeoutMs);
        // Not endSession: its clean-up kills the debuggee's pid, and a child that has
        // said it exits may still be finishing (its parent would see it killed).
        await client.dispose();
      })(),
    );
    return {};
  };
  const session = await startSession(spec, { program, args, client: parent, timeoutMs, dapperEvents, launchExtra: { subprocessAutoAttach: true, ...launchExtra } });
  try {
    await parent.nextEvent("terminated", timeoutMs);
    await Promise.all(started);
    // Every child was started under Dapper's launcher, and none was given up on. A child
    // that ran on its parent's configuration and ended within a moment, with nothing to
    // show, has no session of its own (docs/architecture.md, *Child processes*):
    // `countChildSessions` counts the rest.
    const announced = parent.events.filter((event) => event.event === "dapper/childProcess").length;
    const refused = parent.events.filter((event) => event.event === "dapper/childProcessCandidate");
    if ((dapperEvents && (announced !== children || refused.length > 0)) || started.length > children) {
      throw new Error(`${announced} of the ${children} children were announced, ${started.length} had sessions, ${refused.length} were not debugged: ${JSON.stringify(refused.map((event) => event.body?.reason))}`);
    }
    return parent.outputOf("stdout");
  } finally {
    await endSession(session);
  }
}

/**
 * Runs `program` as runWithChildrenAttached does, through a server of its own that logs
 * what becomes of each child, and returns how many children were debugged: those that had
 * a session and those that ended with nothing to show before they needed one (both, and
 * only those, connected and said a valid hello). `warmUp`, when given, is a run made
 * first and not counted, as the runs measured through a server come after a first one
 * (which also shows the engine how the client gives children their breakpoints).
 */
export async function countDebuggedChildren(spec, options, warmUp) {
  const quiet = /Child \S+ ended \((?:exit code -?\d+|no exit code)\) within \d+ ms with nothing for a session to show/g;
  const attached = /Child session \S+ attached/g;
  const server = await startDapperServer({ logLevel: "info", countLines: [quiet, attached] });
  // The server logs a run's last child's end while its parent's session ends.
  const settled = async () => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    return server.counted();
  };
  try {
    let before = [0, 0];
    if (warmUp !== undefined) {
      await runWithChildrenAttached(spec, server, warmUp);
      before = await settled();
    }
    // Every child announced, none refused, as well as counted by the log.
    await runWithChildrenAttached(spec, server, { ...options, dapperEvents: true });
    const [quietCount, attachedCount] = await settled();
    return { quiet: quietCount - before[0], withSession: attachedCount - before[1] };
  } finally {
    server.stop();
  }
}

/** A free TCP port on loopback, for an adapter that cannot be told to pick one itself. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen({ host: "127.0.0.1", port: 0 }, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * debugpy's adapter in its debugServer mode (`--port`). It says nothing when it listens,
 * and a probe connection would count as its client, so `connect` retries until it is up.
 */
export async function startDebugpyServer({ python }) {
  const port = await freePort();
  const child = spawn(python, ["-m", "debugpy.adapter", "--host", "127.0.0.1", "--port", String(port)], { cwd: root, stdio: ["ignore", "ignore", "pipe"], detached: true });
  trackGroup(child.pid);
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  let exited = false;
  child.once("exit", () => (exited = true));
  return { pid: child.pid, port, stop: () => killGroup(child.pid), alive: () => !exited, stderr: () => stderr };
}

/** Connects a client to an adapter server, retrying while it is starting (up to 10 s). */
export async function connectWithRetry(server, name) {
  const deadline = Date.now() + 10000;
  for (;;) {
    try {
      return await DapClient.connect(server.port, name);
    } catch (error) {
      if (server.alive && !server.alive()) throw new Error(`${name} exited: ${server.stderr().trim()}`);
      if (Date.now() > deadline) throw new Error(`${name} did not accept a connection on port ${server.port} within 10 s: ${error.message}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** The adapter of `kind` as a server that serves one session after another. */
export function startServer(kind, { python }) {
  return kind === DAPPER ? startDapperServer() : startDebugpyServer({ python });
}
