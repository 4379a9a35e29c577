// `node dist/adapter.js --mcp`: the agent's tools (agent/tools.ts) served over the Model
// Context Protocol on stdin/stdout, with the official SDK's low-level server. The tools'
// JSON schemas are the table's own, shared with VS Code's language-model tools, so the
// SDK's zod-based registration is not used; arguments are checked by the table.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { AgentBackend } from "../agent/backend";
import { AGENT_TOOLS, runTool } from "../agent/tools";
import type { Logger } from "../log";

export const MCP_SERVER_INSTRUCTIONS =
  "Debug Python programs: set_breakpoint, then start; at a stop use stack, variables and evaluate; control steps or continues; wait waits for the next stop. Results are short and bounded; each says how to see more.";

/** Serves the tools on stdio; resolves once the client has gone. */
export async function serveMcp(backend: AgentBackend, baseDirectory: string, version: string, logger: Logger): Promise<void> {
  const server = new Server({ name: "dapper", title: "Dapper Python debugger", version }, { capabilities: { tools: {} }, instructions: MCP_SERVER_INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: AGENT_TOOLS.map((tool) => ({ name: tool.name, title: tool.title, description: tool.description, inputSchema: { ...tool.inputSchema, properties: { ...tool.inputSchema.properties } } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = AGENT_TOOLS.find((t) => t.name === request.params.name);
    if (tool === undefined) {
      return { content: [{ type: "text", text: `There is no tool ${request.params.name}. Tools: ${AGENT_TOOLS.map((t) => t.name).join(", ")}.` }], isError: true };
    }
    logger.debug(`MCP tool ${tool.name} ${JSON.stringify(request.params.arguments ?? {})}`);
    const result = await runTool(tool, request.params.arguments, { backend, baseDirectory });
    return { content: [{ type: "text", text: result.text }], isError: result.isError };
  });
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  await server.connect(new StdioServerTransport());
  await closed;
}
