// The commands "Dapper: Debug Python File" and "Dapper: Run Python File", shown in the
// editor title's run menu of Python files and in the command palette.

import * as vscode from "vscode";
import { DEBUG_FILE_COMMAND, fileConfiguration, RUN_FILE_COMMAND, type FileDescription, type Mode } from "./fileConfiguration";

export function registerFileCommands(): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(DEBUG_FILE_COMMAND, (resource?: unknown) => startFile(resource, "debug")),
    vscode.commands.registerCommand(RUN_FILE_COMMAND, (resource?: unknown) => startFile(resource, "run")),
  ];
}

/**
 * Starts a session for the file a menu passed (its URI) or, from the command palette
 * (no argument), for the active editor's file. Resolves to whether a session started.
 */
async function startFile(resource: unknown, mode: Mode): Promise<boolean> {
  const uri = resource instanceof vscode.Uri ? resource : vscode.window.activeTextEditor?.document.uri;
  const result = fileConfiguration(describe(uri), mode);
  if ("error" in result) {
    void vscode.window.showErrorMessage(result.error);
    return false;
  }
  const folder = uri && vscode.workspace.getWorkspaceFolder(uri);
  // noDebug travels both in the configuration (for the engine) and in the options,
  // so that VS Code shows the session as run-without-debugging.
  return vscode.debug.startDebugging(folder, result.configuration, { noDebug: mode === "run" });
}

/** The file to start, described for fileConfiguration; the language is known only when it is open. */
function describe(uri: vscode.Uri | undefined): FileDescription | undefined {
  if (uri === undefined) return undefined;
  const document = vscode.workspace.textDocuments.find((open) => open.uri.toString() === uri.toString());
  return { scheme: uri.scheme, fsPath: uri.fsPath, languageId: document?.languageId };
}
