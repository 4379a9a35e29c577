/* global require, exports */
/* eslint-disable @typescript-eslint/no-require-imports -- VS Code loads this main as CommonJS, which is written with require. */
// A stand-in for the Python extension (ms-python.python) in Dapper's real-VS-Code test:
// it exposes the part of the public environments API that Dapper uses, and names as
// the active interpreter the folder of the environment in the user setting
// `dapperTest.activeInterpreter`, so that Dapper has to resolve it to the executable.
const path = require("path");
const vscode = require("vscode");

function activeInterpreter() {
  return vscode.workspace.getConfiguration("dapperTest").get("activeInterpreter");
}

exports.activate = function activate() {
  return {
    ready: Promise.resolve(),
    environments: {
      getActiveEnvironmentPath() {
        const executable = activeInterpreter();
        // The Python extension may answer with an environment's folder, not its executable.
        return executable ? { id: executable, path: path.dirname(path.dirname(executable)) } : undefined;
      },
      async resolveEnvironment(environment) {
        const executable = activeInterpreter();
        const folder = typeof environment === "string" ? environment : environment?.path;
        if (!executable || folder !== path.dirname(path.dirname(executable))) return undefined;
        return { executable: { uri: vscode.Uri.file(executable), sysPrefix: folder } };
      },
    },
  };
};

exports.deactivate = function deactivate() {};
