// The tools as VS Code's language-model tools: their names (prefixed, since VS Code's
// tool names are global) and the package.json contribution that declares them, which a
// test keeps equal to the table.

import type { AgentTool } from "./toolDefinition";

export const VSCODE_TOOL_PREFIX = "dapper_";

/** The MCP server definition's id in package.json's mcpServerDefinitionProviders. */
export const MCP_PROVIDER_ID = "dapper.mcpServer";

export function languageModelToolContribution(tool: AgentTool): Record<string, unknown> {
  return {
    name: VSCODE_TOOL_PREFIX + tool.name,
    displayName: `Dapper: ${tool.title}`,
    toolReferenceName: VSCODE_TOOL_PREFIX + tool.name,
    canBeReferencedInPrompt: true,
    icon: "$(debug)",
    userDescription: tool.title,
    modelDescription: tool.description,
    tags: ["debug", "python", "dapper"],
    inputSchema: tool.inputSchema,
  };
}
