// Hot reload in VS Code: the command (Ctrl+Alt+R / Cmd+Alt+R), reload on save, and where the
// result is shown. The debuggee does the reload; this file decides which session gets the
// request and tells the user what happened.
import * as path from "path";
import * as vscode from "vscode";
import { DEBUG_TYPE } from "./fileConfiguration";
import {
  compileErrorLocation,
  frameToRestart,
  type HotReloadResult,
  hotReloadSummary,
  hotReloadWarnings,
  HOT_RELOAD_COMMAND,
  StoppedThreads,
} from "./hotReloadReport";

type Trigger = "command" | "save";

/** Every Dapper session's stopped threads, from a tracker on each session. */
class SessionStates {
  private readonly states = new Map<string, StoppedThreads>();

  tracker(): vscode.DebugAdapterTrackerFactory {
    return {
      createDebugAdapterTracker: (session) => {
        const state = new StoppedThreads();
        this.states.set(session.id, state);
        return {
          onDidSendMessage: (message) => state.fromAdapter(message),
          onWillReceiveMessage: (message) => state.fromClient(message),
          onExit: () => this.states.delete(session.id),
          onWillStopSession: () => this.states.delete(session.id),
        };
      },
    };
  }

  isStopped(session: vscode.DebugSession): boolean {
    return this.states.get(session.id)?.any ?? false;
  }
}

function setting<T>(name: string, fallback: T, resource?: vscode.Uri): T {
  return vscode.workspace.getConfiguration("dapper.hotReload", resource).get<T>(name, fallback);
}

function rootOf(session: vscode.DebugSession): vscode.DebugSession {
  let current = session;
  while (current.parentSession) current = current.parentSession;
  return current;
}

export function registerHotReload(): vscode.Disposable[] {
  const states = new SessionStates();
  const sessions = new Set<vscode.DebugSession>();
  const dapperSessions = () => [...sessions];

  /** The sessions a reload of `file` goes to: the focused stopped one, or its whole tree. */
  const targets = (document: vscode.TextDocument, whileRunning: boolean): vscode.DebugSession[] => {
    const focused = vscode.debug.activeDebugSession;
    const usable = (session: vscode.DebugSession) => whileRunning || states.isStopped(session);
    if (!focused || focused.type !== DEBUG_TYPE) return [];
    if (!setting("allSessionsInTree", false, document.uri)) return usable(focused) ? [focused] : [];
    const root = rootOf(focused);
    return dapperSessions().filter((session) => rootOf(session) === root && usable(session));
  };

  const hasLoaded = async (session: vscode.DebugSession, file: string): Promise<boolean> => {
    try {
      const body = (await session.customRequest("loadedSources")) as { sources?: { path?: string }[] };
      return (body.sources ?? []).some((source) => source.path !== undefined && samePath(source.path, file));
    } catch {
      return false;
    }
  };

  const reload = async (document: vscode.TextDocument, trigger: Trigger): Promise<void> => {
    const file = document.uri.fsPath;
    const name = path.basename(file);
    const whileRunning = trigger === "save" && setting("whileRunning", false, document.uri);
    let chosen = targets(document, whileRunning);
    if (trigger === "save") {
      const loaded = await Promise.all(chosen.map((session) => hasLoaded(session, file)));
      chosen = chosen.filter((_, index) => loaded[index]);
    }
    if (chosen.length === 0) {
      if (trigger === "command") {
        void vscode.window.showWarningMessage(`Dapper: Hot Reload needs a Dapper session stopped at a breakpoint or paused; ${name} was not reloaded.`);
      }
      return;
    }
    for (const session of chosen) {
      let result: HotReloadResult;
      try {
        result = (await session.customRequest("dapper/hotReload", { source: { path: file }, ...(whileRunning ? { whileRunning } : {}) })) as HotReloadResult;
      } catch (error) {
        await reportFailure(document, session, error instanceof Error ? error.message : String(error));
        continue;
      }
      const summary = hotReloadSummary(result, name);
      appendToConsole(session, summary);
      const warnings = hotReloadWarnings(result);
      for (const warning of warnings) appendToConsole(session, `  warning: ${warning}`);
      if (trigger === "command") void vscode.window.showInformationMessage(summary);
      else vscode.window.setStatusBarMessage(`$(sync) ${summary}`, 5000);
      if (warnings.length > 0) void vscode.window.showWarningMessage(`Dapper: ${warnings.join(" · ")}`);
      await restartChangedFrame(session, result, document.uri);
    }
  };

  return [
    vscode.debug.onDidStartDebugSession((session) => {
      if (session.type === DEBUG_TYPE) sessions.add(session);
    }),
    vscode.debug.onDidTerminateDebugSession((session) => sessions.delete(session)),
    vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, states.tracker()),
    vscode.commands.registerCommand(HOT_RELOAD_COMMAND, async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.document.languageId !== "python" || editor.document.uri.scheme !== "file") {
        void vscode.window.showWarningMessage("Dapper: Hot Reload reloads the Python file of the active editor; open one first.");
        return;
      }
      // Saving triggers the reload on save as well; the command's own reload is the one shown.
      saving.add(editor.document.uri.toString());
      try {
        if (editor.document.isDirty && !(await editor.document.save())) return;
      } finally {
        saving.delete(editor.document.uri.toString());
      }
      await reload(editor.document, "command");
    }),
    vscode.workspace.onDidSaveTextDocument((document) => {
      if (document.languageId !== "python" || document.uri.scheme !== "file") return;
      if (saving.has(document.uri.toString())) return;
      if (!setting("autoOnSave", true, document.uri)) return;
      void reload(document, "save");
    }),
  ];
}

const saving = new Set<string>();

function samePath(a: string, b: string): boolean {
  const normal = (p: string) => (process.platform === "win32" || process.platform === "darwin" ? path.normalize(p).toLowerCase() : path.normalize(p));
  return normal(a) === normal(b);
}

function appendToConsole(session: vscode.DebugSession, line: string): void {
  // The debug console API writes to the console of the active session only.
  if (vscode.debug.activeDebugSession?.id === session.id) vscode.debug.activeDebugConsole.appendLine(line);
}

async function reportFailure(document: vscode.TextDocument, session: vscode.DebugSession, message: string): Promise<void> {
  appendToConsole(session, `Hot reload failed: ${message}`);
  const location = compileErrorLocation(message);
  if (!location) {
    void vscode.window.showErrorMessage(`Dapper: ${message}`);
    return;
  }
  const choice = await vscode.window.showErrorMessage(`Dapper: ${message}`, "Go to Line");
  if (choice !== "Go to Line") return;
  const position = new vscode.Position(Math.max(0, location.line - 1), Math.max(0, location.column - 1));
  await vscode.window.showTextDocument(document, { selection: new vscode.Range(position, position) });
}

async function restartChangedFrame(session: vscode.DebugSession, result: HotReloadResult, resource: vscode.Uri): Promise<void> {
  if (!setting("restartChangedFrame", false, resource)) return;
  const item = vscode.debug.activeStackItem;
  if (!item || item.session.id !== session.id) return;
  const focus = item instanceof vscode.DebugStackFrame ? { threadId: item.threadId, frameId: item.frameId } : { threadId: item.threadId };
  const frameId = frameToRestart(result, focus);
  if (frameId === undefined) return;
  try {
    await session.customRequest("restartFrame", { frameId });
  } catch (error) {
    void vscode.window.showWarningMessage(`Dapper: the changed frame was not restarted: ${error instanceof Error ? error.message : String(error)}`);
  }
}
