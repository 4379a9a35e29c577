// The agent's debugging tools: one table, served by the MCP server (mcp/server.ts) and,
// prefixed dapper_, by VS Code's language-model tools (vscode/agentTools.ts, whose
// package.json contributions a test keeps equal to this table). Each tool does one thing
// and answers in a few lines of plain text; every list is paged and every value is cut
// at a stated size, so no answer is ever unbounded.

import * as fs from "fs";
import * as path from "path";
import { checkArguments, num, str, strings, bool, ToolError, type Arguments, type InputSchema } from "./arguments";
import type { AgentBackend, Breakpoint, BreakpointOptions, DebugConfiguration, ListedBreakpoint } from "./backend";
import { clip, isEnvironmentType, looksSecret, MASKED, MASKED_ENVIRONMENT, parsePythonCommand, readLines, readsEnvironment, shortPath, sourceLine } from "./render";
import type { AgentSession } from "./session";
import { describeSession, describeStatus, frameIdOf, sessionArgument, stoppedThread } from "./where";

export interface ToolContext {
  backend: AgentBackend;
  /** Where relative paths start: the MCP server's working directory, or the workspace folder. */
  baseDirectory: string;
}

export interface AgentTool {
  name: string;
  title: string;
  description: string;
  inputSchema: InputSchema;
  /** Runs or starts code the user did not write here: VS Code asks the user first. */
  confirm?: (args: Arguments) => string;
  run(args: Arguments, context: ToolContext): Promise<string>;
}

/** The longest any wait may last, so no call outlives a client's own request timeout by much. */
export const MAX_WAIT_SECONDS = 300;
const DEFAULT_WAIT_SECONDS = 10;

const sessionProperty = {
  type: "string",
  description: "The session's name (from dapper sessions). May be left out when only one session is live.",
} as const;
const waitProperty = {
  type: "number",
  description: `Seconds to wait for the program to stop or end before answering (default ${DEFAULT_WAIT_SECONDS}, at most ${MAX_WAIT_SECONDS}; 0 answers at once).`,
  minimum: 0,
  maximum: MAX_WAIT_SECONDS,
} as const;
const frameProperty = { type: "integer", description: "The frame's index in the stack: 0, the default, is the innermost.", minimum: 0, maximum: 10_000 } as const;
const maxCharsProperty = (byDefault: number, most: number) =>
  ({ type: "integer", description: `Longest text of a value before it is cut, marked (default ${byDefault}, at most ${most}).`, minimum: 20, maximum: most }) as const;

const secondsOf = (args: Arguments, key = "wait"): number => Math.min(num(args, key) ?? DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS) * 1000;

/** The outcome of waiting, as the agent reads it: where the program is now. */
async function afterWait(session: AgentSession, stopsBefore: number, waitMs: number, base: string): Promise<string> {
  const outcome = await session.waitForStop(stopsBefore, waitMs);
  if (outcome === "timeout") {
    return `Session "${session.name}" is still running after ${waitMs / 1000} s. Call wait to wait longer, or control with action pause to stop it now.`;
  }
  return describeStatus(session, base);
}

const sessions: AgentTool = {
  name: "sessions",
  title: "List debug sessions and breakpoints",
  description: "Lists the debug sessions (children included, by name) with where each is stopped or whether it runs, and every breakpoint. Start here.",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  async run(_args, { backend, baseDirectory }) {
    const all = backend.sessions();
    const lines = all.length === 0 ? ["No debug session. Start one with start."] : all.map((session) => describeSession(session, all, baseDirectory));
    return [...lines, "", breakpointList(backend, baseDirectory)].join("\n");
  },
};

