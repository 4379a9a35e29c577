// How the tools that set a program running wait for it: never longer than their limit,
// and answering with where the program is then.

import { num, type Arguments } from "./arguments";
import type { AgentSession } from "./session";
import { describeStatus } from "./where";

/** The longest any wait may last, so no call outlives a client's own request timeout by much. */
export const MAX_WAIT_SECONDS = 300;
export const DEFAULT_WAIT_SECONDS = 10;

export const secondsOf = (args: Arguments, key = "wait"): number => Math.min(num(args, key) ?? DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS) * 1000;

/** The outcome of waiting, as the agent reads it: where the program is now. */
export async function afterWait(session: AgentSession, stopsBefore: number, waitMs: number, base: string): Promise<string> {
  const outcome = await session.waitForStop(stopsBefore, waitMs);
  if (outcome === "timeout") {
    return `Session "${session.name}" is still running after ${waitMs / 1000} s. Call wait to wait longer, or control with action pause to stop it now.`;
  }
  return describeStatus(session, base);
}
