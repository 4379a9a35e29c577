// The VS Code extension: one engine host for the whole extension host, shared by every
// Dapper debug session, hosted inline (no adapter process).

import * as vscode from "vscode";
import { pythonPackageDirOf } from "./extensionRoot";
import { EngineHost } from "./host/host";
import { createWasmEngine } from "./host/wasm";
import { VsCodeSessions } from "./vscode/agentSessions";
import { registerAgentTools } from "./vscode/agentTools";
import { registerAttachCommands } from "./vscode/attachCommands";
import { registerAutoAttach } from "./vscode/autoAttach";
import { DapperConfigurationProvider } from "./vscode/configurationProvider";
import { DebuggedProcesses } from "./vscode/debuggedProcesses";
import { registerDebugpyConfigurations } from "./vscode/debugpyConfigurations";
import { exitCodeReporter } from "./vscode/exitCode";
import { registerFileCommands } from "./vscode/fileCommands";
import { DEBUG_TYPE, dynamicConfigurations } from "./vscode/fileConfiguration";
import { registerHotReload } from "./vscode/hotReload";
import { InlineDebugAdapter } from "./vscode/inlineAdapter";
import { channelLogger } from "./vscode/logChannel";
import { pickProcessConfiguration } from "./vscode/processChoice";
import { registerReplayCommand, sessionLogOpener } from "./vscode/sessionLogs";
import { registerTasksView } from "./vscode/tasksView";

let host: EngineHost | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const logger = channelLogger(context);

  const version = String(context.extension.packageJSON.version ?? "0.0.0");
  // The engine is created on first use, so activating the extension costs nothing.
  const engineHost = (): EngineHost =>
    (host ??= new EngineHost({
      createEngine: createWasmEngine,
      logger,
      pythonPackageDir: pythonPackageDirOf(context.extensionPath),
      adapterVersion: version,
      openSessionLog: sessionLogOpener(context, logger),
    }));

  // If the extension host exits without deactivating, debuggees that lead their own
  // process groups would outlive it; this is the last chance to stop them.
  const killOnExit = () => host?.killAllProcesses();
  process.once("exit", killOnExit);
  context.subscriptions.push({ dispose: () => process.removeListener("exit", killOnExit) });

  const debugged = new DebuggedProcesses();
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, {
      createDebugAdapterDescriptor: () => new vscode.DebugAdapterInlineImplementation(new InlineDebugAdapter(engineHost())),
    }),
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, new DapperConfigurationProvider(logger)),
    vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, exitCodeReporter()),
    // "Dapper: Current File" and "Dapper: Attach to Process" in the Run and Debug view's
    // list, with or without launch.json.
    vscode.debug.registerDebugConfigurationProvider(
      DEBUG_TYPE,
      { provideDebugConfigurations: () => [...dynamicConfigurations(), pickProcessConfiguration()] },
      vscode.DebugConfigurationProviderTriggerKind.Dynamic,
    ),
    // debugpy's configurations, when dapper.debugpyConfigurations lets Dapper run them.
    ...registerDebugpyConfigurations(context, logger),
    ...registerFileCommands(),
    ...registerHotReload(),
    // The asyncio tasks of the paused program, in Run and Debug.
    ...registerTasksView(),
    ...debugged.register(),
    ...registerAttachCommands(debugged),
    ...registerAutoAttach(context, pythonPackageDirOf(context.extensionPath), logger),
    ...registerReplayCommand(context),
    // Debugging tools for agent mode, on the user's own sessions, and the MCP server.
    ...registerAgentTools(context, new VsCodeSessions()),
  );
}

export function deactivate(): void {
  host?.dispose();
  host = undefined;
}
