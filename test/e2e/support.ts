// The end-to-end harness: a real DAP client (DebugClient from
// @vscode/debugadapter-testsupport) drives the standalone adapter, dist/adapter.js, against
// real Python programs in test/fixtures. One helper runs a scenario; the tests are tables.
import { DebugClient } from "@vscode/debugadapter-testsupport";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import type { Socket } from "node:net";
import type { Writable } from "node:stream";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

export const root = path.resolve(__dirname, "..", "..", "..");
export const fixtures = path.join(root, "test", "fixtures");
export const adapterScript = path.join(root, "dist", "adapter.js");

export interface Python {
  version: string;
  executable: string;
}

/**
 * The interpreters to test on: DAPPER_E2E_PYTHONS (JSON, set by scripts/test.mjs) or the
 * same discovery the scripts use, so there is one rule for which Pythons count.
 */
export function pythons(): Python[] {
  const fromEnv = process.env.DAPPER_E2E_PYTHONS;
  if (fromEnv) return JSON.parse(fromEnv) as Python[];
  const script = `import(${JSON.stringify(path.join(root, "scripts", "lib.mjs"))}).then((lib) => console.log(JSON.stringify(lib.findPythons({ minimum: "3.9" }))))`;
  return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })) as Python[];
}

/** The 1-based line of the `# BP:<name>` marker in a fixture file. */
export function marker(file: string, name: string): number {
  const lines = readFileSync(path.join(fixtures, file), "utf8").split("\n");
  const index = lines.findIndex((line) => line.includes(`# BP:${name}`));
  if (index < 0) throw new Error(`no marker BP:${name} in ${file}`);
  return index + 1;
}

/**
 * The fixtures whose libraries are pure Python: one venv per Python holds them all
 * (test/fixtures/requirements.txt), made once for every test that runs them rather than
 * once a fixture. uvicorn's, whose compiled libraries a new Python may have no wheels
 * for yet, has a venv of its own, so that a missing wheel skips only its tests.
 */
const SHARED_FIXTURES = new Set(["flask", "django", "gunicorn", "xdist"]);

/** The venv a fixture's program runs in (see venvWith). */
export function fixtureVenv(python: Python, fixture: string): { executable?: string; reason?: string } {
  if (SHARED_FIXTURES.has(fixture)) return venvWith(python, "fixtures", path.join(fixtures, "requirements.txt"));
  return venvWith(python, fixture, path.join(fixtures, fixture, "requirements.txt"));
}

/**
 * A venv of `python` under .cache/e2e-NAME/VERSION with the packages of `requirements`
 * (a requirements file of test/fixtures) from PyPI, made once and remade when the file
 * changes; its Python, or why there is none (no network: the test skips, saying so). Test
 * files that run at once share venvs (devservers, templates and debugpy use the same Flask):
 * one makes it while the others wait, since a pip install over a venv in use replaces
 * the files a running server has loaded (and its reloader restarts it).
 */
