// Attach by process id: a program started without a debugger (programs/running.py, which
// goes round a loop) is attached to by its pid with a breakpoint in that loop; the figure
// is the `attach` request's start to the first `stopped`. Through an adapter server that is
// already running, as VS Code hosts Dapper's engine, so that the adapter's own start is not
// counted. Python 3.14+ is attached through sys.remote_exec, older ones through gdb: Debian
// sid's when the machine has its root (this machine's own gdb 13.1 kills the target on its
// CPU), through DAPPER_INJECT_DEBUGGER as the tests do.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sidBinDir } from "../../scripts/lib.mjs";
import { adapterSpec, DAPPER, endSession, startDapperServer, startSession } from "./adapters.mjs";
import { trackPid } from "./cleanup.mjs";
import { DapClient } from "./dap-client.mjs";
import { programsDir } from "./paths.mjs";
import { markerLine } from "./programs.mjs";
import { median, minimum } from "./stats.mjs";

const TIMEOUT_MS = 40_000;
const program = path.join(programsDir, "running.py");

export class AttachUnavailable extends Error {}

/** A gdb wrapper that runs Debian sid's gdb, when scripts/sid.mjs made this checkout's sid-run. */
function sidGdb() {
  const sidRun = path.join(sidBinDir(), "sid-run");
  if (!existsSync(sidRun)) return undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), "dapper-bench-gdb-"));
  const wrapper = path.join(dir, "gdb");
  writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(sidRun)} gdb "$@"\n`);
  chmodSync(wrapper, 0o755);
  return wrapper;
}

/** Starts programs/running.py and resolves with it once it runs. */
function startProgram(python) {
  const child = spawn(python, [program], { stdio: ["ignore", "pipe", "pipe"] });
  trackPid(child.pid);
  return new Promise((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(() => reject(new Error("programs/running.py did not start within 10 s")), 10000);
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes("running")) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once("exit", (code) => reject(new Error(`programs/running.py exited (${code}) before it ran`)));
  });
}

async function oneAttach(spec, server, python) {
  const target = await startProgram(python);
  const client = await DapClient.connect(server.port, `${spec.label} (attach)`);
  let session;
  try {
    session = await startSession(spec, {
      client,
      timeoutMs: TIMEOUT_MS,
      launchArguments: ["attach", { type: "dapper", request: "attach", name: "bench", processId: target.pid }],
      breakpoints: [{ path: program, line: markerLine(program, "stop") }],
    });
    const stopped = await client.nextEvent("stopped", TIMEOUT_MS);
    return stopped.receivedAt - session.startedAt;
  } finally {
    if (session) await endSession(session);
    else await client.dispose({});
    target.kill("SIGKILL");
  }
}

/**
 * Median over `reps` attaches to fresh programs of `python` (a plain interpreter: the
 * program is started without a debugger). Dapper only: debugpy's attach by pid injects with
 * the gdb on PATH, which kills the target on this machine.
 */
export async function measureAttachPidLatency({ kind, python, reps }) {
  if (kind !== DAPPER) throw new AttachUnavailable("not measured: debugpy injects with the gdb on PATH, which kills the target on this machine (Debian 12's gdb 13.1)");
  const gdb = process.env.DAPPER_INJECT_DEBUGGER ?? sidGdb();
  if (gdb !== undefined) process.env.DAPPER_INJECT_DEBUGGER = gdb;
  const spec = adapterSpec(kind, { python });
  const server = await startDapperServer();
  try {
    // One unmeasured attach warms the server (its WebAssembly compiles in the background).
    await oneAttach(spec, server, python);
    const samples = [];
    for (let i = 0; i < reps; i++) samples.push(await oneAttach(spec, server, python));
    return { samples, median: median(samples), min: minimum(samples), note: gdb ? `gdb: ${gdb}` : undefined };
  } finally {
    server.stop();
  }
}
