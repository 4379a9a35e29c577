// What a hot reload tells the user: the pure part of the hot-reload command (no VS Code API),
// so that its wording and its decisions are unit-tested. The debuggee answers
// `dapper/hotReload` with the body described in docs/hot-reload.md.

export const HOT_RELOAD_COMMAND = "dapper.hotReload";

/** A frame that still runs the code from before the reload (DAP ids; `frameId` for stopped threads). */
export interface OldCodeFrame {
  threadId?: number;
  frameId?: number;
  /** The thread's name. */
  thread?: string;
  /** The function's qualified name. */
  name?: string;
  line?: number;
}

/** A definition the reload left as it was, and why. */
export interface Refusal {
  name: string;
  reason: string;
}

/** The body of the `dapper/hotReload` response and of the `dapper/hotReloadResult` event. */
export interface HotReloadResult {
  path?: string;
  reloadedModule?: string;
  reboundFrames?: number;
  updatedFrameCodes?: number;
  warnings?: string[];
  updated?: string[];
  /** Patched only so that their line numbers stay right (an edit above them). */
  moved?: string[];
  added?: string[];
  removed?: string[];
  refused?: Refusal[];
  deferred?: string[];
  framesRunningOldCode?: OldCodeFrame[];
  durationMs?: number;
}

const list = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []);

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** One sentence for the information message, the status bar and the debug console. */
export function hotReloadSummary(result: HotReloadResult, fileName: string): string {
  const updated = list(result.updated).length;
  const added = list(result.added).length;
  const parts = [`${plural(updated, "definition")} updated`];
  if (added > 0) parts.push(`${added} added`);
  const removed = list(result.removed).length;
  if (removed > 0) parts.push(`${removed} removed (kept in the program)`);
  const refused = Array.isArray(result.refused) ? result.refused.length : 0;
  if (refused > 0) parts.push(`${refused} left as they were`);
  const deferred = list(result.deferred).length;
  if (deferred > 0) parts.push(`${deferred} waiting until no thread runs them`);
  const module = result.reloadedModule ? ` (${result.reloadedModule})` : "";
  const time = typeof result.durationMs === "number" ? ` in ${result.durationMs.toFixed(0)} ms` : "";
  const old = oldCodeFrames(result).length;
  // Restart Frame now runs the new code in a running frame: the summary says where to go.
  const them = old === 1 ? "it" : "them";
  const frames = old > 0 ? `; ${plural(old, "frame")} on the stack still run${old === 1 ? "s" : ""} the old code (Restart Frame runs ${them} again with the new code; new calls run it)` : "";
  return `Hot reload of ${fileName}${module}${time}: ${parts.join(", ")}${frames}.`;
}

/** The warnings, each with the refusals' reasons. */
export function hotReloadWarnings(result: HotReloadResult): string[] {
  const refusals = Array.isArray(result.refused) ? result.refused.map((r) => `${r.name} was not reloaded: ${r.reason}`) : [];
  return [...list(result.warnings), ...refusals];
}

export function oldCodeFrames(result: HotReloadResult): OldCodeFrame[] {
  return Array.isArray(result.framesRunningOldCode) ? result.framesRunningOldCode : [];
}

/**
 * The frame to restart after a reload when `dapper.hotReload.restartChangedFrame` is on:
 * the focused frame (or the top of the focused thread), if it runs old code.
 */
export function frameToRestart(result: HotReloadResult, focus: { threadId: number; frameId?: number } | undefined): number | undefined {
  if (!focus) return undefined;
  const candidates = oldCodeFrames(result).filter((frame) => typeof frame.frameId === "number");
  if (focus.frameId !== undefined) return candidates.find((frame) => frame.frameId === focus.frameId)?.frameId;
  return candidates.find((frame) => frame.threadId === focus.threadId)?.frameId;
}

/** Where a compile error points, read from the debuggee's message ("…, line 12, column 5: …"). */
export function compileErrorLocation(message: string): { line: number; column: number } | undefined {
  const match = /\bline (\d+)(?:, column (\d+))?/.exec(message);
  if (!match) return undefined;
  return { line: Number(match[1]), column: match[2] === undefined ? 1 : Number(match[2]) };
}

/** Tracks which threads of a session are stopped, from the messages VS Code exchanges with it. */
export class StoppedThreads {
  private readonly stopped = new Set<number>();
  private all = false;

  get any(): boolean {
    return this.all || this.stopped.size > 0;
  }

  fromAdapter(message: { type?: string; event?: string; body?: { threadId?: unknown; allThreadsStopped?: unknown; allThreadsContinued?: unknown } }): void {
    if (message?.type !== "event") return;
    const threadId = typeof message.body?.threadId === "number" ? message.body.threadId : undefined;
    if (message.event === "stopped") {
      if (message.body?.allThreadsStopped === true) this.all = true;
      if (threadId !== undefined) this.stopped.add(threadId);
    } else if (message.event === "continued") {
      if (message.body?.allThreadsContinued === false && threadId !== undefined) {
        this.stopped.delete(threadId);
        if (this.stopped.size === 0) this.all = false;
      } else this.clear();
    } else if (message.event === "terminated" || message.event === "exited") {
      this.clear();
    }
  }

  fromClient(message: { type?: string; command?: string }): void {
    if (message?.type === "request" && RESUMING.has(message.command ?? "")) this.clear();
  }

  private clear(): void {
    this.stopped.clear();
    this.all = false;
  }
}

// Requests after which the debuggee runs again (Dapper resumes every thread on each).
const RESUMING = new Set(["continue", "next", "stepIn", "stepOut", "stepBack", "reverseContinue", "goto", "restartFrame"]);
