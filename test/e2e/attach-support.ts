// Programs started the way users start them for attach, `python -m dapperdbg --listen`,
// and the attach half of a session (the launch half is RecordingClient.launchWith).
import type { DebugProtocol } from "@vscode/debugprotocol";
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { pickMethod } from "../../extension/src/host/executors/injectTarget";
import { fixtures, root, type InitializeArguments, type Python, type RecordingClient } from "./support";

/** A program listening for a debugger, with what it printed. */
export interface ListeningProgram {
  process: ChildProcess;
  host: string;
  port: number;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit status (or 128 + signal number) once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const LISTENING = /dapper: listening for a debugger on (\S+):(\d+)/;

/** Starts `python -m dapperdbg --listen 0 [options] args…` and reads the port it printed. */
export async function startListening(python: Python, options: string[], args: string[]): Promise<ListeningProgram> {
  const program = startDapper(python, ["--listen", "0", ...options, ...args]);
  let stderr = "";
  const found = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the program did not say where it listens within 10 s; stderr: ${program.stderr()}`)), 10000);
    const look = (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = LISTENING.exec(stderr);
      if (match) {
        clearTimeout(timer);
        program.process.stderr?.off("data", look);
        resolve(match);
      }
    };
    program.process.stderr?.on("data", look);
    void program.exited.then(() => reject(new Error(`the program exited before it listened; stderr: ${program.stderr()}`)));
  });
  return { ...program, host: found[1], port: Number(found[2]) };
}

/** Starts `python args…` (with the package importable) from the fixtures, keeping its output. */
export function startPython(python: Python, args: string[]): Omit<ListeningProgram, "host" | "port"> {
  const env = { ...process.env, PYTHONPATH: path.join(root, "extension", "python"), PYTHONUNBUFFERED: "1" };
  const child = spawn(python.executable, args, { cwd: fixtures, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
  return { process: child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Starts `python -m dapperdbg args…` (`--listen …` or `--connect …`). */
export function startDapper(python: Python, args: string[]): Omit<ListeningProgram, "host" | "port"> {
  return startPython(python, ["-m", "dapperdbg", ...args]);
}

/**
 * initialize, attach, the configuration sequence with breakpoints (file → lines, every
 * one verified), configurationDone; resolves with the attach response.
 */
export async function attachWith(
  client: RecordingClient,
  attach: Record<string, unknown>,
  breakpoints: Record<string, number[]> = {},
  initialize: Partial<InitializeArguments> = {},
): Promise<DebugProtocol.AttachResponse> {
  await client.initializeRequest({ linesStartAt1: true, columnsStartAt1: true, pathFormat: "path", ...initialize, adapterID: "dapper" });
  const initialized = client.next("initialized");
  const attached = client.attachRequest(attach as DebugProtocol.AttachRequestArguments);
  attached.catch(() => undefined);
  await Promise.race([initialized, attached]);
  await initialized;
  for (const [file, lines] of Object.entries(breakpoints)) {
    const response = await client.setBreakpointsRequest({ source: { path: path.join(fixtures, file) }, breakpoints: lines.map((line) => ({ line })) });
    for (const bp of response.body.breakpoints) {
      if (!bp.verified) throw new Error(`breakpoint in ${file} not verified: ${JSON.stringify(bp)}`);
    }
  }
  await client.configurationDoneRequest();
  return attached;
}

/** A loopback port nothing listens on. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Kills the program if a test left it running. */
export function ensureGone(program: Pick<ListeningProgram, "process"> | undefined): void {
  if (program !== undefined && program.process.exitCode === null && program.process.signalCode === null) program.process.kill("SIGKILL");
}

/** A program started without a debugger (to attach to by its process id), with what it printed. */
export interface RunningProgram {
  process: ChildProcess;
  pid: number;
  stdout: () => string;
  stderr: () => string;
}

/** Starts `python file args…` (file in test/fixtures) and waits until it printed `ready`. */
export async function startRunning(python: Python, file: string, ready: RegExp, env: NodeJS.ProcessEnv = {}): Promise<RunningProgram> {
  const child = spawn(python.executable, [path.join(fixtures, file)], { cwd: fixtures, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not start within 10 s; stderr: ${stderr}`)), 10000);
    const look = () => {
      if (ready.test(stdout)) {
        clearTimeout(timer);
        child.stdout.off("data", look);
        resolve();
      }
    };
    child.stdout.on("data", look);
    child.once("exit", () => reject(new Error(`${file} exited before it was ready; stderr: ${stderr}`)));
  });
  return { process: child, pid: child.pid ?? 0, stdout: () => stdout, stderr: () => stderr };
}

/**
 * Debian 12's gdb 13.1 kills the target on this machine's CPU (AMX state), so the tests
 * inject with Debian sid's gdb through a wrapper (DAPPER_INJECT_DEBUGGER, which the
 * product documents); without a sid root they use whatever gdb is on PATH.
 */
function sidGdb(pythons: readonly Python[]): string | undefined {
  const sidBin = path.join(root, ".cache", "sid", "bin");
  const candidates = [
    ...pythons.map((python) => path.join(path.dirname(python.executable), "sid-run")),
    ...(existsSync(sidBin) ? readdirSync(sidBin).map((name) => path.join(sidBin, name, "sid-run")) : []),
  ];
  for (const sidRun of candidates) {
    if (existsSync(sidRun)) {
      const dir = mkdtempSync(path.join(os.tmpdir(), "dapper-e2e-gdb-"));
      const wrapper = path.join(dir, "gdb");
      writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(sidRun)} gdb "$@"\n`);
      chmodSync(wrapper, 0o755);
      return wrapper;
    }
  }
  return undefined;
}

/** Sets DAPPER_INJECT_DEBUGGER to sid's gdb (above) for the attaches of this process, unless it is set. */
export function useSidGdb(pythons: readonly Python[]): void {
  const gdb = process.env.DAPPER_INJECT_DEBUGGER ?? sidGdb(pythons);
  if (gdb !== undefined) process.env.DAPPER_INJECT_DEBUGGER = gdb;
}

/**
 * Why this machine cannot attach to `python` by process id, or false: the product's own
 * choice (pickMethod) for a Python of that version on this platform, and on macOS root.
 */
export function cannotAttach(python: Python): string | false {
  const minor = Number(python.version.split(".")[1]);
  try {
    pickMethod({ pid: 1, version: { major: 3, minor, freeThreaded: false } }, undefined, (name) => `/usr/bin/${name}`);
  } catch (error) {
    return `${process.platform}: ${(error as Error).message}`;
  }
  if (process.platform === "darwin" && process.getuid?.() !== 0) {
    return "macOS lets only root read another process's memory (sys.remote_exec and lldb alike); npm test run with sudo includes these";
  }
  return false;
}
