// The launch configurations Dapper makes by itself, without launch.json: F5 with no
// configuration, the dynamic "Dapper: Current File" entry of the Run and Debug view, and
// the commands that debug or run the Python file of an editor.
//
// No runtime dependency on the `vscode` module: the VS Code side describes the file in
// the small shape below, which keeps these rules testable under plain Node.

export const DEBUG_TYPE = "dapper";
const CURRENT_FILE_NAME = "Dapper: Current File";
/** The commands of package.json's contributes.commands, registered in fileCommands.ts. */
export const DEBUG_FILE_COMMAND = "dapper.debugFile";
export const RUN_FILE_COMMAND = "dapper.runFile";

/** A launch configuration as VS Code's API carries it. */
export interface LaunchConfiguration {
  type: string;
  request: string;
  name: string;
  [key: string]: unknown;
}

/** What the rules need to know about the file to debug. */
export interface FileDescription {
  /** The URI scheme: "file" for a file on disk, "untitled" for one never saved. */
  scheme: string;
  fsPath: string;
  /** The editor's language, when the file is open in one. */
  languageId?: string;
}

/** Debugging stops at breakpoints; running is VS Code's Run Without Debugging (noDebug). */
export type Mode = "debug" | "run";

export type FileConfigurationResult = { configuration: LaunchConfiguration } | { error: string };

/**
 * The configuration that debugs (or runs) one Python file, or the message that says why
 * there is none. A file that came from a menu has no language (the menu's `when` clause
 * already checked it), so only the `.py`/`.pyw` suffix is required of it then.
 */
export function fileConfiguration(file: FileDescription | undefined, mode: Mode): FileConfigurationResult {
  const verb = mode === "debug" ? "debug" : "run";
  if (file === undefined) {
    return { error: `Dapper: there is no Python file to ${verb}. Open a Python file, or add a launch configuration to launch.json.` };
  }
  const isPython = file.languageId !== undefined ? file.languageId === "python" : /\.pyw?$/i.test(file.fsPath);
  if (!isPython) {
    return { error: `Dapper: ${file.fsPath || "the active editor"} is not a Python file, so Dapper cannot ${verb} it.` };
  }
  if (file.scheme === "untitled") {
    return { error: `Dapper: save the file before you ${verb} it; Python runs files from disk.` };
  }
  if (file.scheme !== "file") {
    return { error: `Dapper: ${file.fsPath} is not on this machine's disk (${file.scheme}:), so Python cannot ${verb} it.` };
  }
  const configuration: LaunchConfiguration = {
    type: DEBUG_TYPE,
    request: "launch",
    name: mode === "debug" ? CURRENT_FILE_NAME : "Dapper: Run Current File",
    program: file.fsPath,
    console: "integratedTerminal",
  };
  if (mode === "run") configuration.noDebug = true;
  return { configuration };
}

/**
 * The dynamic configurations offered in the Run and Debug view's list. `${file}` is
 * substituted when the session starts, so the one entry always debugs whichever file
 * is active then.
 */
export function dynamicConfigurations(): LaunchConfiguration[] {
  return [{ type: DEBUG_TYPE, request: "launch", name: CURRENT_FILE_NAME, program: "${file}", console: "integratedTerminal" }];
}
