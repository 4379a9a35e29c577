// Resolves Dapper's debug configurations: fills one in when there is none (the Python file
// in the active editor), then picks and checks the interpreter when the configuration
// names none. Everything else about a configuration is the engine's to validate.

import * as os from "os";
import * as vscode from "vscode";
import type { Logger } from "../log";
import { fileConfiguration } from "./fileConfiguration";
import { chooseInterpreter, expandSettingPath } from "./interpreter";
import { defaultPython, InterpreterChecker } from "./interpreterCheck";
import { reportUnusableInterpreter } from "./interpreterPrompt";
import { pythonExtensionInterpreter } from "./pythonExtension";

// How long the Python extension may take to name its interpreter before the launch goes
// on without it. Its first activation in a window can take seconds; a launch that hangs
// on another extension would be worse than one that uses the fallback.
const PYTHON_EXTENSION_TIMEOUT_MS = 10_000;

/** The configuration's private key for where its interpreter came from (core/src/config.rs). */
const PYTHON_SOURCE_KEY = "__dapperPythonSource";

/**
 * Fills in a launch configuration when there is none (no launch.json, or F5 on an empty
 * configuration): debug the Python file in the active editor. Then picks the interpreter
 * when the configuration names none. Everything else about a configuration is the
 * engine's to validate.
 */
export class DapperConfigurationProvider implements vscode.DebugConfigurationProvider {
  private readonly checker = new InterpreterChecker();

  constructor(private readonly logger: Logger) {}

  resolveDebugConfiguration(
    _folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): vscode.ProviderResult<vscode.DebugConfiguration> {
    if (config.type || config.request || config.name) return config;
    const document = vscode.window.activeTextEditor?.document;
    const result = fileConfiguration(
      document && { scheme: document.uri.scheme, fsPath: document.uri.fsPath, languageId: document.languageId },
      // Ctrl+F5 (Run Without Debugging) with no launch.json arrives as { noDebug: true }.
      config.noDebug === true ? "run" : "debug",
    );
    if ("error" in result) {
      void vscode.window.showErrorMessage(result.error);
      // Returning undefined cancels the launch quietly; the message above says why.
      return undefined;
    }
    return result.configuration;
  }

  // The interpreter is chosen after variable substitution, so a `python` written as
  // "${workspaceFolder}/.venv/bin/python" counts as set and is used as the user wrote it.
  // It is then checked: an interpreter that is missing, does not run or is too old gets
  // one message with a way to choose another, and the launch is cancelled (undefined),
  // so that the user does not also get the engine's error dialog for the same problem.
  async resolveDebugConfigurationWithSubstitutedVariables(
    folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): Promise<vscode.DebugConfiguration | undefined> {
    // Attaching runs no interpreter of Dapper's choosing.
    if (config.request !== "launch") return config;
    const resource = folder?.uri ?? programUri(config) ?? vscode.window.activeTextEditor?.document.uri;
    const choice = await chooseInterpreter(config.python, {
      pythonExtension: () => pythonExtensionInterpreter(resource),
      setting: () => {
        const value = vscode.workspace.getConfiguration("dapper", resource).get<unknown>("python");
        const workspaceFolder = (folder ?? (resource && vscode.workspace.getWorkspaceFolder(resource)))?.uri.fsPath;
        return typeof value === "string" ? expandSettingPath(value, { workspaceFolder, home: os.homedir() }) : value;
      },
      timeoutMs: PYTHON_EXTENSION_TIMEOUT_MS,
    });
    for (const note of choice.notes) this.logger.warn(`Interpreter: ${note}`);
    // A `python` that is not a string is left to the engine, which reports it as invalid.
    if (choice.source === "launch configuration" && choice.python === undefined) return config;
    const python = choice.python ?? defaultPython();
    const verdict = await this.checker.check(python);
    if (verdict.usable === false) {
      reportUnusableInterpreter({ python, source: choice.source, problem: verdict.problem }, { folder, resource, checker: this.checker, logger: this.logger });
      return undefined;
    }
    const found = verdict.usable === true ? `Python ${verdict.version} at ${verdict.executable}` : `not checked: ${verdict.note}`;
    this.logger.info(`Interpreter: ${python} (chosen by: ${choice.source}; ${found})`);
    // The engine names the same source as this check if it ever reports the interpreter
    // itself (one too slow to answer here); a `__` key is private: no unknown-key note.
    const withSource = { ...config, [PYTHON_SOURCE_KEY]: choice.source };
    return choice.python === undefined || choice.source === "launch configuration" ? withSource : { ...withSource, python: choice.python };
  }
}

/** The program of a launch configuration as a file URI, when it names one. */
function programUri(config: vscode.DebugConfiguration): vscode.Uri | undefined {
  return typeof config.program === "string" && config.program !== "" ? vscode.Uri.file(config.program) : undefined;
}
