// The commands of "attach to a process": "Dapper: Attach to Process" (the picker, then an
// attach session) and the command behind `${command:pickProcess}` in an attach
// configuration (the picker alone, answering the pid as a string).
import * as vscode from "vscode";
import type { DebuggedProcesses } from "./debuggedProcesses";
import { ATTACH_TO_PROCESS_COMMAND, PICK_PROCESS_COMMAND, processAttachConfiguration } from "./processChoice";
import { listProcesses } from "./processList";
import { pickProcess, type PickerSources } from "./processPicker";

export function registerAttachCommands(debugged: DebuggedProcesses): vscode.Disposable[] {
  const sources: PickerSources = {
    list: () => listProcesses(),
    // The extension host itself is never offered: attaching to it would debug VS Code.
    context: () => ({ debugged: debugged.pids(), excluded: new Set([process.pid]), platform: process.platform }),
  };
  return [
    vscode.commands.registerCommand(ATTACH_TO_PROCESS_COMMAND, async () => {
      const choice = await pickProcess(sources);
      if (choice === undefined) return false;
      return vscode.debug.startDebugging(vscode.workspace.workspaceFolders?.[0], processAttachConfiguration(choice));
    }),
    vscode.commands.registerCommand(PICK_PROCESS_COMMAND, async () => {
      const choice = await pickProcess(sources);
      return choice === undefined ? undefined : String(choice.pid);
    }),
  ];
}
