// The MCP server's sessions: each one a DAP client of the engine in this process, as the
// stdio adapter's client is, but speaking DAP objects instead of framed bytes. It plays
// the part VS Code plays for its own sessions: initialize, launch or attach, the
// breakpoints at configuration time, child sessions on startDebugging; and keeps the
// global breakpoint list, as VS Code does.

import type { ClientHost, HostedClient } from "../host/clients";
import type { DapMessage } from "../host/protocol";
import type { Logger } from "../log";
import type { AgentBackend, Breakpoint, DebugConfiguration, ListedBreakpoint } from "./backend";
import { AgentSession } from "./session";

/** A request the engine has not answered in this time fails, so no tool call hangs. */
const REQUEST_TIMEOUT_MS = 60_000;
/** Ended sessions kept in the list (their output can still be read). */
const ENDED_KEPT = 10;

interface Pending {
  resolve(body: Record<string, unknown>): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** One DAP client of the engine, hosted in this process. */
class EngineClient {
  private readonly hosted: HostedClient;
  private seq = 1;
  private readonly pending = new Map<number, Pending>();
  private closed = false;

  constructor(
    host: ClientHost,
    private readonly onEvent: (event: string, body: Record<string, unknown> | undefined) => void,
    private readonly onReverseRequest: (message: DapMessage) => void,
  ) {
    this.hosted = host.openClient({ framing: "messages", deliver: (message) => this.deliver(message) });
  }

  request(command: string, args?: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new Error("The session has ended."));
    const seq = this.seq++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(seq);
        reject(new Error(`The debugger did not answer ${command} within ${REQUEST_TIMEOUT_MS / 1000} s.`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(seq, { resolve, reject, timer });
      this.hosted.message({ seq, type: "request", command, arguments: args ?? {} });
    });
  }

  respond(request: DapMessage, success: boolean, message?: string): void {
    if (this.closed) return;
    this.hosted.message({ seq: this.seq++, type: "response", request_seq: request.seq, command: request.command, success, ...(message ? { message } : {}) });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const [, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(new Error("The session has ended."));
    }
    this.pending.clear();
    this.hosted.closed();
  }

  private deliver(message: DapMessage): void {
    if (message.type === "response") {
      const pending = this.pending.get(Number(message.request_seq));
      if (pending === undefined) return;
      this.pending.delete(Number(message.request_seq));
      clearTimeout(pending.timer);
      if (message.success === true) pending.resolve((message.body ?? {}) as Record<string, unknown>);
      else pending.reject(new Error(errorText(message)));
    } else if (message.type === "event") {
      this.onEvent(String(message.event), message.body as Record<string, unknown> | undefined);
    } else if (message.type === "request") {
      this.onReverseRequest(message);
    }
  }
}

/** A DAP error response's words: its message, or the formatted error it carries. */
function errorText(message: DapMessage): string {
  const body = message.body as { error?: { format?: string; variables?: Record<string, string> } } | undefined;
  const format = body?.error?.format;
  if (typeof format === "string") return format.replace(/\{(\w+)\}/g, (whole, key: string) => body?.error?.variables?.[key] ?? whole);
  return typeof message.message === "string" ? message.message : `${String(message.command)} failed`;
}

interface Entry {
  session: AgentSession;
  client: EngineClient;
  /** Its configuration is done: breakpoint changes go to it. */
  configured: boolean;
  /**
   * What it was last sent, as the request's arguments in JSON: a file's setBreakpoints by
   * its path, setFunctionBreakpoints by FUNCTIONS. A file stays after its last breakpoint
   * goes, so that the empty list clears it there.
   */
  sent: Map<string, string>;
}

/** The key of setFunctionBreakpoints in Entry.sent (a file's key is its absolute path). */
const FUNCTIONS = "";

export class EngineSessions implements AgentBackend {
  private readonly entries: Entry[] = [];
  private breakpoints: ListedBreakpoint[] = [];
  private nextId = 1;

