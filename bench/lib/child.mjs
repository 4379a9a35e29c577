// A child process's spawn to its session stopping at a breakpoint. The parent program
// prints the wall-clock time just before it starts `python child.py`; the debugger asks
// the client for a child session, the benchmark starts it as VS Code would, sets the
// breakpoint, and times the child's `stopped` event against that spawn time.
//
// Both ask with the DAP `startDebugging` reverse request (debugpy also knows its own
// `debugpyAttach` event, for clients without startDebugging; both are accepted):
// - Dapper runs as a DAP server, so that the child session connects to the same engine,
//   as VS Code's would, with the request and configuration named.
// - debugpy's configuration is an attach with `connect: {host, port}`: the child session
//   is a new DAP connection to that port (what the Python extension does in VS Code).
import path from "node:path";
import { performance } from "node:perf_hooks";
import { adapterSpec, DAPPER, endSession, startDapperServer, startSession } from "./adapters.mjs";
import { DapClient } from "./dap-client.mjs";
import { programsDir } from "./paths.mjs";
import { markerLine } from "./programs.mjs";
import { median, minimum } from "./stats.mjs";

const TIMEOUT_MS = 30_000;
/** How long the parent session waits for the child's announcement before the feature counts as absent. */
const CHILD_REQUEST_WAIT_MS = 15_000;

export class FeatureMissing extends Error {}

const parentProgram = path.join(programsDir, "child_parent.py");
const childProgram = path.join(programsDir, "child.py");

/**
 * Resolves with how the child session is to be started: [command, arguments, port]. A
 * configuration with `connect.port` (debugpy's) names where the child's adapter listens;
 * otherwise the child session goes to the parent's server (Dapper's engine).
 */
function childAnnouncement(parent, serverPort) {
  const target = (configuration) => configuration?.connect?.port ?? serverPort;
  const asked = new Promise((resolve, reject) => {
    parent.reverseRequestHandler = (request) => {
      if (request.command !== "startDebugging") throw new Error(`unexpected reverse request ${request.command}`);
      const { request: command, configuration } = request.arguments;
      const port = target(configuration);
      if (!port) reject(new Error(`startDebugging names no port to connect the child session to: ${JSON.stringify(configuration)}`));
      resolve([command, configuration, port]);
      return {};
    };
  });
  const event = parent.nextEvent("debugpyAttach", CHILD_REQUEST_WAIT_MS + 1000).then((e) => {
    if (!target(e.body)) throw new Error(`debugpyAttach without connect.port: ${JSON.stringify(e.body)}`);
    return ["attach", e.body, target(e.body)];
  });
  event.catch(() => undefined);
  return Promise.race([asked, event]);
}

async function oneChild(spec, server, python) {
  const parent = server ? await DapClient.connect(server.port, `${spec.label} (parent)`) : undefined;
  const sessions = [];
  try {
    const parentSession = await startSession(spec, {
      program: parentProgram,
      client: parent,
      timeoutMs: TIMEOUT_MS,
      launchExtra: spec.kind === DAPPER ? { subprocessAutoAttach: true } : { subProcess: true, python },
    });
    sessions.push(parentSession);
    const announced = childAnnouncement(parentSession.client, server?.port);
    announced.catch(() => undefined);
    const ended = parentSession.client.nextEvent("terminated", CHILD_REQUEST_WAIT_MS).then(() => "ended");
    ended.catch(() => undefined);
    const timeout = new Promise((resolve) => setTimeout(() => resolve("timeout"), CHILD_REQUEST_WAIT_MS));
    const outcome = await Promise.race([announced.then(() => "asked"), ended, timeout]);
    if (outcome !== "asked") {
      throw new FeatureMissing(
        outcome === "ended"
          ? "the parent ran to its end without asking for a session for its child"
          : `no child session was asked for within ${CHILD_REQUEST_WAIT_MS / 1000} s of the child's spawn`,
      );
    }
    const [command, configuration, port] = await announced;
    const child = await DapClient.connect(port, `${spec.label} (child)`);
    const childSession = await startSession(spec, {
      client: child,
      timeoutMs: TIMEOUT_MS,
      launchArguments: [command, configuration],
      breakpoints: [{ path: childProgram, line: markerLine(childProgram, "stop") }],
    });
    sessions.push(childSession);
    const stopped = await child.nextEvent("stopped", TIMEOUT_MS);
    const spawnAt = /BENCH_SPAWN_AT=([0-9.]+)/.exec(parentSession.client.outputOf("stdout"));
    if (!spawnAt) throw new Error("the parent did not print BENCH_SPAWN_AT");
    return performance.timeOrigin + stopped.receivedAt - Number(spawnAt[1]) * 1000;
  } finally {
    for (const session of sessions.reverse()) await endSession(session);
    if (sessions.length === 0 && parent) await parent.dispose();
  }
}

/** Median over `reps` children; FeatureMissing when the debugger does not debug children. */
export async function measureChildLatency({ kind, python, reps }) {
  const spec = adapterSpec(kind, { python });
  // Dapper's child session must reach the parent's engine: one server for all of them.
  // debugpy's adapter starts per parent over stdio and listens for the child itself.
  const server = kind === DAPPER ? await startDapperServer() : undefined;
  try {
    const samples = [];
    for (let i = 0; i < reps; i++) samples.push(await oneChild(spec, server, python));
    return { samples, median: median(samples), min: minimum(samples) };
  } finally {
    server?.stop();
  }
}
