// The harness for child-process sessions: one adapter in TCP mode (one engine), a root
// client, and a new client for every `startDebugging` reverse request, started the way
// VS Code starts a child session (initialize, attach with the given configuration,
// breakpoints, configurationDone) on a new connection to the same adapter.
import type { DebugProtocol } from "@vscode/debugprotocol";
import path from "node:path";
import type { Writable } from "node:stream";
import { fixtures, type InitializeArguments, marker, RecordingClient, waitUntil } from "./support";

/** The child-process fixtures, a file of them, a marker's line, and `file:line`. */
export const dir = path.join(fixtures, "children");
export const file = (name: string) => path.join(dir, name);
export const line = (name: string, bp: string) => marker(path.join("children", name), bp);
export const at = (name: string, bp: string) => `${name}:${line(name, bp)}`;

const childEvents = ["dapper/childProcess", "dapper/childProcessExited", "dapper/childProcessCandidate"];

/** A client of one session of the tree; it answers `startDebugging` for its children. */
export class TreeClient extends RecordingClient {
  /** The attach configuration this session was started with (none for the root). */
  configuration?: Record<string, unknown>;
  /** Child sessions started for this session's children, in the order they were asked for. */
  readonly children: TreeClient[] = [];

  constructor(private readonly tree: SessionTree) {
    super();
    for (const name of childEvents) {
      this.on(name, (event: DebugProtocol.Event) => this.events.push({ event: name, body: (event.body ?? {}) as Record<string, unknown> }));
    }
    this.answerStartDebugging();
  }

  /** Wraps the reverse-request dispatch RecordingClient installed: `startDebugging` is ours. */
  private answerStartDebugging(): void {
    const internals = this as unknown as { dispatch(body: string): void; outputStream: Writable; sequence: number };
    const previous = internals.dispatch.bind(this);
    internals.dispatch = (body: string) => {
      const message = JSON.parse(body) as DebugProtocol.ProtocolMessage;
      if (message.type !== "request" || (message as DebugProtocol.Request).command !== "startDebugging") return previous(body);
      const request = message as DebugProtocol.StartDebuggingRequest;
      const json = JSON.stringify({ type: "response", seq: internals.sequence++, request_seq: request.seq, command: request.command, success: true });
      internals.outputStream.write(`Content-Length: ${Buffer.byteLength(json, "utf8")}\r\n\r\n${json}`, "utf8");
      if (!this.tree.attachChildren) {
        this.tree.unattended.push(request.arguments.configuration);
        return;
      }
      const child = new TreeClient(this.tree);
      if (this.tree.autoContinue) child.continueEveryStop();
      child.configuration = request.arguments.configuration;
      this.children.push(child);
      this.tree.sessions.push(child);
      child.attachAsChild().catch(async (error: unknown) => {
        // VS Code ends a session whose attach failed with a disconnect; so does this client.
        child.attachError = error;
        await child.disconnectRequest({}).catch(() => undefined);
      });
    };
  }

  private async attachAsChild(): Promise<void> {
    // A child of a stdio client is reached through the adapter's client listener, whose
    // address the configuration carries (as nvim-dap's adapter function would use it).
    const connect = this.configuration?.connect as { host?: string; port?: number } | undefined;
    await this.start(connect?.port ?? this.tree.port);
    const initialize: InitializeArguments = {
      adapterID: "dapper",
      linesStartAt1: true,
      columnsStartAt1: true,
      pathFormat: "path",
      supportsStartDebuggingRequest: true,
      // The tests read Dapper's own events (dapper/childProcess…); clients ask for them.
      supportsDapperEvents: true,
    };
    await this.initializeRequest(initialize);
    const initialized = this.next("initialized");
    const attached = this.attachRequest(this.configuration as DebugProtocol.AttachRequestArguments);
    attached.catch(() => undefined);
    initialized.catch(() => undefined);
    // A child that ran on its parent's breakpoints and ended before this session came
    // gets its attach answered without `initialized` (nothing to configure), then its
    // exit; one that ends while this session configures it refuses the requests it can
    // no longer take, and its attach is answered all the same. VS Code takes either as a
    // session that is over, and so does this client.
    if ((await Promise.race([initialized.then(() => "initialized"), attached.then(() => "attached")])) === "attached") {
      this.ready = true;
      return;
    }
    try {
      await this.configureAsChild();
    } catch (error) {
      if (!(await attached.then(() => true, () => false))) throw error;
    }
    await attached;
    this.ready = true;
  }

