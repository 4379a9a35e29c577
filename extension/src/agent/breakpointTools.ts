// The tools that set and remove breakpoints, how a call names a line (by number or by its
// text), and the breakpoint list their answers and the sessions tool end with.

import * as path from "path";
import { bool, num, str, ToolError } from "./arguments";
import type { AgentBackend, Breakpoint } from "./backend";
import { clip, readLines, shortPath, sourceLine } from "./render";
import type { AgentTool } from "./toolDefinition";

export const setBreakpoint: AgentTool = {
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

export function lineOf(lines: string[], line: number | undefined, text: string | undefined, file: string): number {
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

export const removeBreakpoint: AgentTool = {
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

export function breakpointList(backend: AgentBackend, base: string): string {
  const all = backend.listBreakpoints();
  if (all.length === 0) return "No breakpoints.";
  const lines = all.slice(0, MAX_LISTED_BREAKPOINTS).map((b) => {
    const state = b.verified === false ? ` — not yet bound${b.message ? `: ${clip(b.message, 200, "")}` : ""}` : "";
    return `  ${describeBreakpoint(b, base)}${state}`;
  });
  const more = all.length > MAX_LISTED_BREAKPOINTS ? [`  … and ${all.length - MAX_LISTED_BREAKPOINTS} more`] : [];
  return [`Breakpoints (${all.length}):`, ...lines, ...more].join("\n");
}
