// What a tool of the agent's table is (its name, schema, confirmation and run), and the
// schema properties many tools share, so that each says the same of a session, a wait, a
// frame or a value's cut.

import { DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS } from "./waiting";
import type { Arguments, InputSchema } from "./arguments";
import type { AgentBackend } from "./backend";

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

export const sessionProperty = {
  type: "string",
  description: "The session's name (from dapper sessions). May be left out when only one session is live.",
} as const;
export const waitProperty = {
  type: "number",
  description: `Seconds to wait for the program to stop or end before answering (default ${DEFAULT_WAIT_SECONDS}, at most ${MAX_WAIT_SECONDS}; 0 answers at once).`,
  minimum: 0,
  maximum: MAX_WAIT_SECONDS,
} as const;
export const frameProperty = { type: "integer", description: "The frame's index in the stack: 0, the default, is the innermost.", minimum: 0, maximum: 10_000 } as const;
export const maxCharsProperty = (byDefault: number, most: number) =>
  ({ type: "integer", description: `Longest text of a value before it is cut, marked (default ${byDefault}, at most ${most}).`, minimum: 20, maximum: most }) as const;

