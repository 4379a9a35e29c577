// Which session a call means, and where a session is: the few lines every tool that
// moves the program answers with.

import { ToolError } from "./arguments";
import type { AgentBackend } from "./backend";
import { clip, shortPath, sourceLine } from "./render";
import type { AgentSession } from "./session";

/**
 * The session a call names, or the one it must mean: the only live session, or the only
 * stopped one. `endedToo` lets a tool that reads what is left (output) pick an ended one.
 */
export function sessionArgument(backend: AgentBackend, name: string | undefined, endedToo = false): AgentSession {
  const all = backend.sessions();
  const names = () => all.map((s) => `"${s.name}"${s.ended ? " (ended)" : ""}`).join(", ");
  if (name !== undefined) {
    const named = all.filter((s) => s.name === name || s.id === name);
    const session = named.find((s) => !s.ended) ?? named.at(-1);
    if (session === undefined) throw new ToolError(`No session named "${name}". ${all.length > 0 ? `Sessions: ${names()}.` : "Start one with start."}`);
    if (session.ended && !endedToo) throw new ToolError(`Session "${session.name}" has ended. Its output is still there; start a new session to go on.`);
    return session;
  }
  const live = all.filter((s) => !s.ended);
  if (live.length === 1) return live[0];
  const stopped = live.filter((s) => s.status.kind === "stopped");
  if (stopped.length === 1) return stopped[0];
  if (live.length === 0) {
    // The last program's own session: a child's output mostly goes to its parent's.
    if (endedToo && all.length > 0) return all.filter((s) => s.parent === undefined).at(-1) ?? all[all.length - 1];
    throw new ToolError(all.length > 0 ? `Every session has ended (${names()}). Start a new one with start.` : "No debug session. Start one with start.");
  }
  throw new ToolError(`${live.length} sessions are live: ${names()}. Name the one you mean with session.`);
}

/** The thread a step or a stack means: the one that stopped. */
export function stoppedThread(session: AgentSession): number {
  const status = session.status;
  if (status.kind !== "stopped") throw notStopped(session);
  if (status.threadId === undefined) throw new ToolError("The stop named no thread; give thread (stack lists them per thread).");
  return status.threadId;
}

function notStopped(session: AgentSession): ToolError {
  if (session.status.kind === "ended") return new ToolError(`Session "${session.name}" has ended.`);
  return new ToolError(`Session "${session.name}" is running, not stopped. Call wait to wait for a breakpoint, or control with action pause.`);
}

/** The DAP frame id of the stopped thread's frame at index (0 = innermost). */
export async function frameIdOf(session: AgentSession, index: number): Promise<number> {
  const threadId = stoppedThread(session);
  const body = await session.request("stackTrace", { threadId, startFrame: index, levels: 1 });
  const frame = ((body.stackFrames ?? []) as { id: number }[])[0];
  if (frame === undefined) throw new ToolError(`There is no frame ${index}${typeof body.totalFrames === "number" ? `: the stack has ${body.totalFrames}` : ""}.`);
  return frame.id;
}

/** One line per session for the sessions tool: its name, parent and state, without asking it anything. */
export function describeSession(session: AgentSession, all: readonly AgentSession[], base: string): string {
  const parent = all.find((s) => s.id === session.parentId);
  const child = parent !== undefined ? `, child of "${parent.name}"` : "";
  return `"${session.name}"${child}: ${statusWord(session)}${session.status.kind === "stopped" && session.lastLocation ? ` at ${shortPath(session.lastLocation.file, base)}:${session.lastLocation.line}` : ""}`;
}

function statusWord(session: AgentSession): string {
  const status = session.status;
  switch (status.kind) {
    case "starting":
      return "starting";
    case "running":
      return "running";
    case "stopped":
      return `stopped (${status.reason}) in thread ${status.threadId ?? "?"}`;
    case "ended":
      return `ended${status.exitCode !== undefined ? ` with exit code ${status.exitCode}` : ""}`;
  }
}

/** Where a session is, for the tools that move it: the stop's reason and the innermost frame with its line. */
export async function describeStatus(session: AgentSession, base: string): Promise<string> {
  const status = session.status;
  // A child process's session says whose child it is: its name alone may not.
  const named = `Session "${session.name}"${session.parent !== undefined ? `, child of "${session.parent.name}",` : ""}`;
  if (status.kind === "ended") {
    const tail = session.outputSince(Math.max(0, session.outputEnd - 1000), 1000);
    const printed = tail.text.trim() === "" ? "" : `\nLast output:\n${tail.text.trimEnd()}`;
    return `${named} ${statusWord(session)}.${printed}`;
  }
  if (status.kind !== "stopped") return `${named} is ${statusWord(session)}.`;
  const lines = [`${named} ${statusWord(session)}${status.description && status.description !== status.reason ? `: ${clip(status.description, 300, "")}` : ""}.`];
  if (status.text) lines.push(clip(status.text, 1000, "evaluate the exception for more"));
  if (status.threadId !== undefined) {
    try {
      const body = await session.request("stackTrace", { threadId: status.threadId, startFrame: 0, levels: 1 });
      const frame = ((body.stackFrames ?? []) as { name: string; line: number; source?: { path?: string } }[])[0];
      const file = frame?.source?.path;
      if (frame !== undefined) {
        if (file !== undefined) session.lastLocation = { file, line: frame.line };
        const text = file !== undefined ? sourceLine(file, frame.line, 160) : undefined;
        lines.push(`At ${frame.name} in ${file !== undefined ? `${shortPath(file, base)}:${frame.line}` : "unknown source"}${text !== undefined ? `\n  ${frame.line} | ${text}` : ""}`);
      }
    } catch (error) {
      lines.push(`(the stack could not be read: ${(error as Error).message})`);
    }
  }
  return lines.join("\n");
}
