/* global require, exports, __dirname, Buffer */
/* eslint-disable @typescript-eslint/no-require-imports -- VS Code loads this main as CommonJS, which is written with require. */
// A stand-in for the Python extension (ms-python.python) in Dapper's real-VS-Code test:
// it exposes the part of the public environments API that Dapper uses, and names as
// the active interpreter the folder of the environment in the user setting
// `dapperTest.activeInterpreter`, so that Dapper has to resolve it to the executable.
// Its command "Python (stand-in): Debug Test" starts a `debugpy` configuration the way the
// Python extension's Testing view does for Debug Test (its own test launcher as the
// program, the test id as an argument, a rule that keeps its launcher out of the user's
// code, a marker key to find its session by), and writes the type of the session that
// started to debug-test-session.txt in the workspace: Dapper's, when Dapper runs it.
const path = require("path");
const vscode = require("vscode");

function activeInterpreter() {
  return vscode.workspace.getConfiguration("dapperTest").get("activeInterpreter");
}

/** The workspace's test id to debug: the stand-in's Testing view has one test. */
const TEST_ID = "test_inventory.InventoryTest.test_total";

async function debugTest() {
  const folder = vscode.workspace.workspaceFolders[0];
  const marker = `test-${Date.now()}`;
  const python = activeInterpreter();
  const started = vscode.debug.onDidStartDebugSession((session) => {
    if (session.configuration.__vscodeTestSessionMarker !== marker) return;
    started.dispose();
    const record = vscode.Uri.joinPath(folder.uri, "debug-test-session.txt");
    void vscode.workspace.fs.writeFile(record, Buffer.from(`${session.type}\n`));
  });
  const launcherFolder = path.join(__dirname, "python_files");
  await vscode.debug.startDebugging(folder, {
    name: "Debug Unit Test",
    type: "debugpy",
    request: "launch",
    program: path.join(launcherFolder, "run_unittest.py"),
    args: [TEST_ID],
    cwd: folder.uri.fsPath,
    console: "internalConsole",
    // As the Python extension does, the workspace goes on PYTHONPATH, so that the test
    // modules import from the launcher that lives elsewhere.
    env: { STAND_IN_TEST_RESULTS: path.join(folder.uri.fsPath, "test-results.txt"), PYTHONPATH: folder.uri.fsPath },
    stopOnEntry: false,
    showReturnValue: true,
    redirectOutput: true,
    debugStdLib: false,
    subProcess: true,
    rules: [{ path: launcherFolder, include: false }],
    purpose: [],
    __vscodeTestSessionMarker: marker,
    ...(python ? { python } : {}),
  });
}

exports.activate = function activate(context) {
  context.subscriptions.push(vscode.commands.registerCommand("dapperTest.debugTest", debugTest));
  require("./agentTools").registerAgentCommand(context);
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