const start: AgentTool = {
  name: "start",
  title: "Start debugging a Python program",
  description:
    "Starts a debug session: give exactly one of program (a .py file), module, pytest (a test's node id), command (a command line such as 'python -m app --port 1') or pid (attach to a running Python). Set breakpoints first: they apply from the first line. Waits until the program stops or ends.",
  inputSchema: {
    type: "object",
    properties: {
      program: { type: "string", description: "A Python file to run." },
      module: { type: "string", description: "A module to run as python -m would." },
      pytest: { type: "string", description: "A pytest node id, such as tests/test_x.py::test_y, run under pytest." },
      command: { type: "string", description: "A command line: python [options] file|-m module|-c code [args], file.py [args], or pytest [args]." },
      pid: { type: "integer", description: "The process id of a running Python to attach to.", minimum: 1 },
      args: { type: "array", items: { type: "string" }, description: "The program's arguments." },
      cwd: { type: "string", description: "The working directory (default: the workspace or the server's)." },
      python: { type: "string", description: "The Python interpreter to use." },
      stopOnEntry: { type: "boolean", description: "Stop at the program's first line." },
      name: { type: "string", description: "A name for the session (default: from what it runs)." },
      wait: waitProperty,
    },
    additionalProperties: false,
  },
  confirm: (args) => `Run ${str(args, "command") ?? str(args, "program") ?? str(args, "module") ?? str(args, "pytest") ?? `attach to process ${num(args, "pid")}`} under the debugger?`,
  async run(args, { backend, baseDirectory }) {
    const configuration = startConfiguration(args, baseDirectory, backend.sessions());
    const session = await backend.start(configuration);
    return afterWait(session, 0, secondsOf(args), baseDirectory);
  },
};

/** The dapper configuration the start tool's arguments describe. */
export function startConfiguration(args: Arguments, baseDirectory: string, existing: readonly AgentSession[]): DebugConfiguration {
  const targets = ["program", "module", "pytest", "command", "pid"].filter((key) => args[key] !== undefined);
  if (targets.length !== 1) {
    throw new ToolError(`Give exactly one of program, module, pytest, command or pid${targets.length > 1 ? `, not ${targets.join(" and ")}` : ""}.`);
  }
  const unique = (wanted: string) => {
    let name = wanted;
    for (let n = 2; existing.some((session) => session.name === name); n++) name = `${wanted} (${n})`;
    return name;
  };
  const pid = num(args, "pid");
  if (pid !== undefined) return { type: "dapper", request: "attach", name: unique(str(args, "name") ?? `pid ${pid}`), processId: pid };
  const cwd = path.resolve(baseDirectory, str(args, "cwd") ?? ".");
  let what: { program?: string; module?: string; code?: string; python?: string; args: string[] };
  const pytest = str(args, "pytest");
  const command = str(args, "command");
  if (pytest !== undefined) what = { module: "pytest", args: [pytest] };
  else if (command !== undefined) {
    try {
      what = parsePythonCommand(command);
    } catch (error) {
      throw new ToolError(`Cannot start the command: ${(error as Error).message}.`);
    }
  } else what = { program: str(args, "program"), module: str(args, "module"), args: [] };
  if (what.program !== undefined) {
    what.program = path.resolve(cwd, what.program);
    if (!fs.existsSync(what.program)) throw new ToolError(`There is no file ${what.program}. Give a path relative to ${cwd}, or an absolute one.`);
  }
  const label = pytest ?? command ?? (what.program !== undefined ? path.basename(what.program) : what.module) ?? "program";
  const configuration: DebugConfiguration = {
    type: "dapper",
    request: "launch",
    name: unique(str(args, "name") ?? clip(label, 60, "named in full by the name argument")),
    cwd,
    args: [...what.args, ...(strings(args, "args") ?? [])],
    // The program's output comes back as output events, so the agent can read it.
    console: "internalConsole",
  };
  if (what.program !== undefined) configuration.program = what.program;
  if (what.module !== undefined) configuration.module = what.module;
  if (what.code !== undefined) configuration.code = what.code;
  const python = str(args, "python") ?? what.python;
  if (python !== undefined) configuration.python = python;
  if (bool(args, "stopOnEntry") === true) configuration.stopOnEntry = true;
  return configuration;
}

