// The Tasks view's model, without vscode: the body of the debuggee's `dapper/tasks`
// answer (docs/async.md), checked, and the words and icons the view shows for it.

export const TASKS_VIEW = "dapper.tasks";
export const TASKS_REQUEST = "dapper/tasks";

export type TaskState = "running" | "waiting" | "ready" | "notStarted" | "done" | "cancelled" | "failed";

export interface TaskSource {
  path?: string;
  name?: string;
  sourceReference?: number;
}

export interface TaskLocation {
  name: string;
  line: number;
  source?: TaskSource;
}

export interface TaskAwaiter {
  id: number;
  name: string;
  via?: string;
}

export interface TaskEntry {
  /** A thread id: stackTrace answers with the task's stack for it. */
  id: number;
  name: string;
  state: TaskState;
  description: string;
  awaitedBy?: TaskAwaiter[];
  location?: TaskLocation;
}

export interface TaskLoop {
  threadId: number;
  threadName: string;
  tasks: TaskEntry[];
}

export interface TasksBody {
  loops: TaskLoop[];
}

const STATES: readonly TaskState[] = ["running", "waiting", "ready", "notStarted", "done", "cancelled", "failed"];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

function isTask(value: unknown): value is TaskEntry {
  return (
    isObject(value) &&
    typeof value.id === "number" &&
    typeof value.name === "string" &&
    typeof value.description === "string" &&
    STATES.includes(value.state as TaskState)
  );
}

/** The body of a `dapper/tasks` answer, or why it is not one (a debuggee of another version). */
export function readTasksBody(value: unknown): TasksBody | string {
  if (!isObject(value) || !Array.isArray(value.loops)) return "the answer has no list of loops";
  for (const loop of value.loops) {
    if (!isObject(loop) || typeof loop.threadId !== "number" || typeof loop.threadName !== "string" || !Array.isArray(loop.tasks)) {
      return "a loop of the answer has no thread or no list of tasks";
    }
    if (!loop.tasks.every(isTask)) return "a task of the answer lacks its id, name, state or description";
  }
  return value as unknown as TasksBody;
}

/** The codicon of a task's state. */
export function stateIcon(state: TaskState): string {
  switch (state) {
    case "running":
      return "debug-stackframe";
    case "waiting":
      return "watch";
    case "ready":
      return "debug-continue";
    case "notStarted":
      return "circle-outline";
    case "done":
      return "pass";
    case "cancelled":
      return "circle-slash";
    case "failed":
      return "error";
  }
}

/** Where a frame or task is, as the view shows it beside its name: `app.py:12`. */
export function locationText(location: { line: number; source?: TaskSource }): string {
  const source = location.source;
  const file = source?.name ?? (source?.path ? (source.path.split(/[\\/]/).pop() ?? source.path) : undefined);
  return file ? `${file}:${location.line}` : `line ${location.line}`;
}

/** A task's tooltip: its state, where it is, and who awaits it. */
export function taskTooltip(task: TaskEntry): string {
  const lines = [`Task '${task.name}': ${task.description}`];
  if (task.location) lines.push(`at ${task.location.name} (${locationText(task.location)})`);
  for (const awaiter of task.awaitedBy ?? []) {
    lines.push(`awaited by Task '${awaiter.name}'${awaiter.via ? ` (${awaiter.via})` : ""}`);
  }
  return lines.join("\n");
}

/** What the view says when it has no task to show. */
export function emptyMessage(body: TasksBody | undefined, stopped: boolean): string | undefined {
  if (!stopped) return "The tasks are shown while the program is paused.";
  if (!body || body.loops.length === 0) return "No asyncio event loop runs in this program.";
  if (body.loops.every((loop) => loop.tasks.length === 0)) return "The event loop has no tasks.";
  return undefined;
}
