#!/usr/bin/env node
// `node bench/load.mjs`: the load test. One Dapper adapter server (one
// engine, as VS Code hosts one) serves at once: N ordinary sessions (50 by default; each
// stops at a breakpoint, reads the stack, continues and runs to its end), a client that
// stops reading while its program prints 1 GB, a client that sends a 1 GB body, and
// eight clients that each send all but the last byte of a 60 MB body. It prints the
// adapter's peak RSS, what each hostile client was told, and whether every ordinary
// session completed. Figures are printed, not asserted; the README states the cap they
// are measured against.
//
// The adapter is watched for `--seconds` (15 by default) at least, so that the client that
// does not read has the time to show whether the adapter's memory stays bounded.
//
//   node bench/load.mjs [--python 3.12] [--sessions 50] [--seconds 15]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { step } from "../scripts/lib.mjs";
import { adapterSpec, DAPPER, endSession, startDapperServer, startSession } from "./lib/adapters.mjs";
import { killAll } from "./lib/cleanup.mjs";
import { DapClient } from "./lib/dap-client.mjs";
import { choosePythons, ensureBuilt } from "./lib/environment.mjs";
import { rssKbOf } from "./lib/memory.mjs";
import { markerLine } from "./lib/programs.mjs";
import { programsDir } from "./lib/paths.mjs";

const TIMEOUT_MS = 180_000;
const MIB = 1 << 20;
const log = (text) => console.log(`   ${text}`);

function parse(argv) {
  const options = { python: undefined, sessions: 50, seconds: 15 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--python") options.python = argv[++i];
    else if (argv[i] === "--sessions") options.sessions = Number(argv[++i]);
    else if (argv[i] === "--seconds") options.seconds = Number(argv[++i]);
    else throw new Error(`unknown option ${argv[i]}; usage: node bench/load.mjs [--python 3.12] [--sessions 50] [--seconds 15]`);
  }
  for (const name of ["sessions", "seconds"]) {
    if (!Number.isInteger(options[name]) || options[name] < 1) throw new Error(`--${name} needs a positive whole number`);
  }
  return options;
}

/** An ordinary session: a breakpoint, the stack, continue, the end. Resolves to its time in ms. */
async function ordinarySession(port, spec, program) {
  const started = performance.now();
  const client = await DapClient.connect(port, "ordinary");
  const session = await startSession(spec, { program, client, timeoutMs: TIMEOUT_MS, breakpoints: [{ path: program, line: markerLine(program, "stop") }] });
  try {
    const stopped = await client.nextEvent("stopped", TIMEOUT_MS);
    const stack = await client.request("stackTrace", { threadId: stopped.body.threadId }, TIMEOUT_MS);
    if (stack.body.stackFrames[0]?.line !== markerLine(program, "stop")) throw new Error("stopped on the wrong line");
    await client.request("continue", { threadId: stopped.body.threadId }, TIMEOUT_MS);
    await client.nextEvent("terminated", TIMEOUT_MS);
    if (client.outputOf("stdout").trim() !== "2") throw new Error(`printed ${JSON.stringify(client.outputOf("stdout"))}`);
    return performance.now() - started;
  } finally {
    await endSession(session);
  }
}

/** A client that stops reading once its program prints; its program prints ~1 GB. */
async function floodingClient(port, spec, dir) {
  const program = path.join(dir, "flood.py");
  writeFileSync(program, 'import sys\nline = "x" * 1000 + "\\n"\nfor i in range(1_000_000):\n    sys.stdout.write(line)\n');
  const client = await DapClient.connect(port, "flooding");
  const session = await startSession(spec, { program, client, timeoutMs: TIMEOUT_MS });
  await client.nextEvent("output", TIMEOUT_MS, (event) => event.body?.category === "stdout");
  client.socket.pause();
  return session;
}

/**
 * A raw client that sends `header` and then up to `bodyBytes` in 1 MiB chunks, as fast
 * as the socket takes them; resolves with what it was told and how much it sent once
 * the adapter closes it (or it sent everything and `keepOpen`).
 */
