// One debug session as an agent sees it: its name, where it is (running, stopped, ended),
// what the program printed, and a way to send it DAP requests. Both ways of reaching a
// session feed it the same DAP events: the MCP server's own client of the engine, and
// VS Code's debug adapter tracker on the user's sessions. Nothing here knows which.

/** Sends one DAP request to the session: resolves with the response's body, rejects with its message. */
export type DapRequester = (command: string, args?: Record<string, unknown>) => Promise<Record<string, unknown>>;

export type SessionStatus =
  | { kind: "starting" }
  | { kind: "running" }
  | { kind: "stopped"; threadId: number | undefined; reason: string; description?: string; text?: string }
  | { kind: "ended"; exitCode?: number };

/** The program's output is kept up to this many characters; older text is dropped, and said to be. */
export const OUTPUT_KEPT_CHARS = 1_000_000;

export type WaitOutcome = "stopped" | "ended" | "timeout";

export class AgentSession {
  status: SessionStatus = { kind: "starting" };
  readonly parentId: string | undefined;
  /** Counts stops, so a wait after a step sees the next stop and not the one before it. */
  stopCount = 0;
  /** The innermost frame's place at the last stop described, for the session list. */
  lastLocation: { file: string; line: number } | undefined;
  private output = "";
  /** The absolute offset of output[0]: everything before it was dropped. */
  private outputStart = 0;
  private readonly waiters = new Set<() => void>();

  /**
   * `parent`: the session of the process that started this one's (a child process), whose
   * waiters hear of this one's changes too: a wait on a program sees its children stop.
   */
  constructor(
    readonly id: string,
    readonly name: string,
    readonly parent: AgentSession | undefined,
    readonly request: DapRequester,
  ) {
    this.parentId = parent?.id;
  }

  get ended(): boolean {
    return this.status.kind === "ended";
  }

  /** The session of the process that began it all: this one's topmost parent. */
  get root(): AgentSession {
    return this.parent?.root ?? this;
  }

  /** Wakes the waits on this session and on every session above it. */
  private changed(): void {
    for (const wake of [...this.waiters]) wake();
    this.parent?.changed();
  }

  /** A DAP event the session sent (the client saw it, or VS Code's tracker did). */
  onEvent(event: string, body: Record<string, unknown> | undefined): void {
    const b = body ?? {};
    switch (event) {
      case "stopped":
        this.stopCount++;
        this.lastLocation = undefined;
        this.status = {
          kind: "stopped",
          threadId: typeof b.threadId === "number" ? b.threadId : undefined,
          reason: typeof b.reason === "string" ? b.reason : "paused",
          description: typeof b.description === "string" ? b.description : undefined,
          text: typeof b.text === "string" ? b.text : undefined,
        };
        break;
      case "continued":
        if (this.status.kind !== "ended") this.status = { kind: "running" };
        break;
      case "exited":
        this.status = { kind: "ended", exitCode: typeof b.exitCode === "number" ? b.exitCode : undefined };
        break;
      case "terminated":
        if (this.status.kind !== "ended") this.status = { kind: "ended" };
        break;
      case "output":
        if (typeof b.output === "string" && b.category !== "telemetry") this.appendOutput(b.output);
        break;
      default:
        return;
    }
    this.changed();
  }

  /** The session was told to run (continue, a step): it is running until it says otherwise. */
  markRunning(): void {
    if (this.status.kind !== "ended") this.status = { kind: "running" };
  }

  /** The session is gone without a terminated event (VS Code ended it, the client closed). */
  markEnded(): void {
    if (this.status.kind === "ended") return;
    this.status = { kind: "ended" };
    this.changed();
  }

  private appendOutput(text: string): void {
    this.output += text;
    if (this.output.length > OUTPUT_KEPT_CHARS) {
      const drop = this.output.length - OUTPUT_KEPT_CHARS;
      this.output = this.output.slice(drop);
      this.outputStart += drop;
    }
  }

  /** The output from offset `since` on, at most maxChars of it, and the offset to ask from next. */
  outputSince(since: number, maxChars: number): { text: string; from: number; next: number; dropped: number; more: number } {
    const end = this.outputStart + this.output.length;
    const from = Math.min(Math.max(since, this.outputStart), end);
    const text = this.output.slice(from - this.outputStart, from - this.outputStart + maxChars);
    const next = from + text.length;
    return { text, from, next, dropped: Math.max(0, this.outputStart - since), more: end - next };
  }

  get outputEnd(): number {
    return this.outputStart + this.output.length;
  }

  /**
   * Resolves with what `check` gives once it gives something: checked now and at every
   * change of this session or of one under it (a child's stop too), or "timeout" after
   * timeoutMs. An infinite timeoutMs holds no timer, so it keeps no process alive.
   */
  waitFor<T>(check: () => T | undefined, timeoutMs: number): Promise<T | "timeout"> {
    const now = check();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise((resolve) => {
      const finish = (outcome: T | "timeout") => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(outcome);
      };
      const wake = () => {
        const outcome = check();
        if (outcome !== undefined) finish(outcome);
      };
      const timer = Number.isFinite(timeoutMs) ? setTimeout(() => finish("timeout"), Math.max(0, timeoutMs)) : undefined;
      this.waiters.add(wake);
    });
  }

  /** Whether it has stopped after `afterStop` stops (a new stop), or ended; undefined while neither. */
  private settledAfter(afterStop: number): "stopped" | "ended" | undefined {
    if (this.status.kind === "ended") return "ended";
    if (this.status.kind === "stopped" && this.stopCount > afterStop) return "stopped";
    return undefined;
  }

  /**
   * Waits until the session stops after `afterStop` stops (a new stop), or ends, or
   * timeoutMs passes; never longer.
   */
  waitForStop(afterStop: number, timeoutMs: number): Promise<WaitOutcome> {
    return this.waitFor(() => this.settledAfter(afterStop), timeoutMs);
  }
}

/**
 * A DAP body with every source's path as the debuggee knows it. A VS Code whose sessions
 * run in a remote extension host (code-server, Remote SSH, WSL) hands customRequest's
 * answers back with sources as URIs (vscode-remote://host/dir/file.py); `toPath` turns one
 * back into the path. Only sources' paths are touched: a value's text is the program's.
 */
export function withLocalPaths<T>(body: T, toPath: (uri: string) => string): T {
  const walk = (value: unknown, inSource: boolean): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, false));
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (inSource && key === "path" && typeof item === "string" && /^[a-z][a-z0-9+.-]*:\/\//i.test(item)) out[key] = toPath(item);
      else out[key] = walk(item, key === "source" || key === "sources");
    }
    return out;
  };
  return walk(body, false) as T;
}
