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
  /** Counts stops, so a wait after a step sees the next stop and not the one before it. */
  stopCount = 0;
  /** The innermost frame's place at the last stop described, for the session list. */
  lastLocation: { file: string; line: number } | undefined;
  private output = "";
  /** The absolute offset of output[0]: everything before it was dropped. */
  private outputStart = 0;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly id: string,
    readonly name: string,
    readonly parentId: string | undefined,
    readonly request: DapRequester,
  ) {}

  get ended(): boolean {
    return this.status.kind === "ended";
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
    for (const wake of [...this.waiters]) wake();
  }

  /** The session was told to run (continue, a step): it is running until it says otherwise. */
  markRunning(): void {
    if (this.status.kind !== "ended") this.status = { kind: "running" };
  }

  /** The session is gone without a terminated event (VS Code ended it, the client closed). */
  markEnded(): void {
    if (this.status.kind === "ended") return;
    this.status = { kind: "ended" };
    for (const wake of [...this.waiters]) wake();
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
   * Resolves at the first stop after `afterStop` stops, or the end, however long that
   * takes: for what must follow the stop (a temporary breakpoint's removal) after the
   * tool that waited has answered. It holds no timer, so it keeps no process alive.
   */
  settled(afterStop: number): Promise<"stopped" | "ended"> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.status.kind === "ended") resolve("ended");
        else if (this.status.kind === "stopped" && this.stopCount > afterStop) resolve("stopped");
        else return;
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /**
   * Waits until the session stops after `afterStop` stops (a new stop), or ends, or
   * timeoutMs passes; never longer.
   */
  waitForStop(afterStop: number, timeoutMs: number): Promise<WaitOutcome> {
    const settled = (): WaitOutcome | undefined => {
      if (this.status.kind === "ended") return "ended";
      if (this.status.kind === "stopped" && this.stopCount > afterStop) return "stopped";
      return undefined;
    };
    const now = settled();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise((resolve) => {
      const finish = (outcome: WaitOutcome) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(outcome);
      };
      const check = () => {
        const outcome = settled();
        if (outcome !== undefined) finish(outcome);
      };
      const timer = setTimeout(() => finish("timeout"), Math.max(0, timeoutMs));
      this.waiters.add(check);
    });
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