function rawSender(port, header, bodyBytes, { keepOpen = false } = {}) {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    let sent = 0;
    let closed = false;
    const chunk = Buffer.alloc(MIB, "x");
    const result = () => ({
      told: () => /"output":"([^"]*)/.exec(received)?.[1] ?? "",
      sent: () => sent,
      closed: () => closed,
      socket,
    });
    socket.on("data", (data) => (received += data.toString("utf8")));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      closed = true;
      resolve(result());
    });
    const pump = () => {
      while (!closed && sent < bodyBytes) {
        const piece = chunk.subarray(0, Math.min(MIB, bodyBytes - sent));
        sent += piece.length;
        if (!socket.write(piece)) return socket.once("drain", pump);
      }
      if (keepOpen && !closed) resolve(result());
    };
    socket.on("connect", () => {
      socket.write(header);
      pump();
    });
  });
}

async function main() {
  const options = parse(process.argv.slice(2));
  ensureBuilt();
  const [python] = choosePythons(options.python ? [options.python] : undefined).slice(-1);
  step(`Load test: ${options.sessions} sessions at once, a client that does not read, a 1 GB body, 8 partial 60 MB bodies (Python ${python.version})`);
  const spec = adapterSpec(DAPPER, { python: python.executable });
  const dir = mkdtempSync(path.join(os.tmpdir(), "dapper-load-"));
  const server = await startDapperServer();
  let peakKb = 0;
  const sample = () => {
    try {
      peakKb = Math.max(peakKb, rssKbOf(server.pid));
    } catch {
      // The adapter is gone; the sessions will say so.
    }
  };
  sample();
  const idleKb = peakKb;
  const sampler = setInterval(sample, 50);
  const started = performance.now();
  try {
    const flood = await floodingClient(server.port, spec, dir);
    const huge = rawSender(server.port, "Content-Length: 1000000000\r\n\r\n", 1_000_000_000);
    const partials = Array.from({ length: 8 }, () => rawSender(server.port, "Content-Length: 60000000\r\n\r\n", 60_000_000 - 1, { keepOpen: true }));
    const program = path.join(programsDir, "trivial.py");
    const sessions = await Promise.allSettled(Array.from({ length: options.sessions }, () => ordinarySession(server.port, spec, program)));
    const hugeResult = await huge;
    const partialResults = await Promise.all(partials);
    const elapsed = performance.now() - started;
    // The last partial bodies may still be on their way through the sockets, and the
    // client that does not read is given the time to show what it costs.
    await new Promise((resolve) => setTimeout(resolve, Math.max(2000, options.seconds * 1000 - elapsed)));
    sample();

    const completed = sessions.filter((s) => s.status === "fulfilled").map((s) => s.value).sort((a, b) => a - b);
    const failed = sessions.filter((s) => s.status === "rejected");
    log(`adapter RSS: ${(idleKb / 1024).toFixed(0)} MiB idle, ${(peakKb / 1024).toFixed(0)} MiB at its peak over ${((performance.now() - started) / 1000).toFixed(0)} s (the README's cap: 1.5 GiB)`);
    log(`ordinary sessions completed: ${completed.length} of ${options.sessions}${failed.length ? `; failed: ${failed.map((f) => f.reason.message).slice(0, 3).join(" | ")}` : ""}`);
    if (completed.length > 0) {
      log(`  each took ${(completed[0] / 1000).toFixed(1)}-${(completed[completed.length - 1] / 1000).toFixed(1)} s (median ${(completed[completed.length >> 1] / 1000).toFixed(1)} s); all done in ${(elapsed / 1000).toFixed(1)} s`);
    }
    log(`the 1 GB body: ${hugeResult.closed() ? "closed" : "still open"} after ${(hugeResult.sent() / MIB).toFixed(0)} MiB sent; told "${hugeResult.told()}"`);
    const refused = partialResults.filter((r) => r.closed());
    log(`partial 60 MB bodies: ${refused.length} of 8 refused${refused.length ? `; told "${refused[0].told()}"` : ""}`);
    log(`the client that does not read: ${flood.client.closed ? "closed" : "still connected"}`);
    for (const r of partialResults) r.socket.destroy();
    flood.client.socket.destroy();
  } finally {
    clearInterval(sampler);
    server.stop();
    killAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`bench/load.mjs: ${error.stack ?? error.message}`);
  killAll();
  process.exit(1);
});
