// Session logs in VS Code (docs/session-logs.md): the dapper.trace setting, read when an
// engine is created, records that engine's log in a file; "Dapper: Replay Session Log…"
// replays one through this build's engine and shows the result in an output channel.

import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";
import { formatReplay, MalformedLog, replaySessionLog, sessionLogFiles, type LineSink } from "../host/sessionLog";
import { createWasmEngine } from "../host/wasm";
import { describeError, type Logger } from "../log";
import { REPLAY_SESSION_LOG_COMMAND, sessionLogFileName, traceDirectory } from "./sessionLogSetting";

function configuredDirectory(context: vscode.ExtensionContext): string | undefined {
  return traceDirectory(vscode.workspace.getConfiguration("dapper").get<unknown>("trace", false), context.logUri.fsPath);
}

/** The host's `openSessionLog`: a new file in the dapper.trace folder for each engine, or none when the setting is off. */
export function sessionLogOpener(context: vscode.ExtensionContext, logger: Logger): () => LineSink | undefined {
  return () => {
    const directory = configuredDirectory(context);
    if (directory === undefined) return undefined;
    fs.mkdirSync(directory, { recursive: true });
    const file = path.join(directory, sessionLogFileName(new Date(), process.pid));
    logger.info(`dapper.trace: recording the session log in ${file} (replay it with "Dapper: Replay Session Log…")`);
    return sessionLogFiles(file)();
  };
}

/** Registers "Dapper: Replay Session Log…". */
export function registerReplayCommand(context: vscode.ExtensionContext): vscode.Disposable[] {
  let channel: vscode.OutputChannel | undefined;
  const command = vscode.commands.registerCommand(REPLAY_SESSION_LOG_COMMAND, async (uri?: vscode.Uri) => {
    const folder = configuredDirectory(context) ?? context.logUri.fsPath;
    const picked =
      uri ??
      (
        await vscode.window.showOpenDialog({
          title: "Replay a Dapper session log",
          defaultUri: fs.existsSync(folder) ? vscode.Uri.file(folder) : undefined,
          canSelectMany: false,
          filters: { "Session logs": ["log", "txt"], "All files": ["*"] },
        })
      )?.[0];
    if (picked === undefined) return;
    channel ??= vscode.window.createOutputChannel("Dapper Replay");
    try {
      const text = fs.readFileSync(picked.fsPath, "utf8");
      const result = replaySessionLog(text, createWasmEngine);
      channel.clear();
      channel.appendLine(formatReplay(result, picked.fsPath));
      channel.show(true);
      const same = result.differences.length === 0 && result.failure === undefined;
      void vscode.window.showInformationMessage(
        same ? `Replayed ${path.basename(picked.fsPath)}: no difference.` : `Replayed ${path.basename(picked.fsPath)}: the outputs differ (see "Dapper Replay").`,
      );
    } catch (error) {
      const why = error instanceof MalformedLog ? `not a session log: ${error.message}` : describeError(error);
      void vscode.window.showErrorMessage(`Cannot replay ${path.basename(picked.fsPath)}: ${why}`);
    }
  });
  return [command, { dispose: () => channel?.dispose() }];
}