export function venvWith(python: Python, name: string, requirements: string, installTimeoutMs = 120000): { executable?: string; reason?: string } {
  const venv = path.join(root, ".cache", `e2e-${name}`, python.version);
  const executable = path.join(venv, process.platform === "win32" ? "Scripts/python.exe" : "bin/python");
  const stamp = path.join(venv, ".dapper-installed");
  const wanted = createHash("sha256").update(readFileSync(requirements)).digest("hex");
  const made = () => existsSync(executable) && existsSync(stamp) && readFileSync(stamp, "utf8") === wanted;
  if (made()) return { executable };
  mkdirSync(path.dirname(venv), { recursive: true });
  const release = holdLock(`${venv}.lock`, installTimeoutMs + 60000);
  try {
    if (made()) return { executable };
    if (!existsSync(executable)) execFileSync(python.executable, ["-m", "venv", venv], { stdio: "pipe" });
    execFileSync(executable, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", requirements], { stdio: "pipe", timeout: installTimeoutMs });
    writeFileSync(stamp, wanted);
    return { executable };
  } catch (error) {
    return { reason: `${path.basename(path.dirname(requirements))}'s packages could not be installed: ${String((error as { stderr?: Buffer }).stderr ?? error).slice(0, 300)}` };
  } finally {
    release();
  }
}

/**
 * Takes the lock directory `lock` (made atomically, holding the taker's process id),
 * waiting while another live process of this machine holds it, for at most `waitMs`;
 * a lock whose process is gone is taken over. Returns its release.
 */
function holdLock(lock: string, waitMs: number): () => void {
  const owner = path.join(lock, "pid");
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(owner, String(process.pid));
      return () => rmSync(lock, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    let pid = 0;
    let stale = false;
    try {
      pid = Number(readFileSync(owner, "utf8"));
      stale = !isAlive(pid);
    } catch {
      // Released meanwhile, or just made and its pid not yet written: stale only if it
      // stayed so (its maker died between the two).
      const made = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      stale = made !== undefined && Date.now() - made > 10000;
    }
    if (stale) rmSync(lock, { recursive: true, force: true });
    else if (Date.now() > deadline) throw new Error(`${lock} is still held by process ${pid} after ${waitMs} ms`);
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
}

/**
 * GET `urlPath` on loopback `port` once the server answers: tried again every 200 ms for
 * 30 s while it fails (the server, or a reloader's restart of it, may not listen yet).
 * The request itself may wait 60 s for its response (it may stop at breakpoints).
 */
export async function getWhenServing(port: number, urlPath = "/"): Promise<{ status: number; body: string }> {
  const deadline = Date.now() + 30000;
  for (;;) {
    try {
      return await new Promise((resolve, reject) => {
        const request = http.get({ host: "127.0.0.1", port, path: urlPath, timeout: 60000 }, (response) => {
          let body = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => (body += chunk));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
        });
        request.on("timeout", () => request.destroy(new Error("the request timed out")));
        request.on("error", reject);
      });
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * Breakpoints in a file whose module the program imports only once it runs: the debuggee
 * shows them verified at once (they are armed) and confirms them with a `breakpoint` event
 * when the module loads. `launchWith` takes them as `{ "file.py": later(12, 14) }`.
 */
export interface LaterLines {
  later: number[];
}

export function later(...lines: number[]): LaterLines {
  return { later: lines };
}

/** The message of a breakpoint in a module that is not imported yet. */

/** DAP's initialize arguments and Dapper's own: `supportsDapperEvents` asks for dapper/* events. */
export type InitializeArguments = DebugProtocol.InitializeRequestArguments & { supportsDapperEvents?: boolean };

export interface RecordedEvent {
  event: string;
  body: Record<string, unknown>;
}

/** A DebugClient that remembers every event it saw, in order. */
export class RecordingClient extends DebugClient {
  readonly events: RecordedEvent[] = [];
  private readonly consumed = new Map<string, number>();
  private adapterGone = false;
  private disconnected = false;
  /** What the programs started through `runInTerminal` printed (the "terminal"). */
  terminalOutput = "";
  readonly terminalProcesses: ChildProcess[] = [];
  /** The arguments of each `runInTerminal` request, as the adapter sent them. */
  readonly terminalRequests: DebugProtocol.RunInTerminalRequestArguments[] = [];
  private readonly terminalsClosed: Promise<void>[] = [];

  constructor() {
    super(process.execPath, adapterScript, "dapper", { cwd: root, env: { ...process.env, DAPPER_LOG_LEVEL: "warn" } }, true);
    this.defaultTimeout = 15000;
    this.answerReverseRequests();
    for (const name of ["initialized", "process", "stopped", "continued", "exited", "terminated", "output", "thread", "breakpoint"]) {
      this.on(name, (event: DebugProtocol.Event) => this.events.push({ event: name, body: (event.body ?? {}) as Record<string, unknown> }));
    }
  }

  /**
   * DebugClient ignores requests from the adapter; VS Code answers `runInTerminal` by
   * starting the command in a terminal. This client does what a terminal would: it runs
   * the command with the given cwd and env and keeps what it prints.
   */
  private answerReverseRequests(): void {
    const internals = this as unknown as { dispatch(body: string): void; outputStream: Writable; sequence: number };
    const dispatch = internals.dispatch.bind(this);
    internals.dispatch = (body: string) => {
      const message = JSON.parse(body) as DebugProtocol.ProtocolMessage;
      if (message.type !== "request") return dispatch(body);
      const request = message as DebugProtocol.RunInTerminalRequest;
      const respond = (success: boolean, body?: object, error?: string) => {
        const json = JSON.stringify({ type: "response", seq: internals.sequence++, request_seq: request.seq, command: request.command, success, body, message: error });
        internals.outputStream.write(`Content-Length: ${Buffer.byteLength(json, "utf8")}\r\n\r\n${json}`, "utf8");
      };
      if (request.command !== "runInTerminal") return respond(false, undefined, `unsupported reverse request ${request.command}`);
      this.terminalRequests.push(request.arguments);
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const [key, value] of Object.entries(request.arguments.env ?? {})) {
        if (value === null || value === undefined) delete env[key];
        else env[key] = value;
      }
      const [command, ...args] = request.arguments.args;
      const child = spawn(command, args, { cwd: request.arguments.cwd || undefined, env, stdio: ["ignore", "pipe", "pipe"] });
      this.terminalProcesses.push(child);
      // The session can end (dapper/exiting, then the connection) before this process's
      // last output is read from its pipe; terminalsDone() waits for the pipes to close.
      this.terminalsClosed.push(new Promise((resolve) => child.once("close", () => resolve())));
      child.stdout?.on("data", (chunk: Buffer) => (this.terminalOutput += chunk.toString()));
      child.stderr?.on("data", (chunk: Buffer) => (this.terminalOutput += chunk.toString()));
      child.once("spawn", () => respond(true, { processId: child.pid }));
      child.once("error", (error) => respond(false, undefined, error.message));
    };
  }

  override async start(port?: number): Promise<void> {
    await super.start(port);
    // DebugClient keeps these private; knowing when the adapter is gone lets stop() skip a
    // disconnect request that could never be answered (which would leave the test hanging).
    this.adapterProcess?.once("exit", () => (this.adapterGone = true));
    // A request written to an adapter that was just killed fails with EPIPE on its stdin:
    // that is the adapter being gone, not an error of the test's (an unhandled 'error'
    // would fail it: a killed adapter's program can end before its exit is seen).
    this.adapterProcess?.stdin?.on("error", () => (this.adapterGone = true));
    // The same over TCP: a server that was just killed ends the connection ('end' comes
    // before 'close'), and a request written in between fails with an 'error' on it.
    const socket = (this as unknown as { _socket?: Socket })._socket;
    socket?.once("end", () => (this.adapterGone = true));
    socket?.on("error", () => (this.adapterGone = true));
    socket?.once("close", () => (this.adapterGone = true));
  }

  /** The adapter process DebugClient started (stdio mode), to signal it as editors do. */
  get adapterProcess(): ChildProcess | undefined {
    return (this as unknown as { _adapterProcess?: ChildProcess })._adapterProcess;
  }

  override async disconnectRequest(args?: DebugProtocol.DisconnectArguments): Promise<DebugProtocol.DisconnectResponse> {
    const response = await super.disconnectRequest(args);
    this.disconnected = true;
    return response;
  }

  /** Disconnects unless that happened or the adapter is gone (within a time limit), then ends it. */
  override async stop(): Promise<void> {
    if (!this.adapterGone && !this.adapterProcess?.killed && !this.disconnected) {
      const disconnected = this.disconnectRequest({}).catch(() => undefined);
      await Promise.race([disconnected, new Promise((resolve) => setTimeout(resolve, 3000))]);
    }
    (this as unknown as { stopAdapter(): void }).stopAdapter();
  }

  /**
   * The next `name` event not yet taken by an earlier call, whether it already arrived or
   * arrives within the timeout (DebugClient.waitForEvent misses events that came before it).
   */
  async next(name: string, timeoutMs = this.defaultTimeout): Promise<RecordedEvent> {
    const taken = this.consumed.get(name) ?? 0;
    const matching = () => this.events.filter((e) => e.event === name);
    await waitUntil(() => matching().length > taken, timeoutMs, `event '${name}'`);
    this.consumed.set(name, taken + 1);
    return matching()[taken];
  }

  output(category: string): string {
    return this.events
      .filter((e) => e.event === "output" && e.body.category === category)
      .map((e) => String(e.body.output))
      .join("");
  }

  order(...names: string[]): string[] {
    return this.events.map((e) => e.event).filter((name) => names.includes(name));
  }

  /** The breakpoints `launchWith` set with `later(...)`, as answered. */
  readonly laterBreakpoints: DebugProtocol.Breakpoint[] = [];

  /**
   * initialize, launch, the configuration sequence with these breakpoints, configurationDone.
   * Every breakpoint must be shown verified at once; those given with `later(...)` (their
   * module is not imported yet) are also confirmed by an event later (assertVerifiedLater).
   */
  async launchWith(
    launch: Record<string, unknown>,
    breakpoints: Record<string, number[] | LaterLines> = {},
    initialize: Partial<InitializeArguments> = {},
  ): Promise<void> {
    await this.initializeRequest({ adapterID: "dapper", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path", ...initialize });
    const initialized = this.next("initialized");
    const launched = this.launchRequest(launch as DebugProtocol.LaunchRequestArguments);
    launched.catch(() => undefined);
    await Promise.race([initialized, launched]);
    await initialized;
    for (const [file, set] of Object.entries(breakpoints)) {
      const isLater = !Array.isArray(set);
      const lines = Array.isArray(set) ? set : set.later;
      const response = await this.setBreakpointsRequest({
        source: { path: path.join(fixtures, file) },
        breakpoints: lines.map((line) => ({ line })),
      });
      for (const bp of response.body.breakpoints) {
        // Pending ones too are shown verified (they are armed); the event comes later.
        if (!bp.verified) throw new Error(`breakpoint in ${file} not verified: ${JSON.stringify(bp)}`);
      }
      if (isLater) this.laterBreakpoints.push(...response.body.breakpoints);
    }
    await this.configurationDoneRequest();
    await launched;
  }

  /**
   * Checks that each `later(...)` breakpoint was verified by exactly one `breakpoint` event
   * (same id and line), and that the event came before the first stop it caused. With
   * `hitOnly`, breakpoints that never stopped are not required to have been verified;
   * with `eventOptional`, ones with no event at all are taken to have been loaded already
   * (both are shown verified in the response, so it cannot tell them apart).
   */
  assertVerifiedLater({ hitOnly = false, eventOptional = false } = {}): void {
    const hit = (e: RecordedEvent, id: number) => e.event === "stopped" && ((e.body.hitBreakpointIds as number[] | undefined) ?? []).includes(id);
    for (const answered of this.laterBreakpoints) {
      if (answered.id === undefined) throw new Error(`breakpoint without an id: ${JSON.stringify(answered)}`);
      const id = answered.id;
      if (hitOnly && !this.events.some((e) => hit(e, id))) continue;
      const index = this.events.findIndex((e) => e.event === "breakpoint" && (e.body.breakpoint as DebugProtocol.Breakpoint).id === answered.id);
      if (index < 0 && eventOptional) continue;
      if (index < 0) throw new Error(`no breakpoint event verified ${JSON.stringify(answered)}`);
      const changed = this.events[index].body;
      const bp = changed.breakpoint as DebugProtocol.Breakpoint;
      if (changed.reason !== "changed" || !bp.verified || bp.line !== answered.line) {
        throw new Error(`unexpected breakpoint event ${JSON.stringify(changed)} for ${JSON.stringify(answered)}`);
      }
      const again = this.events.slice(index + 1).filter((e) => e.event === "breakpoint" && (e.body.breakpoint as DebugProtocol.Breakpoint).id === answered.id);
      if (again.length > 0) throw new Error(`breakpoint ${answered.id} was announced twice`);
      const stop = this.events.findIndex((e) => hit(e, id));
      if (stop >= 0 && stop < index) throw new Error(`breakpoint ${answered.id} stopped before it was verified`);
    }
  }

  /** The values of a variables reference, by name. */
  async values(variablesReference: number): Promise<Map<string, DebugProtocol.Variable>> {
    const response = await this.variablesRequest({ variablesReference });
    return new Map(response.body.variables.map((v) => [v.name, v]));
  }

  /** Waits for the next stop and returns its thread and stack. */
  async nextStop(): Promise<{ event: DebugProtocol.StoppedEvent; frames: DebugProtocol.StackFrame[] }> {
    const event = (await this.next("stopped")) as unknown as DebugProtocol.StoppedEvent;
    const threadId = event.body.threadId ?? 0;
    const stack = await this.stackTraceRequest({ threadId, startFrame: 0, levels: 20 });
    return { event, frames: stack.body.stackFrames };
  }

  /** Resolves once every program started through runInTerminal has exited and its output is read. */
  async terminalsDone(timeoutMs = 10000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("a terminal program did not exit")), timeoutMs)));
    try {
      await Promise.race([Promise.all(this.terminalsClosed), limit]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Resolves with the exit code once both `exited` and `terminated` arrived. */
  async finished(): Promise<number> {
    const exited = await this.next("exited", 20000);
    await this.next("terminated", 10000);
    return Number(exited.body.exitCode);
  }
}

/**
 * Whether the process runs. A zombie has ended: a program whose parent (the adapter) was
 * killed is reparented to the machine's init, which may reap it only later, and until
 * then `kill(pid, 0)` still succeeds (Linux: its state in /proc is Z).
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return process.platform !== "linux";
  }
}

export async function waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The adapter in `--port 0` mode (and `extraArgs`); resolves once it reported its port. */
export async function startServer(extraArgs: string[] = []): Promise<{ port: number; process: ChildProcess; stop: () => void }> {
  const server = spawn(process.execPath, [adapterScript, "--port", "0", ...extraArgs], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    // DAPPER_E2E_ADAPTER_LOG=trace keeps the adapter's trace log (for debugging a test).
    env: { ...process.env, DAPPER_LOG_LEVEL: process.env.DAPPER_E2E_ADAPTER_LOG ?? "warn" },
  });
  let stderr = "";
  let reported = false;
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the adapter did not report its port: ${stderr}`)), 10000);
    server.stderr.on("data", (chunk: Buffer) => {
      if (reported) {
        if (process.env.DAPPER_E2E_ADAPTER_LOG) process.stderr.write(chunk);
        return;
      }
      stderr += chunk.toString();
      const match = stderr.match(/listening on [^\s]*:(\d+)/i);
      if (match) {
        reported = true;
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    server.on("exit", (code) => reject(new Error(`the adapter exited with ${code}: ${stderr}`)));
  });
  return { port, process: server, stop: () => server.kill() };
}

/** The session token a running debuggee was started with, from its initial environment. */
export function tokenOf(pid: number): string {
  const variables = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
  const token = variables.find((variable) => variable.startsWith("DAPPER_SESSION_TOKEN="))?.slice("DAPPER_SESSION_TOKEN=".length);
  assert.match(token ?? "", /^[0-9a-f]{32}$/, `debuggee ${pid} has a session token`);
  return token ?? "";
}
