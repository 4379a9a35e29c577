// Processes of the real-VS-Code test: code-server started in its own process group so that
// it and everything it spawned (extension host, debuggee) can be stopped together, a free
// loopback port, and waits that always end.
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";

/**
 * Polls `probe` until it returns something truthy; throws `what` after `timeoutMs`. A
 * probe that throws is retried (the page may be mid-render), unless its error has
 * `fatal` set, which ends the wait at once.
 */
export async function waitFor(what, probe, timeoutMs, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      if (error?.fatal) throw error;
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError ? ` (last error: ${lastError.message ?? lastError})` : "";
      throw new Error(`timed out after ${(timeoutMs / 1000).toFixed(0)} s waiting for ${what}${cause}`);
    }
    await delay(intervalMs);
  }
}

export function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Rejects with `what` when `promise` has not settled within `timeoutMs`. */
export async function withTimeout(what, promise, timeoutMs) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${(timeoutMs / 1000).toFixed(0)} s: ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A port on 127.0.0.1 that nothing listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Runs a command to completion with a time limit; throws with its output when it fails. */
export function runBounded(command, args, { timeoutMs, env, cwd }) {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: timeoutMs, killSignal: "SIGKILL", env, cwd });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.trim();
  if (result.error) throw new Error(`${command} ${args.join(" ")}: ${result.error.message}\n${output}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${result.status}\n${output}`);
  return output;
}

/**
 * A long-running child in its own process group, with its output kept (the last 200
 * lines) for the error report. `stop()` ends the whole group: SIGTERM, then SIGKILL.
 */
export function startGroup(command, args, { env, name }) {
  const child = spawn(command, args, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const lines = [];
  const keep = (chunk) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (line.trim() === "") continue;
      lines.push(line);
      if (lines.length > 200) lines.shift();
    }
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited = false;
  const exit = new Promise((resolve) => child.once("exit", (code, signal) => {
    exited = true;
    resolve({ code, signal });
  }));
  child.once("error", (error) => lines.push(`${name} could not start: ${error.message}`));

  const signalGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  return {
    name,
    pid: child.pid,
    output: () => lines.join("\n"),
    hasExited: () => exited,
    exit,
    async stop() {
      if (child.pid === undefined) return;
      signalGroup("SIGTERM");
      const ended = await Promise.race([exit.then(() => true), delay(5000).then(() => false)]);
      // Children of the group (the extension host, a debuggee) may outlive the leader.
      signalGroup("SIGKILL");
      if (!ended) await Promise.race([exit, delay(2000)]);
    },
  };
}

/** Ends this process after `ms` no matter what, running `cleanup` first (bounded too). */
export function watchdog(ms, cleanup) {
  const timer = setTimeout(async () => {
    console.error(`\n[vscode-test] FAILED: the whole test took longer than ${ms / 1000} s`);
    await Promise.race([cleanup(), delay(15000)]);
    process.exit(1);
  }, ms);
  timer.unref();
  return () => clearTimeout(timer);
}
