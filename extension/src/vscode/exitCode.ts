// Writes the debuggee's exit code into the debug console when a Dapper session ends.
// The engine reports it in the DAP `exited` event, which VS Code does not display; a
// user who runs a program under the debugger expects to see how it ended.
import * as vscode from "vscode";

/** The line written for an `exited` event's exit code. */
function exitCodeLine(exitCode: unknown): string | undefined {
  return typeof exitCode === "number" && Number.isInteger(exitCode) ? `Process exited with code ${exitCode}.` : undefined;
}

export function exitCodeReporter(): vscode.DebugAdapterTrackerFactory {
  return {
    createDebugAdapterTracker: (session) => ({
      onDidSendMessage: (message: { type?: string; event?: string; body?: { exitCode?: unknown } }) => {
        if (message?.type !== "event" || message.event !== "exited") return;
        const line = exitCodeLine(message.body?.exitCode);
        // The debug console API writes to the console of the active session; with several
        // sessions at once the line belongs only where that session is the active one.
        if (line !== undefined && vscode.debug.activeDebugSession?.id === session.id) {
          vscode.debug.activeDebugConsole.appendLine(line);
        }
      },
    }),
  };
}
