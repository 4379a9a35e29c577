// The tools that move a stopped program and wait for it: control (continue, step, run to
// a line, pause) and wait.

import * as path from "path";
import { num, str, ToolError, type Arguments } from "./arguments";
import type { AgentBackend, Breakpoint, BreakpointOptions, ListedBreakpoint } from "./backend";
import { lineOf } from "./breakpointTools";
import { readLines, shortPath } from "./render";
import type { AgentSession } from "./session";
import { sessionProperty, waitProperty, type AgentTool } from "./toolDefinition";
import { afterWait, DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS, othersOf, secondsOf, stopCounts, waitForProgram } from "./waiting";
import { describeStatus, sessionArgument, stoppedThread } from "./where";

export const control: AgentTool = {
  name: "control",
  title: "Continue, step, run to a line or pause",
  description:
    "Resumes or pauses a session: continue, next (step over), stepIn, stepOut, runTo (run until file's line, given by line or text; stops earlier at a breakpoint on the way), or pause. Then waits until it, or a child process's session of its program, stops, or it ends, and says where.",
  inputSchema: {
    type: "object",
    properties: {
      action: { type: "string", enum: ["continue", "next", "stepIn", "stepOut", "runTo", "pause"], description: "What to do." },
      session: sessionProperty,
      thread: { type: "integer", description: "The thread to step (default: the one that stopped).", minimum: 0 },
      file: { type: "string", description: "runTo: the source file of the line to run to." },
      line: { type: "integer", description: "runTo: the 1-based line to run to.", minimum: 1 },
      text: { type: "string", description: "runTo: text of the line to run to, instead of its number (with line, the match nearest to it)." },
      wait: waitProperty,
    },
    required: ["action"],
    additionalProperties: false,
  },
  async run(args, { backend, baseDirectory }) {
    const session = sessionArgument(backend, str(args, "session"));
    const action = str(args, "action") as string;
    if (action === "runTo") return runTo(session, args, backend, baseDirectory);
    if (args.file !== undefined || args.line !== undefined || args.text !== undefined) throw new ToolError("file, line and text go with action runTo only.");
    const before = stopCounts(backend, session);
    if (action === "pause") {
      if (session.status.kind === "stopped") return `${await describeStatus(session, baseDirectory)}\nIt is already stopped.`;
      const threads = (await session.request("threads")).threads as { id: number }[] | undefined;
      await session.request("pause", { threadId: num(args, "thread") ?? threads?.[0]?.id ?? 0 });
      return afterWait(backend, session, before, Math.max(secondsOf(args), 5000), baseDirectory);
    }
    const threadId = num(args, "thread") ?? stoppedThread(session);
    session.markRunning();
    await session.request(action, { threadId });
    return afterWait(backend, session, before, secondsOf(args), baseDirectory);
  },
};

/**
 * Runs to a line as an editor's Run to Cursor does: a breakpoint there while the program
 * runs, taken away at the next stop (there or anywhere else) or the end, even when that
 * comes after the tool has answered. Breakpoints are one a place, so a breakpoint of the
 * user's already there that would not stop every time (a condition, a hit count, a
 * logpoint, unticked) is replaced by a plain one for the run and then put back as it was;
 * a plain one of theirs is left alone to do the stopping.
 */
async function runTo(session: AgentSession, args: Arguments, backend: AgentBackend, base: string): Promise<string> {
  const fileArgument = str(args, "file");
  if (fileArgument === undefined) throw new ToolError("runTo needs file with line or text: the line to run to.");
  const file = path.resolve(base, fileArgument);
  const lines = readLines(file);
  if (lines === undefined) throw new ToolError(`Cannot read ${file}. Give a path relative to ${base}, or an absolute one.`);
  const line = lineOf(lines, num(args, "line"), str(args, "text"), file);
  const threadId = num(args, "thread") ?? stoppedThread(session);
  const here = (b: Breakpoint) => b.kind === "line" && b.file === file && b.line === line;
  const own = backend.listBreakpoints().find(here);
  const stopsAlways = own !== undefined && own.enabled !== false && !own.condition && !own.hitCondition && !own.logMessage;
  const place = `${shortPath(file, base)}:${line}`;
  let restore = async (): Promise<void> => undefined;
  if (!stopsAlways) {
    const temporary: Breakpoint = { kind: "line", file, line };
    await backend.addBreakpoints([temporary]);
    restore = async () => {
      const now = backend.listBreakpoints().find(here);
      // Someone (the user) set that place again meanwhile: theirs stays.
      if (now === undefined || now.condition || now.hitCondition || now.logMessage || now.enabled === false) return;
      if (own !== undefined) await backend.addBreakpoints([asAsked(own)]);
      else await backend.removeBreakpoints(here);
    };
  }
  const before = stopCounts(backend, session);
  session.markRunning();
  try {
    await session.request("continue", { threadId });
  } catch (error) {
    await restore();
    throw error;
  }
  const waited = await waitForProgram(backend, session, before, secondsOf(args));
  if (waited === "timeout") {
    void waitForProgram(backend, session, before, Infinity).then(restore, restore);
    const kept = stopsAlways ? "" : ` The temporary breakpoint at ${place} stays until the program stops, then goes.`;
    return `Session "${session.name}" is still running after ${secondsOf(args) / 1000} s.${kept} Call wait to wait longer, or control with action pause to stop it now.`;
  }
  await restore();
  const status = `${await describeStatus(waited.session, base)}${othersOf(backend, waited.session, base)}`;
  const removed = stopsAlways ? "" : " (its temporary breakpoint is removed)";
  if (waited.outcome === "ended") return `Did not reach ${place}${removed}.\n${status}`;
  const arrived = waited.session === session && session.lastLocation?.file === file && session.lastLocation.line === line;
  return `${arrived ? `Ran to ${place}.` : `Stopped before reaching ${place}${removed}.`}\n${status}`;
}

/** A listed breakpoint as it was asked for, without what the debuggee said of it. */
function asAsked(b: ListedBreakpoint): Breakpoint {
  const options: BreakpointOptions = {};
  if (b.condition !== undefined) options.condition = b.condition;
  if (b.hitCondition !== undefined) options.hitCondition = b.hitCondition;
  if (b.logMessage !== undefined) options.logMessage = b.logMessage;
  if (b.enabled !== undefined) options.enabled = b.enabled;
  return b.kind === "line" ? { kind: "line", file: b.file, line: b.line, ...options } : { kind: "function", name: b.name, ...options };
}

export const wait: AgentTool = {
  name: "wait",
  title: "Wait for the program to stop",
  description: "Waits until the session or a child process's session of its program stops (a breakpoint, a step, an exception), or the session ends, at most timeout seconds, and says where. Answers at once if the session is stopped already.",
  inputSchema: {
    type: "object",
    properties: { session: sessionProperty, timeout: { ...waitProperty, description: `Seconds to wait at most (default ${DEFAULT_WAIT_SECONDS}, at most ${MAX_WAIT_SECONDS}).` } },
    additionalProperties: false,
  },
  async run(args, { backend, baseDirectory }) {
    const session = sessionArgument(backend, str(args, "session"));
    if (session.status.kind === "stopped") return describeStatus(session, baseDirectory);
    return afterWait(backend, session, stopCounts(backend, session), secondsOf(args, "timeout"), baseDirectory);
  },
};
