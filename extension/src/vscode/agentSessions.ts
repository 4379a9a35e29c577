// The agent's tools on the user's own debug sessions: the sessions VS Code runs, watched
// through a debug adapter tracker (what the user does, the agent sees), requests sent
// with customRequest and breakpoints set through VS Code's breakpoint list (what the
// agent does shows in the editor, the call stack and the Breakpoints view).

import * as vscode from "vscode";
import type { AgentBackend, Breakpoint, DebugConfiguration, ListedBreakpoint } from "../agent/backend";
import { AgentSession, withLocalPaths } from "../agent/session";
import { DEBUG_TYPE } from "./fileConfiguration";

/** Requests of the user's (or the agent's) that set the program running. */
const RESUMING = new Set(["continue", "next", "stepIn", "stepOut", "stepBack", "reverseContinue", "goto", "restartFrame"]);
/** How long VS Code may take to start a session before start gives up on it. */
const START_TIMEOUT_MS = 60_000;
const ENDED_KEPT = 10;
/** The longest addBreakpoints waits for a session to have been sent them. */
const BREAKPOINTS_SENT_MS = 2000;

export class VsCodeSessions implements AgentBackend {
  private readonly tracked: AgentSession[] = [];
  /** VS Code's session of each tracked one, to stop it through VS Code. */
  private readonly debugSessions = new Map<string, vscode.DebugSession>();
  /** Called when a session answers a setBreakpoints VS Code sent it. */
  private readonly breakpointsSent = new Set<() => void>();

  get maskSecrets(): boolean {
    return vscode.workspace.getConfiguration("dapper").get<boolean>("agent.maskSecrets", true);
  }

