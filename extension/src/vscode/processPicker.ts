// The QuickPick of "attach to a process": Python processes first, filtered as the user
// types (name, pid, user and the whole command line), a refresh button, and the
// processes a Dapper session already debugs marked. Cancelling leaves nothing behind.
import * as vscode from "vscode";
import { pickerEntries, type EntryContext, type ProcessEntry } from "./processChoice";
import type { ProcessInfo } from "./processList";

export const PICKER_TITLE = "Dapper: Attach to Process";

interface ProcessItem extends vscode.QuickPickItem {
  process?: ProcessInfo;
}

export interface PickerSources {
  list: () => Promise<ProcessInfo[]>;
  /** Read at each (re)listing, so that a refresh shows sessions started meanwhile. */
  context: () => EntryContext;
}

/**
 * Shows the picker and resolves to the chosen process, or undefined when the user
 * cancelled or the listing failed (which is shown as an error message).
 */
export function pickProcess(sources: PickerSources): Promise<ProcessInfo | undefined> {
  const refresh: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("refresh"), tooltip: "Refresh the list" };
  const pick = vscode.window.createQuickPick<ProcessItem>();
  pick.title = PICKER_TITLE;
  pick.placeholder = "Type a process's name, pid, user or part of its command line";
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  pick.buttons = [refresh];

  return new Promise((resolve) => {
    let listing = 0;
    const finish = (choice: ProcessInfo | undefined) => {
      resolve(choice);
      pick.dispose();
    };
    const load = async () => {
      const generation = ++listing;
      pick.busy = true;
      try {
        const processes = await sources.list();
        // A refresh started meanwhile, or the picker was closed: this listing is stale.
        if (generation !== listing) return;
        const active = pick.activeItems[0]?.process?.pid;
        pick.items = itemsOf(pickerEntries(processes, sources.context()));
        const keep = pick.items.find((item) => item.process?.pid === active);
        if (keep) pick.activeItems = [keep];
        pick.busy = false;
      } catch (error) {
        if (generation !== listing) return;
        void vscode.window.showErrorMessage((error as Error).message);
        finish(undefined);
      }
    };
    pick.onDidTriggerButton((button) => {
      if (button === refresh) void load();
    });
    pick.onDidAccept(() => {
      const choice = pick.selectedItems[0]?.process;
      if (choice) finish(choice);
    });
    pick.onDidHide(() => {
      listing++;
      finish(undefined);
    });
    pick.show();
    void load();
  });
}

/** The picker's rows: a separator before the Python processes and before the others. */
function itemsOf(entries: readonly ProcessEntry[]): ProcessItem[] {
  const items: ProcessItem[] = [];
  let group: boolean | undefined;
  for (const entry of entries) {
    if (entry.python !== group) {
      group = entry.python;
      items.push({ label: group ? "Python" : "Other processes", kind: vscode.QuickPickItemKind.Separator });
    }
    items.push(itemOf(entry));
  }
  return items;
}

function itemOf({ process, debugged }: ProcessEntry): ProcessItem {
  const description = [`pid ${process.pid}`, process.user, debugged ? "being debugged by Dapper" : undefined].filter(Boolean).join(" · ");
  return {
    label: `${debugged ? "$(debug) " : ""}${process.name || "(no name)"}`,
    description,
    detail: process.commandLine || process.name,
    process,
  };
}
