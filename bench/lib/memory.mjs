// The extension host's memory per session: one Dapper adapter serving DAP over TCP (the
// engine shared by every session, as in VS Code) runs a trivial program to its end N
// times; its heap (after a garbage collection) and RSS after the first session and after
// the last give the growth per session.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { adapterSpec, DAPPER, endSession, startDapperServer, startSession } from "./adapters.mjs";
import { DapClient } from "./dap-client.mjs";
import { programsDir } from "./paths.mjs";

const TIMEOUT_MS = 30_000;

/** VmRSS of a process in KiB, from /proc (Linux). */
export function rssKbOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]);
}

async function heapOf(pid, file) {
  rmSync(file, { force: true });
  process.kill(pid, "SIGUSR2");
  const deadline = Date.now() + 5000;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error("the adapter's memory probe did not answer within 5 s");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return JSON.parse(readFileSync(file, "utf8"));
}

export async function measureAdapterGrowth({ python, sessions }) {
  if (sessions < 2) throw new Error("the growth per session needs at least 2 sessions");
  const dir = mkdtempSync(path.join(os.tmpdir(), "dapper-bench-"));
  const memoryFile = path.join(dir, "memory.json");
  const server = await startDapperServer({ memoryFile });
  const spec = adapterSpec(DAPPER, { python });
  const program = path.join(programsDir, "trivial.py");
  try {
    const runOne = async () => {
      const client = await DapClient.connect(server.port, "Dapper (server)");
      const session = await startSession(spec, { program, client, timeoutMs: TIMEOUT_MS });
      await client.nextEvent("terminated", TIMEOUT_MS);
      await endSession(session);
    };
    const sample = async () => {
      // The engine releases a session when its client closes; give the host a moment.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const heap = await heapOf(server.pid, memoryFile);
      return { rssKb: rssKbOf(server.pid), heapUsedKb: heap.heapUsed / 1024, externalKb: heap.external / 1024 };
    };
    await runOne();
    const first = await sample();
    for (let i = 1; i < sessions; i++) await runOne();
    const last = await sample();
    const per = (key) => (last[key] - first[key]) / (sessions - 1);
    return { sessions, first, last, perSession: { rssKb: per("rssKb"), heapUsedKb: per("heapUsedKb"), externalKb: per("externalKb") } };
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
