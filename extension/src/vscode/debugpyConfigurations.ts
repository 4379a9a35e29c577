// `dapper.debugpyConfigurations`: Dapper runs the configurations written for debugpy.
//
// VS Code resolves a configuration by calling every provider registered for its type, in
// the order they were registered, and when one changes the type it goes on with the
// providers of the new type (debugConfigurationManager.ts, resolveConfigurationByProviders).
// So a provider for `debugpy` and `python` that turns the type into `dapper` hands the
// session to Dapper's adapter, whoever else resolves the configuration: the Python
// Debugger's own provider may run before or after this one, and what it adds is debugpy
// options the engine translates. The variables-substituted stage only asks the providers
// of the final type, Dapper's, which picks the interpreter as for its own configurations.

import * as vscode from "vscode";
import { DEBUGPY_TYPES } from "../host/debugpy";
import type { Logger } from "../log";
import { decide, handOver, isDebugpyConfiguration, withTestConfiguration, type DebugpyChoice } from "./debugpyHandover";
import type { LaunchConfiguration } from "./fileConfiguration";

/** The setting, under the `dapper` section. */
export const DEBUGPY_SETTING = "debugpyConfigurations";
/** The Python Debugger extension, which runs debugpy configurations without Dapper. */
const DEBUGPY_EXTENSION_ID = "ms-python.debugpy";
/** Where the workspace's answer to the question is kept. */
const CHOICE_KEY = "dapper.debugpyConfigurations.choice";

const USE_DAPPER = "Use Dapper";
const USE_DEBUGPY = "Keep debugpy";

/** Registers the provider that hands debugpy configurations to Dapper. */
export function registerDebugpyConfigurations(context: vscode.ExtensionContext, logger: Logger): vscode.Disposable[] {
  const provider: vscode.DebugConfigurationProvider = {
    resolveDebugConfiguration: (folder, config) => resolve(context, logger, folder, config),
  };
  return DEBUGPY_TYPES.map((type) => vscode.debug.registerDebugConfigurationProvider(type, provider));
}

async function resolve(
  context: vscode.ExtensionContext,
  logger: Logger,
  folder: vscode.WorkspaceFolder | undefined,
  config: vscode.DebugConfiguration,
): Promise<vscode.DebugConfiguration> {
  // Another provider of the type may have handed it over already, or taken it elsewhere.
  if (!isDebugpyConfiguration(config)) return config;
  const choice = await choose(context, folder);
  if (choice === "debugpy") return config;
  const justMyCode = vscode.workspace.getConfiguration("debugpy", folder?.uri).get<unknown>("debugJustMyCode");
  const launchJson = vscode.workspace.getConfiguration("launch", folder?.uri).get<unknown>("configurations");
  const handed = handOver(withTestConfiguration(config as LaunchConfiguration, launchJson), justMyCode);
  logger.info(`The ${String(config.type)} configuration "${String(config.name)}" runs under Dapper (dapper.${DEBUGPY_SETTING}).`);
  return handed;
}

/** Who runs debugpy configurations here, asking the user once per workspace when the setting says so. */
async function choose(context: vscode.ExtensionContext, folder: vscode.WorkspaceFolder | undefined): Promise<DebugpyChoice> {
  const remembered = context.workspaceState.get<DebugpyChoice>(CHOICE_KEY);
  const decision = decide({
    setting: vscode.workspace.getConfiguration("dapper", folder?.uri).get<unknown>(DEBUGPY_SETTING),
    remembered: remembered === "dapper" || remembered === "debugpy" ? remembered : undefined,
    debugpyInstalled: vscode.extensions.getExtension(DEBUGPY_EXTENSION_ID) !== undefined,
  });
  if (decision !== "ask") return decision;
  const answer = await vscode.window.showInformationMessage(
    "Run the debugpy configurations of this workspace (launch.json, Debug Test, the Python extension's buttons) with Dapper?",
    { modal: true, detail: `The answer is kept for this workspace; the setting dapper.${DEBUGPY_SETTING} decides for all of them.` },
    USE_DAPPER,
    USE_DEBUGPY,
  );
  // Dismissed: debugpy runs this one, as before Dapper was installed, and the question comes again.
  if (answer === undefined) return "debugpy";
  const choice: DebugpyChoice = answer === USE_DAPPER ? "dapper" : "debugpy";
  await context.workspaceState.update(CHOICE_KEY, choice);
  return choice;
}
