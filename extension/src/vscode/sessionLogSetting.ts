// The dapper.trace setting and the replay command's name, apart from the VS Code API
// (sessionLogs.ts) so that they can be tested without it.

import * as os from "os";
import * as path from "path";

export const REPLAY_SESSION_LOG_COMMAND = "dapper.replaySessionLog";

/**
 * The folder dapper.trace asks session logs to be written to: `true` is VS Code's log
 * folder for the extension (`defaultDirectory`), a string names a folder (`~` is the home
 * folder; a relative one is taken from the home folder too), anything else is off.
 */
export function traceDirectory(setting: unknown, defaultDirectory: string): string | undefined {
  if (setting === true) return defaultDirectory;
  if (typeof setting !== "string" || setting.trim() === "") return undefined;
  const folder = setting.trim();
  if (folder === "~" || folder.startsWith("~/")) return path.join(os.homedir(), folder.slice(1));
  return path.resolve(os.homedir(), folder);
}

/** The file of one engine's session log: when it began, and which extension host wrote it. */
export function sessionLogFileName(startedAt: Date, pid: number): string {
  return `dapper-session-${startedAt.toISOString().replace(/[:.]/g, "-")}-${pid}.log`;
}
