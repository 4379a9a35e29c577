// Terminal auto-attach (docs/auto-attach.md), the VS Code side: the dapper.autoAttach
// setting, its status-bar item and command, the environment new terminals get (the
// bootstrap's folder on PYTHONPATH, the broker's address and secret, the mode), and a
// Dapper attach session ("listen") for each program the broker is asked about.
import * as path from "path";
import * as vscode from "vscode";
import {
  attachConfiguration,
  AutoAttachBroker,
  bootstrapDirOf,
  isAutoAttachMode,
  type AttachingProgram,
  type AutoAttachMode,
  type ListenAt,
} from "../autoAttach/broker";
import type { Logger } from "../log";
import { MODE_LABELS, MODE_SETTING, PATTERN_SETTING, TOGGLE_AUTO_ATTACH_COMMAND } from "./autoAttachModes";

function configuredMode(): AutoAttachMode {
  const value = vscode.workspace.getConfiguration("dapper").get<string>(MODE_SETTING, "disabled");
  return isAutoAttachMode(value) ? value : "disabled";
}

/** The smart patterns, each `${workspaceFolder}` one pattern per folder. */
function smartPatterns(folders: readonly string[]): string[] {
  const patterns = vscode.workspace.getConfiguration("dapper").get<unknown>(PATTERN_SETTING, []);
  if (!Array.isArray(patterns)) return [];
  return patterns
    .filter((pattern): pattern is string => typeof pattern === "string" && pattern !== "")
    .flatMap((pattern) => (pattern.includes("${workspaceFolder}") ? folders.map((folder) => pattern.split("${workspaceFolder}").join(folder)) : [pattern]));
}

export function registerAutoAttach(context: vscode.ExtensionContext, pythonPackageDir: string, logger: Logger): vscode.Disposable[] {
  const status = vscode.window.createStatusBarItem("dapper.autoAttach", vscode.StatusBarAlignment.Left, -1);
  status.name = "Dapper Auto Attach";
  status.command = TOGGLE_AUTO_ATTACH_COMMAND;
  const terminals = context.environmentVariableCollection;
  // A terminal restored in the next VS Code session would carry this window's broker.
  terminals.persistent = false;
  let broker: Promise<AutoAttachBroker> | undefined;
  let applied = 0;

  const startSession = (program: AttachingProgram, listen: ListenAt) => {
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(program.program ?? program.cwd)) ?? vscode.workspace.workspaceFolders?.[0];
    const configuration = attachConfiguration(program, listen);
    logger.info(`Auto-attach: debugging process ${program.pid} (${configuration.name})`);
    vscode.debug.startDebugging(folder, configuration).then(
      (started) => {
        if (!started) logger.warn(`Auto-attach: the session for process ${program.pid} did not start`);
      },
      (error: unknown) => logger.warn(`Auto-attach: the session for process ${program.pid} failed: ${String(error)}`),
    );
  };

  const apply = async () => {
    const generation = ++applied;
    const mode = configuredMode();
    status.text = `$(debug-alt) Auto Attach: ${MODE_LABELS[mode].label}`;
    status.tooltip = `Dapper's terminal auto-attach: ${MODE_LABELS[mode].detail} Click to change.`;
    if (mode === "disabled") {
      terminals.clear();
      status.hide();
      const closing = broker;
      broker = undefined;
      (await closing?.catch(() => undefined))?.close();
      return;
    }
    broker ??= AutoAttachBroker.open(startSession);
    let opened: AutoAttachBroker;
    try {
      opened = await broker;
    } catch (error) {
      broker = undefined;
      logger.error(`Auto-attach cannot listen for terminals' programs: ${String(error)}`);
      return;
    }
    if (generation !== applied) return;
    const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
    const variables = opened.terminalEnvironment({ mode, workspaceFolders: folders, smartPatterns: smartPatterns(folders) });
    terminals.clear();
    terminals.description = `Dapper auto-attach (${MODE_LABELS[mode].label}): Pythons run here may be debugged`;
    const bootstrap = bootstrapDirOf(pythonPackageDir);
    // An empty PYTHONPATH entry would put the current folder on sys.path.
    if (process.env.PYTHONPATH) terminals.prepend("PYTHONPATH", `${bootstrap}${path.delimiter}`);
    else terminals.replace("PYTHONPATH", bootstrap);
    for (const [name, value] of Object.entries(variables)) terminals.replace(name, value);
    status.show();
  };

  const toggle = async () => {
    const current = configuredMode();
    const picked = await vscode.window.showQuickPick(
      (Object.keys(MODE_LABELS) as AutoAttachMode[]).map((mode) => ({
        mode,
        label: MODE_LABELS[mode].label,
        description: mode === current ? "current" : undefined,
        detail: MODE_LABELS[mode].detail,
      })),
      { title: "Dapper: Auto Attach", placeHolder: "Debug the Pythons run in VS Code's terminals" },
    );
    if (picked === undefined || picked.mode === current) return;
    const configuration = vscode.workspace.getConfiguration("dapper");
    const inspected = configuration.inspect<string>(MODE_SETTING);
    const target = inspected?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await configuration.update(MODE_SETTING, picked.mode, target);
  };

  void apply();
  return [
    status,
    vscode.commands.registerCommand(TOGGLE_AUTO_ATTACH_COMMAND, toggle),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`dapper.${MODE_SETTING}`) || event.affectsConfiguration(`dapper.${PATTERN_SETTING}`)) void apply();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void apply()),
    { dispose: () => void broker?.then((opened) => opened.close(), () => undefined) },
  ];
}