const setBreakpoint: AgentTool = {
  name: "set_breakpoint",
  title: "Set a breakpoint",
  description:
    "Sets a breakpoint in every session, now and later: at file+line, at the line of file whose text contains text (no line numbers needed), or at function (a Python function's name). Optional condition, hitCondition (such as '>5') and logMessage (a logpoint: prints, does not stop; {expr} interpolates).",
  inputSchema: {
    type: "object",
    properties: {
      file: { type: "string", description: "The source file (relative to the workspace or absolute)." },
      line: { type: "integer", description: "The 1-based line.", minimum: 1 },
      text: { type: "string", description: "Text of the line to break at; must match one line of file (with line, the match nearest to it)." },
      function: { type: "string", description: "A function's name, such as compute or module.Class.method." },
      condition: { type: "string", description: "A Python expression: stop only when true." },
      hitCondition: { type: "string", description: "Stop on the Nth hit: '5', '>5', '%3'." },
      logMessage: { type: "string", description: "Print this instead of stopping; {expression} is replaced by its value." },
    },
    additionalProperties: false,
  },
  async run(args, { backend, baseDirectory }) {
    const options = {
      ...(str(args, "condition") !== undefined ? { condition: str(args, "condition") } : {}),
      ...(str(args, "hitCondition") !== undefined ? { hitCondition: str(args, "hitCondition") } : {}),
      ...(str(args, "logMessage") !== undefined ? { logMessage: str(args, "logMessage") } : {}),
    };
    const functionName = str(args, "function");
    let breakpoint: Breakpoint;
    if (functionName !== undefined) {
      if (args.file !== undefined || args.line !== undefined || args.text !== undefined) throw new ToolError("Give function alone, or file with line or text.");
      breakpoint = { kind: "function", name: functionName, ...options };
    } else {
      const fileArgument = str(args, "file");
      if (fileArgument === undefined) throw new ToolError("Give file with line or text, or function.");
      const file = path.resolve(baseDirectory, fileArgument);
      const lines = readLines(file);
      if (lines === undefined) throw new ToolError(`Cannot read ${file}. Give a path relative to ${baseDirectory}, or an absolute one.`);
      const line = lineOf(lines, num(args, "line"), str(args, "text"), file);
      breakpoint = { kind: "line", file, line, ...options };
    }
    await backend.addBreakpoints([breakpoint]);
    return `Breakpoint set: ${describeBreakpoint(breakpoint, baseDirectory)}.\n\n${breakpointList(backend, baseDirectory)}`;
  },
};

function lineOf(lines: string[], line: number | undefined, text: string | undefined, file: string): number {
  if (text === undefined) {
    if (line === undefined) throw new ToolError("Give line or text with file.");
    if (line > lines.length) throw new ToolError(`${file} has ${lines.length} lines; line ${line} is past its end.`);
    return line;
  }
  const wanted = text.trim();
  if (wanted === "") throw new ToolError("text is empty; give some of the line's code.");
  const matches = lines.flatMap((content, index) => (content.includes(wanted) ? [index + 1] : []));
  if (matches.length === 0) throw new ToolError(`No line of ${file} contains ${JSON.stringify(wanted)}.`);
  if (matches.length === 1) return matches[0];
  if (line !== undefined) return matches.reduce((best, m) => (Math.abs(m - line) < Math.abs(best - line) ? m : best));
  const shown = matches.slice(0, 5).map((m) => `${m}: ${clip(lines[m - 1].trim(), 80, "")}`);
  throw new ToolError(`${matches.length} lines of ${path.basename(file)} contain ${JSON.stringify(wanted)}: ${shown.join("; ")}${matches.length > 5 ? "; …" : ""}. Give more of the line, or line to pick the nearest.`);
}

