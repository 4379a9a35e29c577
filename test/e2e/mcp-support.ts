// The MCP server's end-to-end tests' client: the official MCP SDK's, a client nobody here
// wrote, connected to a fresh `node dist/adapter.js --mcp`.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import assert from "node:assert/strict";
import { adapterScript } from "./support";

export type Answer = { text: string; isError: boolean };

/** An MCP client connected to a fresh `dist/adapter.js --mcp`, working in `cwd`. */
export async function connect(cwd: string, env: Record<string, string> = {}): Promise<{ call(name: string, args?: Record<string, unknown>): Promise<Answer>; client: Client; close(): Promise<void> }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [adapterScript, "--mcp"], cwd, env: { ...process.env, DAPPER_LOG_LEVEL: "warn", ...env } as Record<string, string>, stderr: "inherit" });
  const client = new Client({ name: "dapper-e2e", version: "1.0.0" });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Answer> => {
    const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as { content: { type: string; text: string }[]; isError?: boolean };
    return { text: result.content.map((part) => part.text).join(""), isError: result.isError === true };
  };
  return { call, client, close: () => client.close() };
}

export const ok = (answer: Answer): string => {
  assert.equal(answer.isError, false, `the tool failed: ${answer.text}`);
  return answer.text;
};
