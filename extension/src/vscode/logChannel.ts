// The "Dapper" output channel as the extension's log, at the level the dapper.logLevel
// setting names (followed as it changes).

import * as vscode from "vscode";
import type { LogLevel } from "../host/protocol";
import { formatLogLine, isLogLevel, Logger } from "../log";

export function channelLogger(context: vscode.ExtensionContext): Logger {
  const channel = vscode.window.createOutputChannel("Dapper");
  const logger = new Logger({ write: (level, line) => channel.appendLine(formatLogLine(level, line)) }, configuredLogLevel());
  context.subscriptions.push(
    channel,
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("dapper.logLevel")) logger.setLevel(configuredLogLevel());
    }),
  );
  return logger;
}

function configuredLogLevel(): LogLevel {
  const value = vscode.workspace.getConfiguration("dapper").get<string>("logLevel", "info");
  return isLogLevel(value) ? value : "info";
}
