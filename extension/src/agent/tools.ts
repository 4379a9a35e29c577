// The agent's debugging tools: one table, served by the MCP server (mcp/server.ts) and,
// prefixed dapper_, by VS Code's language-model tools (vscode/agentTools.ts, whose
// package.json contributions a test keeps equal to this table). Each tool does one thing
// and answers in a few lines of plain text; every list is paged and every value is cut
// at a stated size, so no answer is ever unbounded.
// The tools are defined by what they do: sessionTools (sessions, start, output, stop),
// breakpointTools, controlTools (control, wait), inspectionTools (stack, variables,
// evaluate) and hotReloadTools (hot_reload, restart_frame).

import { checkArguments } from "./arguments";
import { removeBreakpoint, setBreakpoint } from "./breakpointTools";
import { control, wait } from "./controlTools";
import { hotReload, restartFrame } from "./hotReloadTools";
import { evaluate, stack, variables } from "./inspectionTools";
import { clip } from "./render";
import { output, sessions, start, stop } from "./sessionTools";
import type { AgentTool, ToolContext } from "./toolDefinition";

export type { AgentTool, ToolContext } from "./toolDefinition";

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
