// The VS Code side of the interpreter choice: asks the Python extension (ms-python.python)
// for its active interpreter through its public environments API, when it is installed.
import * as vscode from "vscode";
import { activeInterpreterOf, type PythonEnvironmentsApi } from "./interpreter";

const PYTHON_EXTENSION_ID = "ms-python.python";

interface PythonExtensionApi {
  ready?: Promise<void>;
  environments?: PythonEnvironmentsApi;
}

/**
 * The active interpreter of the Python extension for `resource`, or undefined when the
 * extension is not installed or its API has no environments (a very old version).
 * Activating it may take a while; the caller bounds the wait.
 */
export async function pythonExtensionInterpreter(resource: vscode.Uri | undefined): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
  if (extension === undefined) return undefined;
  const api = extension.isActive ? extension.exports : await extension.activate();
  if (api === undefined || api === null || typeof api.environments?.getActiveEnvironmentPath !== "function") return undefined;
  // `ready` settles once the extension has discovered the environments it knows of; the
  // active path is only reliable after it.
  if (api.ready !== undefined) await api.ready;
  return activeInterpreterOf(api.environments, resource);
}
