// Registers the agent's tools with VS Code: each as a language-model tool acting on the
// user's own debug sessions (agentSessions.ts), and `node dist/adapter.js --mcp` as an MCP
// server definition. Both APIs are newer than the VS Code this extension supports
// (vscode.lm.registerTool from 1.95, registerMcpServerDefinitionProvider from 1.101) and
// than the @types/vscode it builds against, so they are found at run time and declared
// here; on an older VS Code nothing is registered and nothing else changes.

import * as path from "path";
import * as vscode from "vscode";
import { MCP_PROVIDER_ID, VSCODE_TOOL_PREFIX } from "../agent/contributions";
import type * as AgentToolsModule from "../agent/tools";
import type { VsCodeSessions } from "./agentSessions";

/**
 * The tools' table and code, dist/agent.js beside this bundle, loaded at the first tool
 * call rather than at activation: Dapper activates at every VS Code start, most windows
 * never see an agent, and loading it with the extension cost as much as a third more of
 * the bundle to read. The names to register come from package.json, which a test keeps
 * equal to the table. Its sessions' tracking (agentSessions.ts) stays here: an agent
 * must find the sessions that began before its first call.
 */
let agentTools: typeof AgentToolsModule | undefined;
function loadAgentTools(): typeof AgentToolsModule {
  // A path the bundler leaves alone, so the tools stay out of dist/extension.js.
  const file = path.join(__dirname, "agent.js");
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load, on purpose
  agentTools ??= require(file) as typeof AgentToolsModule;
  return agentTools;
}

interface ToolInvocation {
  input: unknown;
}

interface LanguageModelApi {
  registerTool?(
    name: string,
    tool: {
      invoke(options: ToolInvocation, token: vscode.CancellationToken): Promise<unknown>;
      prepareInvocation?(options: ToolInvocation): { invocationMessage?: string; confirmationMessages?: { title: string; message: string } };
    },
  ): vscode.Disposable;
  registerMcpServerDefinitionProvider?(id: string, provider: { provideMcpServerDefinitions(): unknown[] }): vscode.Disposable;
}

interface NewerVsCode {
  lm?: LanguageModelApi;
  LanguageModelToolResult?: new (content: unknown[]) => unknown;
  LanguageModelTextPart?: new (text: string) => unknown;
  McpStdioServerDefinition?: new (label: string, command: string, args: string[], env?: Record<string, string>, version?: string) => unknown;
}

export function registerAgentTools(context: vscode.ExtensionContext, sessions: VsCodeSessions): vscode.Disposable[] {
  const api = vscode as unknown as NewerVsCode;
  const lm = api.lm;
  const disposables: vscode.Disposable[] = [];
  const { LanguageModelToolResult, LanguageModelTextPart, McpStdioServerDefinition } = api;
  if (typeof lm?.registerTool === "function" && LanguageModelToolResult !== undefined && LanguageModelTextPart !== undefined) {
    disposables.push(...sessions.register());
    const baseDirectory = () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
    const declared = (context.extension.packageJSON?.contributes?.languageModelTools ?? []) as { name?: unknown }[];
    for (const name of declared.map((tool) => String(tool.name)).filter((name) => name.startsWith(VSCODE_TOOL_PREFIX))) {
      const toolOf = () => {
        const tool = loadAgentTools().AGENT_TOOLS.find((t) => VSCODE_TOOL_PREFIX + t.name === name);
        if (tool === undefined) throw new Error(`Dapper has no tool ${name}.`);
        return tool;
      };
      disposables.push(
        lm.registerTool(name, {
          invoke: async (options) => {
            const result = await loadAgentTools().runTool(toolOf(), options.input, { backend: sessions, baseDirectory: baseDirectory() });
            return new LanguageModelToolResult([new LanguageModelTextPart(result.isError ? `Error: ${result.text}` : result.text)]);
          },
          // Starting a program and running code in it are what VS Code asks the user to confirm.
          prepareInvocation: (options) => {
            const tool = toolOf();
            return {
              invocationMessage: tool.title,
              ...(tool.confirm !== undefined ? { confirmationMessages: { title: `Dapper: ${tool.title}`, message: tool.confirm((options.input ?? {}) as Record<string, unknown>) } } : {}),
            };
          },
        }),
      );
    }
  }
  if (typeof lm?.registerMcpServerDefinitionProvider === "function" && McpStdioServerDefinition !== undefined) {
    const adapter = path.join(context.extensionPath, "dist", "adapter.js");
    const version = String(context.extension.packageJSON.version ?? "0.0.0");
    disposables.push(
      lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
        // VS Code's own executable runs the adapter as Node (ELECTRON_RUN_AS_NODE), so no
        // Node.js installation is needed.
        provideMcpServerDefinitions: () => [new McpStdioServerDefinition("Dapper Python debugger", process.execPath, [adapter, "--mcp"], { ELECTRON_RUN_AS_NODE: "1" }, version)],
      }),
    );
  }
  return disposables;
}

