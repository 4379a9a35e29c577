// The VS Code side of the interpreter check: the error message with its buttons, and
// what each button does. Selecting an interpreter goes to the Python extension when it
// is installed; without it (or when its command is missing), a quick pick of the
// interpreters on PATH and in pyenv writes the choice to `dapper.python`.

import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as vscode from "vscode";
import type { Logger } from "../log";
import type { InterpreterSource } from "./interpreter";
import { type InterpreterAction, type InterpreterChecker, interpreterMessage } from "./interpreterCheck";
import { discoverInterpreters, placesOf, settingScope } from "./interpreterDiscovery";

const PYTHON_EXTENSION_ID = "ms-python.python";
const SELECT_TITLE = "Dapper: select a Python interpreter (3.9 or newer)";
const ENTER_PATH = "Enter an interpreter path…";

/** What the buttons need: where the session was to run, the checker (and its cache), the log. */
export interface PromptContext {
  folder: vscode.WorkspaceFolder | undefined;
  resource: vscode.Uri | undefined;
  checker: InterpreterChecker;
  logger: Logger;
}

/**
 * Shows the error for an unusable interpreter and handles the button the user clicks.
 * Does not wait for the click: the launch is cancelled at once, and the message stays
 * until the user acts on it or closes it.
 */
export function reportUnusableInterpreter(
  problem: { python: string; source: InterpreterSource; problem: string },
  context: PromptContext,
): void {
  const { message, actions } = interpreterMessage(problem.python, problem.source, problem.problem);
  context.logger.warn(`Interpreter: ${message}`);
  void vscode.window.showErrorMessage(message, ...actions).then(
    (action) => (action === undefined ? undefined : runAction(action, context)),
    (error: unknown) => context.logger.error(`Interpreter: the message could not be shown: ${String(error)}`),
  );
}

async function runAction(action: InterpreterAction, context: PromptContext): Promise<void> {
  try {
    switch (action) {
      case "Select Interpreter":
        return await selectInterpreter(context);
      case "Open Settings":
        await vscode.commands.executeCommand("workbench.action.openSettings", "dapper.python");
        return;
      case "Open launch.json":
        return await openLaunchJson(context.folder);
    }
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    context.logger.error(`Interpreter: "${action}" failed: ${text}`);
    void vscode.window.showErrorMessage(`Dapper: "${action}" failed: ${text}`);
  }
}

async function selectInterpreter(context: PromptContext): Promise<void> {
  if (vscode.extensions.getExtension(PYTHON_EXTENSION_ID) !== undefined) {
    try {
      await vscode.commands.executeCommand("python.setInterpreter");
      return;
    } catch (error) {
      // An extension with that id but without the command (an old or stand-in one):
      // Dapper's own list still lets the user choose.
      context.logger.info(`Interpreter: python.setInterpreter is not available (${String(error)}); showing Dapper's list`);
    }
  }
  const chosen = await pickInterpreter(context.checker);
  if (chosen === undefined) return;
  const configuration = vscode.workspace.getConfiguration("dapper", context.resource);
  const scope = settingScope(configuration.inspect("python"));
  const target = {
    workspaceFolder: vscode.ConfigurationTarget.WorkspaceFolder,
    workspace: vscode.ConfigurationTarget.Workspace,
    global: vscode.ConfigurationTarget.Global,
  }[scope];
  await configuration.update("python", chosen, target);
  context.logger.info(`Interpreter: dapper.python is now ${chosen} (in the ${scope} settings)`);
  void vscode.window.showInformationMessage(`Dapper will debug with ${chosen} (setting dapper.python). Start the session again.`);
}

interface InterpreterItem extends vscode.QuickPickItem {
  executable?: string;
}

/** The quick pick of usable interpreters, each checked (and so shown with its version). */
async function pickInterpreter(checker: InterpreterChecker): Promise<string | undefined> {
  const items = async (): Promise<InterpreterItem[]> => {
    const found = await discoverInterpreters(placesOf(process.env, os.homedir()));
    const checked = await Promise.all(found.map(async (executable) => ({ executable, verdict: await checker.check(executable) })));
    // One entry per real interpreter: a pyenv shim and the version it runs are the same.
    const seen = new Set<string>();
    const usable: InterpreterItem[] = [];
    for (const { executable, verdict } of checked) {
      if (verdict.usable !== true || seen.has(verdict.executable)) continue;
      seen.add(verdict.executable);
      usable.push({ label: `Python ${verdict.version}`, description: executable, executable });
    }
    return [...usable, { label: `$(folder-opened) ${ENTER_PATH}`, alwaysShow: true }];
  };
  const picked = await vscode.window.showQuickPick(items(), {
    title: SELECT_TITLE,
    placeHolder: "Interpreters found on PATH and in pyenv",
    matchOnDescription: true,
  });
  if (picked === undefined) return undefined;
  if (picked.executable !== undefined) return picked.executable;
  return enterPath(checker);
}

async function enterPath(checker: InterpreterChecker): Promise<string | undefined> {
  const entered = await vscode.window.showInputBox({
    title: SELECT_TITLE,
    prompt: "The path of a python executable, for example ~/venvs/app/bin/python",
    ignoreFocusOut: true,
    validateInput: async (value) => {
      const trimmed = value.trim();
      if (trimmed === "") return "Enter a path.";
      const verdict = await checker.check(trimmed.startsWith("~") ? os.homedir() + trimmed.slice(1) : trimmed);
      return verdict.usable === false ? `This interpreter ${verdict.problem}.` : undefined;
    },
  });
  return entered?.trim();
}

/** Opens the folder's launch.json when it exists; otherwise VS Code's own command finds or creates it. */
async function openLaunchJson(folder: vscode.WorkspaceFolder | undefined): Promise<void> {
  if (folder !== undefined && folder.uri.scheme === "file") {
    const file = path.join(folder.uri.fsPath, ".vscode", "launch.json");
    if (fs.existsSync(file)) {
      await vscode.window.showTextDocument(vscode.Uri.file(file));
      return;
    }
  }
  await vscode.commands.executeCommand("workbench.action.debug.configure");
}