  private async configureAsChild(): Promise<void> {
    for (const [file, lines] of Object.entries(this.tree.breakpoints)) {
      const response = await this.setBreakpointsRequest({ source: { path: file }, breakpoints: lines.map((bp) => (typeof bp === "number" ? { line: bp } : bp)) });
      // A child's program is not known to its session (an attach): its breakpoints, like
      // those of files the child never runs, wait for the code to load (shown verified,
      // confirmed by an event unless the code was loaded already).
      for (const bp of response.body.breakpoints) {
        if (!bp.verified) throw new Error(`breakpoint in ${file} not verified: ${JSON.stringify(bp)}`);
        this.laterBreakpoints.push(bp);
      }
    }
    // VS Code gives every session the exception breakpoints of its Breakpoints view.
    if (this.tree.exceptionFilters.length > 0) await this.setExceptionBreakpointsRequest({ filters: this.tree.exceptionFilters });
    await this.configurationDoneRequest();
  }

  ready = false;
  /** Why this child session's attach failed (its process died while it was starting). */
  attachError?: unknown;
  /** Top frames (file:line) of the stops this session continued by itself. */
  readonly stops: string[] = [];

  /** Records every stop's top frame and continues at once. */
  continueEveryStop(): void {
    this.on("stopped", (event: DebugProtocol.StoppedEvent) => {
      const threadId = event.body.threadId ?? 0;
      void (async () => {
        const stack = await this.stackTraceRequest({ threadId, startFrame: 0, levels: 1 });
        const top = stack.body.stackFrames[0];
        this.stops.push(`${path.basename(top.source?.path ?? "?")}:${top.line}`);
        await this.continueRequest({ threadId });
      })().catch((error: unknown) => this.tree.failures.push(error));
    });
  }

  /** Whether the session ended (`terminated` arrived). */
  get ended(): boolean {
    return this.events.some((e) => e.event === "terminated");
  }

  /** The events with this name, in order. */
  all(name: string): Record<string, unknown>[] {
    return this.events.filter((e) => e.event === name).map((e) => e.body);
  }
}

/** A root session and every child session the adapter asks for. */
export class SessionTree {
  readonly sessions: TreeClient[] = [];
  readonly failures: unknown[] = [];
  readonly root: TreeClient;
  /** The exception filters every child session sets (none: it sends no request). */
  exceptionFilters: string[] = [];
  /** Whether `startDebugging` starts a child session; when not, the request is answered
   * and its configuration kept in `unattended` (a client slow to start sessions). */
  attachChildren = true;
  readonly unattended: Record<string, unknown>[] = [];
  private taken = 0;

  constructor(
    /** The adapter's TCP port; undefined when the root runs the adapter over stdio. */
    readonly port: number | undefined,
    /** Breakpoints (absolute file → lines) every child session sets. */
    readonly breakpoints: Record<string, Array<number | DebugProtocol.SourceBreakpoint>>,
    /** Child sessions continue every stop by themselves (recording it in `stops`). */
    readonly autoContinue = false,
  ) {
    this.root = new TreeClient(this);
    this.sessions.push(this.root);
  }

  /** The next child session not yet taken, once it is configured. */
  async nextChild(timeoutMs = 20000): Promise<TreeClient> {
    const index = this.taken + 1;
    const started = () => this.sessions.length > index && (this.sessions[index].ready || this.sessions[index].attachError !== undefined);
    await waitUntil(() => this.failures.length > 0 || started(), timeoutMs, `child session #${index}`);
    if (this.failures.length > 0) throw this.failures[0];
    if (this.sessions[index].attachError !== undefined) throw this.sessions[index].attachError;
    this.taken++;
    return this.sessions[index];
  }

  /** The child sessions (every session but the root). */
  get children(): TreeClient[] {
    return this.sessions.slice(1);
  }

  /** Ends every client (children first), whatever state they are in. */
  async stop(): Promise<void> {
    for (const session of [...this.sessions].reverse()) {
      await session.stop().catch(() => undefined);
    }
  }
}

/** A tree whose child sessions set these breakpoints (fixture file, marker). */
export function treeFor(port: number | undefined, breakpointList: Array<[string, string]>, autoContinue: boolean): SessionTree {
  const breakpoints: Record<string, number[]> = {};
  for (const [name, bp] of breakpointList) (breakpoints[file(name)] ??= []).push(line(name, bp));
  return new SessionTree(port, breakpoints, autoContinue);
}

/** Launches the tree's root on a fixture program, as VS Code launches with children. */
export async function launchRoot(tree: SessionTree, python: string, program: string, args: string[], extra: Record<string, unknown> = {}): Promise<void> {
  await tree.root.start(tree.port);
  await tree.root.launchWith(
    { program: file(program), args, cwd: dir, python, console: "internalConsole", ...extra },
    {},
    { supportsStartDebuggingRequest: true, supportsDapperEvents: true },
  );
}
