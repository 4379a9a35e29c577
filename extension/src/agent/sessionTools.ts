// The tools that list, start, read and end sessions: sessions, start, output and stop.

import * as fs from "fs";
import * as path from "path";
import { bool, num, str, strings, ToolError, type Arguments } from "./arguments";
import type { DebugConfiguration } from "./backend";
import { breakpointList } from "./breakpointTools";
import { clip, parsePythonCommand } from "./render";
import type { AgentSession } from "./session";
import { sessionProperty, waitProperty, type AgentTool } from "./toolDefinition";
import { afterWait, othersOf, secondsOf } from "./waiting";
import { describeSession, sessionArgument } from "./where";

export const sessions: AgentTool = {
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

export const start: AgentTool = {
  name: "start",
  title: "Start debugging a Python program",
  description:
    "Starts a debug session: give exactly one of program (a .py file), module, pytest (a test's node id), command (a command line such as 'python -m app --port 1') or pid (attach to a running Python). Set breakpoints first: they apply from the first line, in child processes too. Waits until the program or a child process it starts stops, or the program ends.",
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
    return afterWait(backend, session, new Map(), secondsOf(args), baseDirectory);
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

export const output: AgentTool = {
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

export const stop: AgentTool = {
  name: "stop",
  title: "End a debug session",
  description: "Ends a session: a program it started is stopped, one it attached to is left running.",
  inputSchema: { type: "object", properties: { session: sessionProperty }, additionalProperties: false },
  async run(args, { backend, baseDirectory }) {
    const session = sessionArgument(backend, str(args, "session"));
    await backend.end(session).catch(() => undefined);
    const outcome = await session.waitForStop(Number.MAX_SAFE_INTEGER, 5000);
    const said = outcome === "ended" ? `Session "${session.name}" ended.` : `Session "${session.name}" was told to end and has not yet; sessions shows when it has.`;
    return `${said}${othersOf(backend, session, baseDirectory)}`;
  },
};