const removeBreakpoint: AgentTool = {
  name: "remove_breakpoint",
  title: "Remove breakpoints",
  description: "Removes breakpoints: those of file (at line, when given), the one at function, or all.",
  inputSchema: {
    type: "object",
    properties: {
      file: { type: "string", description: "Remove this file's breakpoints (at line only, when line is given)." },
      line: { type: "integer", description: "The 1-based line.", minimum: 1 },
      function: { type: "string", description: "Remove the breakpoint at this function." },
      all: { type: "boolean", description: "Remove every breakpoint." },
    },
    additionalProperties: false,
  },
  async run(args, { backend, baseDirectory }) {
    const fileArgument = str(args, "file");
    const file = fileArgument !== undefined ? path.resolve(baseDirectory, fileArgument) : undefined;
    const line = num(args, "line");
    const functionName = str(args, "function");
    if (bool(args, "all") !== true && file === undefined && functionName === undefined) throw new ToolError("Give file (and line), function, or all: true.");
    const removed = await backend.removeBreakpoints((b) =>
      bool(args, "all") === true ||
      (b.kind === "line" && file !== undefined && b.file === file && (line === undefined || b.line === line)) ||
      (b.kind === "function" && b.name === functionName),
    );
    return `${removed} breakpoint(s) removed.\n\n${breakpointList(backend, baseDirectory)}`;
  },
};

function describeBreakpoint(b: Breakpoint, base: string): string {
  const where = b.kind === "function" ? `function ${b.name}` : `${shortPath(b.file, base)}:${b.line}${lineText(b.file, b.line)}`;
  const extras = [b.condition && `if ${b.condition}`, b.hitCondition && `hits ${b.hitCondition}`, b.logMessage && `logs ${JSON.stringify(b.logMessage)}`].filter(Boolean);
  return extras.length > 0 ? `${where} (${extras.join(", ")})` : where;
}

const lineText = (file: string, line: number) => {
  const text = sourceLine(file, line, 80);
  return text === undefined ? "" : `  | ${text}`;
};

const MAX_LISTED_BREAKPOINTS = 50;

function breakpointList(backend: AgentBackend, base: string): string {
  const all = backend.listBreakpoints();
  if (all.length === 0) return "No breakpoints.";
  const lines = all.slice(0, MAX_LISTED_BREAKPOINTS).map((b) => {
    const state = b.verified === false ? ` — not yet bound${b.message ? `: ${clip(b.message, 200, "")}` : ""}` : "";
    return `  ${describeBreakpoint(b, base)}${state}`;
  });
  const more = all.length > MAX_LISTED_BREAKPOINTS ? [`  … and ${all.length - MAX_LISTED_BREAKPOINTS} more`] : [];
  return [`Breakpoints (${all.length}):`, ...lines, ...more].join("\n");
}