  register(): vscode.Disposable[] {
    return [
      vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
        createDebugAdapterTracker: (session) => {
          const agent = this.track(session);
          return {
            onWillReceiveMessage: (message: { type?: string; command?: string }) => {
              if (message?.type === "request" && message.command !== undefined && RESUMING.has(message.command)) agent.markRunning();
            },
            onDidSendMessage: (message: { type?: string; event?: string; command?: string; body?: Record<string, unknown> }) => {
              if (message?.type === "event" && message.event !== undefined) agent.onEvent(message.event, message.body);
              if (message?.type === "response" && (message.command === "setBreakpoints" || message.command === "setFunctionBreakpoints")) for (const sent of [...this.breakpointsSent]) sent();
            },
            onExit: () => agent.markEnded(),
          };
        },
      }),
      vscode.debug.onDidTerminateDebugSession((session) => this.tracked.find((s) => s.id === session.id)?.markEnded()),
    ];
  }

  sessions(): AgentSession[] {
    return [...this.tracked];
  }

  async start(configuration: DebugConfiguration): Promise<AgentSession> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    let listener: vscode.Disposable | undefined;
    const started = new Promise<vscode.DebugSession>((resolve) => {
      listener = vscode.debug.onDidStartDebugSession((session) => {
        if (session.name === configuration.name && session.type === DEBUG_TYPE) resolve(session);
      });
    });
    try {
      const ok = await vscode.debug.startDebugging(folder, configuration);
      if (!ok) throw new Error(`VS Code did not start the session "${configuration.name}"; the debug console or the Dapper log says why.`);
      const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), START_TIMEOUT_MS));
      const session = await Promise.race([started, timeout]);
      if (session === undefined) throw new Error(`The session "${configuration.name}" did not start within ${START_TIMEOUT_MS / 1000} s.`);
      const agent = this.track(session);
      if (agent.status.kind === "starting") agent.markRunning();
      return agent;
    } finally {
      listener?.dispose();
    }
  }

  /** Stopped as the user's Stop button would, so VS Code's own view of the session ends too. */
  async end(session: AgentSession): Promise<void> {
    const debugSession = this.debugSessions.get(session.id);
    // stopDebugging() without a session would stop every one of them.
    if (debugSession === undefined) throw new Error(`VS Code no longer has the session "${session.name}".`);
    await vscode.debug.stopDebugging(debugSession);
  }

  listBreakpoints(): ListedBreakpoint[] {
    return vscode.debug.breakpoints.flatMap((b) => {
      const agent = fromVsCode(b);
      return agent !== undefined ? [agent] : [];
    });
  }

  async addBreakpoints(breakpoints: Breakpoint[]): Promise<void> {
    // One breakpoint a place, as the editor keeps them: setting it again replaces its options.
    const replaced = vscode.debug.breakpoints.filter((existing) => {
      const agent = fromVsCode(existing);
      return agent !== undefined && breakpoints.some((b) => samePlace(agent, b));
    });
    // VS Code sends the change to its sessions on its own time; a continue sent right
    // after (run to a line) could overtake it, so this waits until a live session has
    // answered the setBreakpoints it causes, or a short while when none does.
    const live = this.tracked.some((s) => !s.ended);
    let sent: (() => void) | undefined;
    const answered = new Promise<void>((resolve) => {
      sent = resolve;
      this.breakpointsSent.add(resolve);
    });
    if (replaced.length > 0) vscode.debug.removeBreakpoints(replaced);
    vscode.debug.addBreakpoints(breakpoints.map(toVsCode));
    let timer: NodeJS.Timeout | undefined;
    if (live) await Promise.race([answered, new Promise<void>((resolve) => (timer = setTimeout(resolve, BREAKPOINTS_SENT_MS)))]);
    clearTimeout(timer);
    if (sent !== undefined) this.breakpointsSent.delete(sent);
  }

  async removeBreakpoints(matches: (breakpoint: Breakpoint) => boolean): Promise<number> {
    const removed = vscode.debug.breakpoints.filter((existing) => {
      const agent = fromVsCode(existing);
      return agent !== undefined && matches(agent);
    });
    if (removed.length > 0) vscode.debug.removeBreakpoints(removed);
    return removed.length;
  }

  private track(session: vscode.DebugSession): AgentSession {
    const known = this.tracked.find((s) => s.id === session.id);
    if (known !== undefined) return known;
    // VS Code tracks a child process's session after its parent's: the parent is known.
    const parent = this.tracked.find((s) => s.id === session.parentSession?.id);
    const agent = new AgentSession(session.id, session.name, parent, async (command, args) => withLocalPaths((await session.customRequest(command, args)) ?? {}, uriPath));
    this.tracked.push(agent);
    this.debugSessions.set(session.id, session);
    const ended = this.tracked.filter((s) => s.ended);
    for (const old of ended.slice(0, Math.max(0, ended.length - ENDED_KEPT))) {
      this.tracked.splice(this.tracked.indexOf(old), 1);
      this.debugSessions.delete(old.id);
    }
    return agent;
  }
}

const uriPath = (uri: string): string => vscode.Uri.parse(uri).fsPath;

function fromVsCode(b: vscode.Breakpoint): ListedBreakpoint | undefined {
  const options = { condition: b.condition, hitCondition: b.hitCondition, logMessage: b.logMessage, ...(b.enabled ? {} : { enabled: false }) };
  if (b instanceof vscode.SourceBreakpoint) return { kind: "line", file: b.location.uri.fsPath, line: b.location.range.start.line + 1, ...options };
  if (b instanceof vscode.FunctionBreakpoint) return { kind: "function", name: b.functionName, ...options };
  return undefined;
}

function toVsCode(b: Breakpoint): vscode.Breakpoint {
  const enabled = b.enabled !== false;
  if (b.kind === "function") return new vscode.FunctionBreakpoint(b.name, enabled, b.condition, b.hitCondition, b.logMessage);
  const location = new vscode.Location(vscode.Uri.file(b.file), new vscode.Position(b.line - 1, 0));
  return new vscode.SourceBreakpoint(location, enabled, b.condition, b.hitCondition, b.logMessage);
}

function samePlace(a: Breakpoint, b: Breakpoint): boolean {
  return a.kind === "line" && b.kind === "line" ? a.file === b.file && a.line === b.line : a.kind === "function" && b.kind === "function" && a.name === b.name;
}