  constructor(
    private readonly host: ClientHost,
    private readonly logger: Logger,
    readonly maskSecrets: boolean,
  ) {}

  sessions(): AgentSession[] {
    return this.entries.map((entry) => entry.session);
  }

  listBreakpoints(): ListedBreakpoint[] {
    return this.breakpoints.map((b) => ({ ...b }));
  }

  async addBreakpoints(added: Breakpoint[]): Promise<void> {
    for (const breakpoint of added) {
      // One breakpoint a place, as in an editor: setting it again replaces its options.
      this.breakpoints = this.breakpoints.filter((b) => !samePlace(b, breakpoint));
      this.breakpoints.push({ ...breakpoint });
    }
    await this.applyToAll();
  }

  async removeBreakpoints(matches: (breakpoint: Breakpoint) => boolean): Promise<number> {
    const before = this.breakpoints.length;
    this.breakpoints = this.breakpoints.filter((b) => !matches(b));
    await this.applyToAll();
    return before - this.breakpoints.length;
  }

  start(configuration: DebugConfiguration): Promise<AgentSession> {
    return this.startSession(configuration, undefined);
  }

  async end(session: AgentSession): Promise<void> {
    await session.request("disconnect", {});
  }

  /** Ends every session's client (the adapter is exiting). */
  dispose(): void {
    for (const entry of this.entries) entry.client.close();
  }

  private async startSession(configuration: DebugConfiguration, parent: AgentSession | undefined): Promise<AgentSession> {
    const id = String(this.nextId++);
    // The client's callbacks need the entry, which needs the client.
    const ref = {} as { entry: Entry };
    let initialized!: () => void;
    const whenInitialized = new Promise<void>((resolve) => (initialized = resolve));
    const client = new EngineClient(
      this.host,
      (event, body) => {
        ref.entry.session.onEvent(event, body);
        if (event === "initialized") initialized();
        if (event === "breakpoint") this.noteBreakpointEvent(body);
        // The engine is done with a session once it has said terminated; its client goes.
        if (event === "terminated") setTimeout(() => client.close(), 1000);
      },
      (request) => this.reverseRequest(ref.entry, request),
    );
    const session = new AgentSession(id, configuration.name, parent, (command, args) => client.request(command, args));
    const entry: Entry = { session, client, configured: false, sent: new Map() };
    ref.entry = entry;
    this.entries.push(entry);
    this.forgetOldSessions();
    try {
      await client.request("initialize", {
        clientID: "dapper-mcp",
        clientName: "Dapper MCP server",
        adapterID: "dapper",
        pathFormat: "path",
        linesStartAt1: true,
        columnsStartAt1: true,
        supportsVariableType: true,
        supportsVariablePaging: true,
        supportsRunInTerminalRequest: false,
        supportsStartDebuggingRequest: true,
      });
      const started = client.request(configuration.request, configuration);
      // A launch that fails answers before initialized ever comes; one that works may
      // answer only after configurationDone.
      await Promise.race([whenInitialized, started]);
      await whenInitialized;
      await this.apply(entry);
      entry.configured = true;
      await client.request("configurationDone");
      await started;
      if (session.status.kind === "starting") session.markRunning();
      return session;
    } catch (error) {
      session.markEnded();
      client.close();
      throw new Error(`The session "${configuration.name}" did not start: ${(error as Error).message}`);
    }
  }

  private reverseRequest(entry: Entry, request: DapMessage): void {
    if (request.command !== "startDebugging") {
      entry.client.respond(request, false, `the MCP server does not answer ${String(request.command)}`);
      return;
    }
    const args = (request.arguments ?? {}) as { request?: string; configuration?: Record<string, unknown> };
    entry.client.respond(request, true);
    const configuration = { type: "dapper", ...args.configuration, request: args.request === "launch" ? "launch" : "attach" } as DebugConfiguration;
    if (typeof configuration.name !== "string") configuration.name = `child of ${entry.session.name}`;
    this.startSession(configuration, entry.session).catch((error: Error) => this.logger.warn(error.message));
  }

