// The tools that read a stopped program: stack, variables and evaluate. Lists are paged,
// values cut at maxChars, and secrets and the environment's values masked.

import { num, str, ToolError } from "./arguments";
import { clip, isEnvironmentType, looksSecret, MASKED, MASKED_ENVIRONMENT, readsEnvironment, shortPath, sourceLine } from "./render";
import type { AgentSession } from "./session";
import { frameProperty, maxCharsProperty, sessionProperty, type AgentTool } from "./toolDefinition";
import { frameIdOf, sessionArgument, stoppedThread } from "./where";

const MAX_FRAMES = 100;
/** Other threads named under a stack, at most. */
const MAX_THREADS_LISTED = 20;

export const stack: AgentTool = {
  name: "stack",
  title: "Show the call stack",
  description: "Where the stopped program is: its frames, innermost first, each with function, file:line and that line's source, and the process's other threads.",
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
    const [body, threads] = await Promise.all([session.request("stackTrace", { threadId, startFrame, levels }), session.request("threads")]);
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
    const all = (threads.threads ?? []) as { id: number; name: string }[];
    const named = (thread: { id: number; name: string }) => `${thread.id} ${JSON.stringify(clip(thread.name, 60, ""))}`;
    const own = all.find((thread) => thread.id === threadId);
    const others = all.filter((thread) => thread.id !== threadId);
    const listed = others.slice(0, MAX_THREADS_LISTED).map(named).join(", ") + (others.length > MAX_THREADS_LISTED ? `, … and ${others.length - MAX_THREADS_LISTED} more` : "");
    const otherLine = others.length > 0 ? [`Other threads: ${listed}; give thread for one's stack.`] : [];
    return [`Thread ${own !== undefined ? named(own) : threadId}, ${shown}${more}:`, ...lines, ...otherLine].join("\n");
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

export const variables: AgentTool = {
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

export const evaluate: AgentTool = {
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
