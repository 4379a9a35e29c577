// The Tasks view of Run and Debug: the asyncio tasks of the focused Dapper session while
// it is paused, each with what it does; a task opens into its call stack (the same
// stackTrace as a thread's, asked with the task's id), and selecting a task or a frame
// shows its line. The debuggee answers `dapper/tasks` (docs/async.md); this file only
// shows it.
import * as vscode from "vscode";
import { DEBUG_TYPE } from "./fileConfiguration";
import { StoppedThreads } from "./hotReloadReport";
import {
  emptyMessage,
  locationText,
  readTasksBody,
  stateIcon,
  type TaskEntry,
  type TaskLoop,
  type TaskSource,
  TASKS_REQUEST,
  TASKS_VIEW,
  type TasksBody,
  taskTooltip,
} from "./tasksModel";

interface StackFrame {
  name: string;
  line: number;
  source?: TaskSource;
  presentationHint?: string;
}

type Node =
  | { kind: "loop"; loop: TaskLoop }
  | { kind: "task"; task: TaskEntry }
  | { kind: "frame"; frame: StackFrame }
  | { kind: "note"; text: string };

/** The editor location of a source and line, if the source is a file. */
function open(source: TaskSource | undefined, line: number): vscode.Command | undefined {
  const where = source?.path;
  if (!where) return undefined;
  // A remote extension host hands paths back as URIs (vscode-remote://…).
  const uri = /^[a-z][a-z0-9+.-]+:\/\//i.test(where) ? vscode.Uri.parse(where) : vscode.Uri.file(where);
  const position = new vscode.Position(Math.max(line - 1, 0), 0);
  const options: vscode.TextDocumentShowOptions = { selection: new vscode.Range(position, position), preserveFocus: true };
  return { command: "vscode.open", title: "Show the line", arguments: [uri, options] };
}

class TasksProvider implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private body: TasksBody | undefined;
  private session: vscode.DebugSession | undefined;
  private failure: string | undefined;
  /** The view that shows this tree (its message says why it is empty). */
  view: vscode.TreeView<Node> | undefined;

  /** Ask the session for its tasks (undefined: nothing is paused, show nothing). */
  async refresh(session: vscode.DebugSession | undefined): Promise<void> {
    this.session = session;
    this.body = undefined;
    this.failure = undefined;
    if (session) {
      try {
        const read = readTasksBody(await session.customRequest(TASKS_REQUEST));
        if (typeof read === "string") this.failure = `The debuggee's tasks could not be read: ${read}.`;
        else this.body = read;
      } catch (error) {
        this.failure = error instanceof Error ? error.message : String(error);
      }
      if (this.session !== session) return; // A newer refresh took over.
    }
    const view = this.view;
    if (view) view.message = this.failure ?? emptyMessage(this.body, session !== undefined);
    this.changed.fire(undefined);
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case "loop": {
        const item = new vscode.TreeItem(node.loop.threadName, vscode.TreeItemCollapsibleState.Expanded);
        item.description = `${node.loop.tasks.length} task${node.loop.tasks.length === 1 ? "" : "s"}`;
        item.iconPath = new vscode.ThemeIcon("debug-alt");
        return item;
      }
      case "task": {
        const { task } = node;
        const item = new vscode.TreeItem(task.name, vscode.TreeItemCollapsibleState.Collapsed);
        item.description = task.description;
        item.tooltip = taskTooltip(task);
        item.iconPath = new vscode.ThemeIcon(stateIcon(task.state));
        item.contextValue = `task.${task.state}`;
        if (task.location) item.command = open(task.location.source, task.location.line);
        return item;
      }
      case "frame": {
        const { frame } = node;
        const item = new vscode.TreeItem(frame.name, vscode.TreeItemCollapsibleState.None);
        if (frame.presentationHint === "label") {
          item.iconPath = new vscode.ThemeIcon("arrow-small-up");
          return item;
        }
        item.description = locationText(frame);
        item.command = open(frame.source, frame.line);
        return item;
      }
      case "note":
        return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    }
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!node) {
      const loops = this.body?.loops.filter((loop) => loop.tasks.length > 0) ?? [];
      // One loop (the usual program) shows its tasks at the top.
      if (loops.length === 1) return loops[0].tasks.map((task) => ({ kind: "task", task }));
      return loops.map((loop) => ({ kind: "loop", loop }));
    }
    if (node.kind === "loop") return node.loop.tasks.map((task) => ({ kind: "task", task }));
    if (node.kind !== "task" || !this.session) return [];
    try {
      const body = (await this.session.customRequest("stackTrace", { threadId: node.task.id })) as { stackFrames?: StackFrame[] };
      const frames = body.stackFrames ?? [];
      if (frames.length === 0) return [{ kind: "note", text: `no frames: the task is ${node.task.description}` }];
      return frames.map((frame) => ({ kind: "frame", frame }));
    } catch (error) {
      return [{ kind: "note", text: error instanceof Error ? error.message : String(error) }];
    }
  }
}

// The events after which the view shows the tasks anew (or nothing, once running).
const SHOWN_EVENTS = new Set(["stopped", "continued", "terminated", "exited"]);

export function registerTasksView(): vscode.Disposable[] {
  const provider = new TasksProvider();
  const view = vscode.window.createTreeView(TASKS_VIEW, { treeDataProvider: provider });
  provider.view = view;
  const states = new Map<string, StoppedThreads>();
  const showFocused = () => {
    const session = vscode.debug.activeDebugSession;
    const paused = session?.type === DEBUG_TYPE && (states.get(session.id)?.any ?? false);
    void provider.refresh(paused ? session : undefined);
  };
  return [
    view,
    vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
      createDebugAdapterTracker: (session) => {
        const state = new StoppedThreads();
        states.set(session.id, state);
        const update = () => {
          if (vscode.debug.activeDebugSession?.id === session.id) showFocused();
        };
        return {
          onDidSendMessage: (message: { type?: string; event?: string }) => {
            state.fromAdapter(message);
            // Each stop is a new state of the tasks (a step, a breakpoint in another task).
            if (message?.type === "event" && SHOWN_EVENTS.has(message.event ?? "")) update();
          },
          onWillReceiveMessage: (message: { type?: string; command?: string }) => {
            const paused = state.any;
            state.fromClient(message);
            if (paused && !state.any) update();
          },
          onWillStopSession: () => {
            states.delete(session.id);
            showFocused();
          },
        };
      },
    }),
    vscode.debug.onDidChangeActiveDebugSession(showFocused),
  ];
}
