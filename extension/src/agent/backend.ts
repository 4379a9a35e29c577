// What the agent's tools need from whoever runs the debug sessions. Two implementations:
// engineSessions.ts (the MCP server's own client of the engine) and, in VS Code,
// vscode/agentSessions.ts (the user's sessions through VS Code's debug API, so that what
// the agent does shows in the editor). Breakpoints are global, as in VS Code: every
// session gets them all.

import type { AgentSession } from "./session";

export interface BreakpointOptions {
  condition?: string;
  hitCondition?: string;
  logMessage?: string;
  /** false: kept, but not stopping (an unticked breakpoint in VS Code's Breakpoints view). */
  enabled?: boolean;
}

export type Breakpoint = BreakpointOptions & ({ kind: "line"; file: string; line: number } | { kind: "function"; name: string });

/** A breakpoint as listed: what was asked, and what the debuggee said of it when known. */
export type ListedBreakpoint = Breakpoint & { verified?: boolean; message?: string };

/** A launch or attach configuration of type dapper, as launch.json would hold it. */
export type DebugConfiguration = Record<string, unknown> & { type: string; name: string; request: "launch" | "attach" };

export interface AgentBackend {
  /** Every session the backend knows, children included, oldest first; ended ones may be kept a while. */
  sessions(): AgentSession[];
  /** Starts a session; resolves once it runs (or with the error that stopped it from starting). */
  start(configuration: DebugConfiguration): Promise<AgentSession>;
  listBreakpoints(): ListedBreakpoint[];
  /** Adds breakpoints and applies them to every live session. */
  addBreakpoints(breakpoints: Breakpoint[]): Promise<void>;
  /** Removes the breakpoints `matches` picks, applying that to every live session; how many. */
  removeBreakpoints(matches: (breakpoint: Breakpoint) => boolean): Promise<number>;
  /** Ends a session as its client would: a launched program stops, an attached one runs on. */
  end(session: AgentSession): Promise<void>;
  /** Whether values of secret-looking names are masked in results. */
  readonly maskSecrets: boolean;
}
