// The Tasks view's model: which answers are read as tasks, and what the view says of them.
import assert from "assert/strict";
import { test } from "node:test";
import { emptyMessage, locationText, readTasksBody, stateIcon, type TaskEntry, type TasksBody, taskTooltip, type TaskState } from "./tasksModel";

const fetch: TaskEntry = {
  id: 7,
  name: "fetch-1",
  state: "waiting",
  description: "waiting in asyncio.sleep",
  awaitedBy: [{ id: 3, name: "Task-1", via: "asyncio.gather" }],
  location: { name: "fetch", line: 12, source: { path: "/w/app.py" } },
};
const body: TasksBody = { loops: [{ threadId: 1, threadName: "MainThread", tasks: [fetch] }] };

const readCases: { name: string; answer: unknown; expected: TasksBody | string }[] = [
  { name: "a whole answer", answer: body, expected: body },
  { name: "no loop at all", answer: { loops: [] }, expected: { loops: [] } },
  { name: "not an object", answer: null, expected: "the answer has no list of loops" },
  { name: "a loop without tasks", answer: { loops: [{ threadId: 1, threadName: "MainThread" }] }, expected: "a loop of the answer has no thread or no list of tasks" },
  {
    name: "a task in an unknown state",
    answer: { loops: [{ threadId: 1, threadName: "MainThread", tasks: [{ ...fetch, state: "sleeping" }] }] },
    expected: "a task of the answer lacks its id, name, state or description",
  },
];
for (const { name, answer, expected } of readCases) test(`readTasksBody: ${name}`, () => assert.deepEqual(readTasksBody(answer), expected));

test("every state has an icon of its own", () => {
  const states: TaskState[] = ["running", "waiting", "ready", "notStarted", "done", "cancelled", "failed"];
  assert.equal(new Set(states.map(stateIcon)).size, states.length);
});

const locationCases: { location: { line: number; source?: { path?: string; name?: string } }; expected: string }[] = [
  { location: { line: 12, source: { path: "/w/app.py" } }, expected: "app.py:12" },
  { location: { line: 3, source: { path: "C:\\w\\app.py" } }, expected: "app.py:3" },
  { location: { line: 3, source: { name: "<string>" } }, expected: "<string>:3" },
  { location: { line: 5 }, expected: "line 5" },
];
for (const { location, expected } of locationCases) test(`locationText: ${expected}`, () => assert.equal(locationText(location), expected));

test("a task's tooltip says what it does, where, and who awaits it", () => {
  assert.equal(taskTooltip(fetch), "Task 'fetch-1': waiting in asyncio.sleep\nat fetch (app.py:12)\nawaited by Task 'Task-1' (asyncio.gather)");
  assert.equal(taskTooltip({ id: 1, name: "main", state: "running", description: "running" }), "Task 'main': running");
});

const emptyCases: { name: string; body: TasksBody | undefined; stopped: boolean; expected: string | undefined }[] = [
  { name: "running", body: undefined, stopped: false, expected: "The tasks are shown while the program is paused." },
  { name: "no loop", body: { loops: [] }, stopped: true, expected: "No asyncio event loop runs in this program." },
  { name: "a loop without tasks", body: { loops: [{ threadId: 1, threadName: "MainThread", tasks: [] }] }, stopped: true, expected: "The event loop has no tasks." },
  { name: "tasks", body, stopped: true, expected: undefined },
];
for (const { name, body: given, stopped, expected } of emptyCases) test(`emptyMessage: ${name}`, () => assert.equal(emptyMessage(given, stopped), expected));
