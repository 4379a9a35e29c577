/* global require, exports, Buffer */
/* eslint-disable @typescript-eslint/no-require-imports -- VS Code loads this main as CommonJS, which is written with require. */
// The stand-in for VS Code's agent mode in Dapper's real-VS-Code test: the command
// "Agent (stand-in): Invoke Tools" reads agent-calls.json in the workspace (a list of
// { tool, input }), calls each tool with vscode.lm.invokeTool, the way agent mode calls a
// language-model tool, writes the answers to agent-answers.json, and shows the last one
// in a notification, so a screenshot has the agent's view beside the user's.
const vscode = require("vscode");

async function invokeTools() {
  const folder = vscode.workspace.workspaceFolders[0];
  const read = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, "agent-calls.json"));
  const calls = JSON.parse(Buffer.from(read).toString("utf8"));
  const answers = [];
  if (typeof vscode.lm?.invokeTool !== "function") {
    answers.push({ error: `this VS Code (${vscode.version}) has no vscode.lm.invokeTool` });
  } else {
    const registered = vscode.lm.tools.map((tool) => tool.name).filter((name) => name.startsWith("dapper_"));
    for (const { tool, input } of calls) {
      try {
        const result = await vscode.lm.invokeTool(tool, { input, toolInvocationToken: undefined }, new vscode.CancellationTokenSource().token);
        const text = result.content.map((part) => (typeof part.value === "string" ? part.value : JSON.stringify(part))).join("");
        answers.push({ tool, text, registered });
      } catch (error) {
        answers.push({ tool, error: String(error?.message ?? error), registered });
      }
    }
  }
  await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder.uri, "agent-answers.json"), Buffer.from(JSON.stringify(answers, null, 2)));
  const last = answers.at(-1);
  if (last) void vscode.window.showInformationMessage(`Agent: ${last.tool ?? ""}: ${(last.text ?? last.error).split("\n").slice(0, 4).join(" ⏎ ")}`);
}

exports.registerAgentCommand = function registerAgentCommand(context) {
  context.subscriptions.push(vscode.commands.registerCommand("dapperTest.invokeAgentTools", invokeTools));
};
