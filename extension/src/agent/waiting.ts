// How the tools that set a program running wait for it: never longer than their limit,
// and answering with where the program is then. A program is its session and the
// sessions of the child processes it started (subprocess, multiprocessing), so a wait
// on it ends at a stop in any of them: a breakpoint in a child's code stops the child.

import { num, type Arguments } from "./arguments";
import type { AgentBackend } from "./backend";
import type { AgentSession } from "./session";
import { describeSession, describeStatus } from "./where";

/** The longest any wait may last, so no call outlives a client's own request timeout by much. */
export const MAX_WAIT_SECONDS = 300;
export const DEFAULT_WAIT_SECONDS = 10;
/** Other live sessions of the program named after a wait's answer, at most. */
const MAX_OTHERS_LISTED = 5;

export const secondsOf = (args: Arguments, key = "wait"): number => Math.min(num(args, key) ?? DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS) * 1000;

/** The sessions of `session`'s program: the session it all began with and every one under it, oldest first. */
export function programOf(backend: AgentBackend, session: AgentSession): AgentSession[] {
  const root = session.root;
  return backend.sessions().filter((s) => s.root === root);
}

/** How many stops each session of the program has had: taken before setting it running, to tell new stops from old. */
export type StopCounts = ReadonlyMap<string, number>;

export function stopCounts(backend: AgentBackend, session: AgentSession): StopCounts {
  return new Map(programOf(backend, session).map((s) => [s.id, s.stopCount]));
}

export type ProgramOutcome = { outcome: "stopped" | "ended"; session: AgentSession } | "timeout";

/**
 * Waits until `session` or another session of its program stops anew (after the counts
 * in `before`; a child that began meanwhile had none), or `session` ends, or timeoutMs
 * passes; says which session it was. `session`'s own stop comes first, then another's,
 * then its end. An infinite timeoutMs holds no timer.
 */
export function waitForProgram(backend: AgentBackend, session: AgentSession, before: StopCounts, timeoutMs: number): Promise<ProgramOutcome> {
  const isNewStop = (s: AgentSession) => s.status.kind === "stopped" && s.stopCount > (before.get(s.id) ?? 0);
  return session.root.waitFor((): ProgramOutcome | undefined => {
    if (isNewStop(session)) return { outcome: "stopped", session };
    const other = programOf(backend, session).find((s) => s !== session && isNewStop(s));
    if (other !== undefined) return { outcome: "stopped", session: other };
    if (session.ended) return { outcome: "ended", session };
    return undefined;
  }, timeoutMs);
}

/** The outcome of waiting, as the agent reads it: where the program is now. */
export async function afterWait(backend: AgentBackend, session: AgentSession, before: StopCounts, waitMs: number, base: string): Promise<string> {
  const waited = await waitForProgram(backend, session, before, waitMs);
  if (waited === "timeout") {
    return `Session "${session.name}" is still running after ${waitMs / 1000} s. Call wait to wait longer, or control with action pause to stop it now.`;
  }
  return `${await describeStatus(waited.session, base)}${othersOf(backend, waited.session, base)}`;
}

/**
 * The other live sessions of the program, one line each, after an answer about one of
 * them: a child that stopped while its parent runs, a parent that goes on after its
 * child ended. Nothing when the program has only the one.
 */
export function othersOf(backend: AgentBackend, session: AgentSession, base: string): string {
  const all = backend.sessions();
  const others = programOf(backend, session).filter((s) => s !== session && !s.ended);
  if (others.length === 0) return "";
  const listed = others.slice(0, MAX_OTHERS_LISTED).map((s) => `  ${describeSession(s, all, base)}`);
  const more = others.length > MAX_OTHERS_LISTED ? [`  … and ${others.length - MAX_OTHERS_LISTED} more (sessions lists them)`] : [];
  return `\nOther sessions of this program:\n${[...listed, ...more].join("\n")}`;
}