const control: AgentTool = {
  name: "control",
  title: "Continue, step, run to a line or pause",
  description:
    "Resumes or pauses a session: continue, next (step over), stepIn, stepOut, runTo (run until file's line, given by line or text; stops earlier at a breakpoint on the way), or pause. Then waits until it stops or ends and says where it is.",
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
    const before = session.stopCount;
    if (action === "pause") {
      if (session.status.kind === "stopped") return `${await describeStatus(session, baseDirectory)}\nIt is already stopped.`;
      const threads = (await session.request("threads")).threads as { id: number }[] | undefined;
      await session.request("pause", { threadId: num(args, "thread") ?? threads?.[0]?.id ?? 0 });
      return afterWait(session, before, Math.max(secondsOf(args), 5000), baseDirectory);
    }
    const threadId = num(args, "thread") ?? stoppedThread(session);
    session.markRunning();
    await session.request(action, { threadId });
    return afterWait(session, before, secondsOf(args), baseDirectory);
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
  const before = session.stopCount;
  session.markRunning();
  try {
    await session.request("continue", { threadId });
  } catch (error) {
    await restore();
    throw error;
  }
  const outcome = await session.waitForStop(before, secondsOf(args));
  if (outcome === "timeout") {
    void session.settled(before).then(restore, restore);
    const kept = stopsAlways ? "" : ` The temporary breakpoint at ${place} stays until the program stops, then goes.`;
    return `Session "${session.name}" is still running after ${secondsOf(args) / 1000} s.${kept} Call wait to wait longer, or control with action pause to stop it now.`;
  }
  await restore();
  const status = await describeStatus(session, base);
  const removed = stopsAlways ? "" : " (its temporary breakpoint is removed)";
  if (outcome === "ended") return `Did not reach ${place}${removed}.\n${status}`;
  const arrived = session.lastLocation?.file === file && session.lastLocation.line === line;
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

const wait: AgentTool = {
  name: "wait",
  title: "Wait for the program to stop",
  description: "Waits until the session stops (a breakpoint, a step, an exception) or ends, at most timeout seconds, and says where it is. Answers at once if it is stopped already.",
  inputSchema: {
    type: "object",
    properties: { session: sessionProperty, timeout: { ...waitProperty, description: `Seconds to wait at most (default ${DEFAULT_WAIT_SECONDS}, at most ${MAX_WAIT_SECONDS}).` } },
    additionalProperties: false,
  },
  async run(args, { backend, baseDirectory }) {
    const session = sessionArgument(backend, str(args, "session"));
    if (session.status.kind === "stopped") return describeStatus(session, baseDirectory);
    return afterWait(session, session.stopCount, secondsOf(args, "timeout"), baseDirectory);
  },
};

const MAX_FRAMES = 100;

const stack: AgentTool = {
  name: "stack",
  title: "Show the call stack",
  description: "Where the stopped program is: its frames, innermost first, each with function, file:line and that line's source.",
  inputSchema: {
    type: "object",
    properties: {
      session: sessionProperty,
      thread: { type: "integer", description: "The thread (default: the one that stopped).", minimum: 0 },
      start: { type: "integer", description: "The first frame to list (default 0).", minimum: 0 },
      levels: { type: "integer", description: `How many frames (default 20, at most ${MAX_FRAMES}).`, minimum: 1, maximum: MAX_FRAMES },
    },
    additionalProperties: false,
  },
  async run(args, { backend, baseDirectory }) {
    const session = sessionArgument(backend, str(args, "session"));
    const threadId = num(args, "thread") ?? stoppedThread(session);
    const startFrame = num(args, "start") ?? 0;
    const levels = num(args, "levels") ?? 20;
    const body = await session.request("stackTrace", { threadId, startFrame, levels });
    const frames = (body.stackFrames ?? []) as { name: string; line: number; source?: { path?: string; name?: string } }[];
    const total = typeof body.totalFrames === "number" ? body.totalFrames : undefined;
    const lines = frames.map((frame, i) => {
      const file = frame.source?.path;
      const where = file !== undefined ? `${shortPath(file, baseDirectory)}:${frame.line}` : (frame.source?.name ?? "no source");
      const text = file !== undefined ? sourceLine(file, frame.line, 120) : undefined;
      return `#${startFrame + i} ${frame.name}  ${where}${text !== undefined ? `\n     | ${text}` : ""}`;
    });
    const shown = `frames ${startFrame}–${startFrame + frames.length - 1}${total !== undefined ? ` of ${total}` : ""}`;
    const more = total !== undefined && startFrame + frames.length < total ? `; more with start=${startFrame + frames.length}` : "";
    return [`Thread ${threadId}, ${shown}${more}:`, ...lines].join("\n");
  },
};

interface DapVariable {
  name: string;
  value: string;
  type?: string;
  variablesReference?: number;
  namedVariables?: number;
  indexedVariables?: number;
  evaluateName?: string;
}

const MAX_COUNT = 200;
const MAX_LINES = 400;

const variables: AgentTool = {
  name: "variables",
  title: "Show variables",
  description:
    "The variables of a stopped frame (locals; globals with scope), or the items of one value (path: an expression such as data or data['key']), paged with start and count, nested to depth, each value cut at maxChars. Values of names that look like secrets and of environment variables are masked.",
  inputSchema: {
    type: "object",
    properties: {
      session: sessionProperty,
      frame: frameProperty,
      path: { type: "string", description: "An expression whose items to list instead of the frame's variables." },
      scope: { type: "string", description: "Which scope of the frame: Locals (default) or Globals." },
      start: { type: "integer", description: "The first item to list (default 0).", minimum: 0 },
      count: { type: "integer", description: `How many items (default 50, at most ${MAX_COUNT}).`, minimum: 1, maximum: MAX_COUNT },
      depth: { type: "integer", description: "Levels of nested items to open (default 1: none; at most 3; 10 items each).", minimum: 1, maximum: 3 },
      maxChars: maxCharsProperty(200, 5000),
    },
    additionalProperties: false,
  },
  async run(args, { backend }) {
    const session = sessionArgument(backend, str(args, "session"));
    const frameId = await frameIdOf(session, num(args, "frame") ?? 0);
    const start = num(args, "start") ?? 0;
    const count = num(args, "count") ?? 50;
    const depth = num(args, "depth") ?? 1;
    const maxChars = num(args, "maxChars") ?? 200;
    let reference: number;
    let title: string;
    let total: number | undefined;
    const expression = str(args, "path");
    let environment = false;
    if (expression !== undefined) {
      const result = await evaluateFor(session, expression, frameId, "watch");
      reference = typeof result.variablesReference === "number" ? result.variablesReference : 0;
      environment = backend.maskSecrets && (isEnvironmentType(result.type) || readsEnvironment(expression));
      if (reference === 0) return `${expression} = ${environment ? MASKED_ENVIRONMENT : clip(String(result.result), maxChars)} (no items to list)`;
      total = sumCounts(result);
      title = `${expression} (${String(result.type ?? "value")})`;
    } else {
      const scopes = ((await session.request("scopes", { frameId })).scopes ?? []) as { name: string; variablesReference: number; namedVariables?: number }[];
      const wanted = (str(args, "scope") ?? "Locals").toLowerCase();
      const scope = scopes.find((s) => s.name.toLowerCase().startsWith(wanted)) ?? (str(args, "scope") === undefined ? scopes[0] : undefined);
      if (scope === undefined) throw new ToolError(`No scope ${str(args, "scope")}; this frame has ${scopes.map((s) => s.name).join(", ")}.`);
      reference = scope.variablesReference;
      total = scope.namedVariables;
      title = `${scope.name} of frame ${num(args, "frame") ?? 0}`;
    }
    const lines: string[] = [];
    const items = await listVariables(session, reference, start, count);
    await renderVariables(session, items, 1, depth, maxChars, { secrets: backend.maskSecrets, environment }, lines);
    const totalText = total !== undefined ? ` of ${total}` : "";
    const range = items.length === 0 ? "none" : `${start}–${start + items.length - 1}${totalText}`;
    const more = total !== undefined ? start + items.length < total : items.length === count;
    const notes = [more ? `more with start=${start + items.length}` : "", lines.length > MAX_LINES ? `cut at ${MAX_LINES} lines` : ""].filter(Boolean);
    return [`${title}, items ${range}${notes.length ? ` (${notes.join("; ")})` : ""}:`, ...lines.slice(0, MAX_LINES)].join("\n");
  },
};

const sumCounts = (v: { namedVariables?: unknown; indexedVariables?: unknown }): number | undefined =>
  typeof v.namedVariables === "number" || typeof v.indexedVariables === "number" ? Number(v.namedVariables ?? 0) + Number(v.indexedVariables ?? 0) : undefined;

async function listVariables(session: AgentSession, reference: number, start: number, count: number): Promise<DapVariable[]> {
  const body = await session.request("variables", { variablesReference: reference, start, count });
  // A debuggee that ignores paging still gets no more than count shown.
  return ((body.variables ?? []) as DapVariable[]).slice(0, count);
}

/** What to mask: secret-looking names' values, and (items of the environment) every value. */
interface Masking {
  secrets: boolean;
  environment: boolean;
}

async function renderVariables(session: AgentSession, items: DapVariable[], level: number, depth: number, maxChars: number, mask: Masking, out: string[]): Promise<void> {
  const indent = "  ".repeat(level);
  for (const item of items) {
    if (out.length > MAX_LINES) return;
    const secret = mask.secrets && looksSecret(item.name);
    // The environment's names say what a program was given and are kept; its values are not.
    const environment = mask.secrets && (mask.environment || isEnvironmentType(item.type));
    const children = sumCounts(item);
    const size = children !== undefined && children > 0 ? `, ${children} items` : "";
    const open = !secret && (item.variablesReference ?? 0) > 0 && level >= depth && item.evaluateName ? `; open with path=${JSON.stringify(item.evaluateName)}` : "";
    const value = secret ? MASKED : environment ? MASKED_ENVIRONMENT : clip(item.value, maxChars);
    out.push(`${indent}${item.name}${item.type ? ` (${item.type}${size}${open})` : ""} = ${value}`);
    if (!secret && level < depth && (item.variablesReference ?? 0) > 0) {
      const nested = await listVariables(session, item.variablesReference as number, 0, 10);
      await renderVariables(session, nested, level + 1, depth, maxChars, { secrets: mask.secrets, environment }, out);
      if (children !== undefined && children > nested.length) out.push(`${indent}  … ${children - nested.length} more${item.evaluateName ? ` (path=${JSON.stringify(item.evaluateName)})` : ""}`);
    }
  }
}

async function evaluateFor(session: AgentSession, expression: string, frameId: number, context: string): Promise<Record<string, unknown>> {
  try {
    return await session.request("evaluate", { expression, frameId, context });
  } catch (error) {
    throw new ToolError(`Evaluating ${clip(expression, 200, "")} failed: ${clip((error as Error).message, 1000, "")}`);
  }
}

const evaluate: AgentTool = {
  name: "evaluate",
  title: "Evaluate Python in a stopped frame",
  description: "Runs a Python expression or statement in a stopped frame, as the debug console would (assignments stay), and shows its value cut at maxChars. Its items can then be listed with variables and path.",
  inputSchema: {
    type: "object",
    properties: {
      expression: { type: "string", description: "The Python expression or statement." },
      session: sessionProperty,
      frame: frameProperty,
      maxChars: maxCharsProperty(2000, 20000),
    },
    required: ["expression"],
    additionalProperties: false,
  },
  confirm: (args) => `Run this Python code in the debugged program?\n\n${clip(String(args.expression), 500, "")}`,
  async run(args, { backend }) {
    const session = sessionArgument(backend, str(args, "session"));
    const expression = str(args, "expression") as string;
    const frameId = await frameIdOf(session, num(args, "frame") ?? 0);
    const result = await evaluateFor(session, expression, frameId, "repl");
    const bareName = /^\s*[A-Za-z_][A-Za-z0-9_.]*\s*$/.test(expression) ? expression.trim().split(".").pop() ?? "" : "";
    const masked = !backend.maskSecrets ? undefined : bareName !== "" && looksSecret(bareName) ? MASKED : isEnvironmentType(result.type) || readsEnvironment(expression) ? MASKED_ENVIRONMENT : undefined;
    const text = masked ?? clip(String(result.result ?? ""), num(args, "maxChars") ?? 2000);
    const children = sumCounts(result);
    const hint = typeof result.variablesReference === "number" && result.variablesReference > 0 ? `\n(${result.type ?? "value"}${children ? ` with ${children} items` : ""}: list them with variables, path=${JSON.stringify(expression.trim())})` : "";
    return `${text === "" ? "(no value)" : text}${hint}`;
  },
};

const output: AgentTool = {
  name: "output",
  title: "Read the program's output",
  description: "What the program printed (stdout, stderr) and the debugger's messages, from offset since (0 = the start), at most maxChars; the answer gives the offset to ask from next.",
  inputSchema: {
    type: "object",
    properties: {
      session: sessionProperty,
      since: { type: "integer", description: "The offset to read from, as a previous answer gave it (default 0).", minimum: 0 },
      maxChars: { type: "integer", description: "Most characters to return (default 4000, at most 20000).", minimum: 1, maximum: 20000 },
    },
    additionalProperties: false,
  },
  async run(args, { backend }) {
    const session = sessionArgument(backend, str(args, "session"), true);
    const read = session.outputSince(num(args, "since") ?? 0, num(args, "maxChars") ?? 4000);
    const dropped = read.dropped > 0 ? ` (${read.dropped} older characters were dropped)` : "";
    const more = read.more > 0 ? `; ${read.more} more characters: call again with since=${read.next}` : `; next since=${read.next}`;
    return `${read.text === "" ? "(no output)" : read.text}\n[output ${read.from}–${read.next}${dropped}${more}]`;
  },
};

const hotReload: AgentTool = {
  name: "hot_reload",
  title: "Hot reload a file",
  description: "After editing a file, patches the running program's functions with the file's new code without re-running it (module state is kept). Then restart_frame re-runs a stopped function with the new code.",
  inputSchema: { type: "object", properties: { file: { type: "string", description: "The edited Python file." }, session: sessionProperty }, required: ["file"], additionalProperties: false },
  async run(args, { backend, baseDirectory }) {
    const session = sessionArgument(backend, str(args, "session"));
    const file = path.resolve(baseDirectory, str(args, "file") as string);
    const body = await session.request("dapper/hotReload", { source: { path: file } });
    return `Reloaded ${shortPath(file, baseDirectory)}: ${clip(JSON.stringify(body), 1500, "the full report is in the debug console")}`;
  },
};

const restartFrame: AgentTool = {
  name: "restart_frame",
  title: "Restart a frame",
  description: "Runs a stopped function again from its first line, with its current code (after hot_reload: the new code) and its original arguments; the frames above it unwind.",
  inputSchema: { type: "object", properties: { frame: frameProperty, session: sessionProperty, wait: waitProperty }, additionalProperties: false },
  async run(args, { backend, baseDirectory }) {
    const session = sessionArgument(backend, str(args, "session"));
    const frameId = await frameIdOf(session, num(args, "frame") ?? 0);
    const before = session.stopCount;
    await session.request("restartFrame", { frameId });
    return afterWait(session, before, secondsOf(args), baseDirectory);
  },
};

const stop: AgentTool = {
  name: "stop",
  title: "End a debug session",
  description: "Ends a session: a program it started is stopped, one it attached to is left running.",
  inputSchema: { type: "object", properties: { session: sessionProperty }, additionalProperties: false },
  async run(args, { backend }) {
    const session = sessionArgument(backend, str(args, "session"));
    await backend.end(session).catch(() => undefined);
    const outcome = await session.waitForStop(Number.MAX_SAFE_INTEGER, 5000);
    return outcome === "ended" ? `Session "${session.name}" ended.` : `Session "${session.name}" was told to end and has not yet; sessions shows when it has.`;
  },
};

export const AGENT_TOOLS: readonly AgentTool[] = [sessions, start, setBreakpoint, removeBreakpoint, control, wait, stack, variables, evaluate, output, hotReload, restartFrame, stop];

/** Runs a tool with its arguments checked; a ToolError or a session's refusal comes back as text for the caller. */
export async function runTool(tool: AgentTool, input: unknown, context: ToolContext): Promise<{ text: string; isError: boolean }> {
  try {
    const args = checkArguments(tool.inputSchema, input);
    return { text: await tool.run(args, context), isError: false };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { text: clip(message, 4000, "the rest is in the log"), isError: true };
  }
}