  private async applyToAll(): Promise<void> {
    await Promise.all(this.entries.filter((e) => e.configured && !e.session.ended).map((e) => this.apply(e).catch((error: Error) => this.logger.debug(`breakpoints not applied: ${error.message}`))));
  }

  /**
   * Brings one session's breakpoints up to the list, and notes what its debuggee said of
   * each. As an editor does, only what changed is sent: a file whose breakpoints are as
   * they were, or function breakpoints that are, are not sent again. Every request makes
   * the debuggee apply its breakpoints anew, and that is not free of effects: a Python
   * 3.9-3.12 debuggee stopped at its entry, its file's conditional breakpoint just made a
   * plain one, lost it when the unchanged function breakpoints came after.
   */
  private async apply(entry: Entry): Promise<void> {
    const byFile = new Map<string, ListedBreakpoint[]>();
    for (const [key] of entry.sent) if (key !== FUNCTIONS) byFile.set(key, []);
    for (const b of this.breakpoints) if (b.kind === "line") byFile.set(b.file, [...(byFile.get(b.file) ?? []), b]);
    const options = (b: Breakpoint) => ({ condition: b.condition, hitCondition: b.hitCondition, logMessage: b.logMessage });
    const requests: Promise<unknown>[] = [];
    const send = (key: string, command: string, args: Record<string, unknown>, list: ListedBreakpoint[]) => {
      const text = JSON.stringify(args);
      if (entry.sent.get(key) === text) return;
      entry.sent.set(key, text);
      const answered = entry.client.request(command, args).then(
        (body) => noteVerified(list, body),
        (error: unknown) => {
          // Not applied: the next change sends it again (the key stays, so that a file
          // is still cleared when its last breakpoint goes).
          if (entry.sent.get(key) === text) entry.sent.set(key, "");
          throw error;
        },
      );
      requests.push(answered);
    };
    for (const [file, list] of byFile) {
      send(file, "setBreakpoints", { source: { path: file }, breakpoints: list.map((b) => ({ line: b.kind === "line" ? b.line : 0, ...options(b) })) }, list);
    }
    const functions = this.breakpoints.filter((b) => b.kind === "function");
    send(FUNCTIONS, "setFunctionBreakpoints", { breakpoints: functions.map((b) => ({ name: b.kind === "function" ? b.name : "", ...options(b) })) }, functions);
    await Promise.all(requests);
  }

  private noteBreakpointEvent(body: Record<string, unknown> | undefined): void {
    const changed = body?.breakpoint as { verified?: boolean; line?: number; source?: { path?: string } } | undefined;
    if (changed?.source?.path === undefined || changed.verified !== true) return;
    for (const b of this.breakpoints) if (b.kind === "line" && b.file === changed.source.path && b.line === changed.line) b.verified = true;
  }

  private forgetOldSessions(): void {
    const ended = this.entries.filter((e) => e.session.ended);
    for (const old of ended.slice(0, Math.max(0, ended.length - ENDED_KEPT))) this.entries.splice(this.entries.indexOf(old), 1);
  }
}

function samePlace(a: Breakpoint, b: Breakpoint): boolean {
  return a.kind === "line" && b.kind === "line" ? a.file === b.file && a.line === b.line : a.kind === "function" && b.kind === "function" && a.name === b.name;
}

function noteVerified(list: ListedBreakpoint[], body: Record<string, unknown>): void {
  const answers = (body.breakpoints ?? []) as { verified?: boolean; message?: string }[];
  list.forEach((b, i) => {
    if (answers[i] === undefined) return;
    b.verified = answers[i].verified === true;
    b.message = answers[i].message;
  });
}
