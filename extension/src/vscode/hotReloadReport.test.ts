// What the hot-reload command shows, and which frame it restarts, from the debuggee's result.
import assert from "assert/strict";
import { test } from "node:test";
import { compileErrorLocation, frameToRestart, type HotReloadResult, hotReloadSummary, hotReloadWarnings, StoppedThreads } from "./hotReloadReport";

const result: HotReloadResult = {
  path: "/w/app.py",
  reloadedModule: "__main__",
  updated: ["area", "Shape.describe"],
  added: ["helper"],
  removed: [],
  refused: [{ name: "Point", reason: "its __slots__ changed" }],
  warnings: ["line 40 (a top-level statement) changed: not re-run"],
  framesRunningOldCode: [
    { threadId: 1, frameId: 7, name: "area", line: 3 },
    { threadId: 1, frameId: 9, name: "main", line: 20 },
    { threadId: 2, frameId: 11, name: "area", line: 3 },
  ],
  durationMs: 4.4,
};

const cases: { name: string; result: HotReloadResult; expected: string }[] = [
  {
    name: "a full result",
    result,
    expected: "Hot reload of app.py (__main__) in 4 ms: 2 definitions updated, 1 added, 1 left as they were; 3 frames on the stack still run the old code (Restart Frame runs them again with the new code; new calls run it).",
  },
  { name: "nothing changed", result: { updated: [] }, expected: "Hot reload of app.py: 0 definitions updated." },
  { name: "one frame", result: { updated: ["f"], framesRunningOldCode: [{ frameId: 1 }] }, expected: "Hot reload of app.py: 1 definition updated; 1 frame on the stack still runs the old code (Restart Frame runs it again with the new code; new calls run it)." },
  { name: "removed and deferred", result: { updated: [], removed: ["g"], deferred: ["h", "i"] }, expected: "Hot reload of app.py: 0 definitions updated, 1 removed (kept in the program), 2 waiting until no thread runs them." },
];
for (const { name, result: body, expected } of cases) test(`summary: ${name}`, () => assert.equal(hotReloadSummary(body, "app.py"), expected));

test("warnings list the debuggee's warnings, then each refusal with its reason", () => {
  assert.deepEqual(hotReloadWarnings(result), ["line 40 (a top-level statement) changed: not re-run", "Point was not reloaded: its __slots__ changed"]);
  assert.deepEqual(hotReloadWarnings({ warnings: "not a list" as unknown as string[] }), []);
});

test("the frame restarted is the focused one, only if it runs old code", () => {
  assert.equal(frameToRestart(result, { threadId: 1, frameId: 7 }), 7);
  assert.equal(frameToRestart(result, { threadId: 1, frameId: 8 }), undefined);
  assert.equal(frameToRestart(result, { threadId: 2 }), 11);
  assert.equal(frameToRestart(result, { threadId: 3 }), undefined);
  assert.equal(frameToRestart(result, undefined), undefined);
});

test("a compile error's line and column are read from the message", () => {
  assert.deepEqual(compileErrorLocation("app.py does not compile: line 12, column 5: invalid syntax"), { line: 12, column: 5 });
  assert.deepEqual(compileErrorLocation("SyntaxError: invalid syntax (app.py, line 3)"), { line: 3, column: 1 });
  assert.equal(compileErrorLocation("the file is not loaded"), undefined);
});

test("a session counts as stopped from its stopped event until it resumes", () => {
  const threads = new StoppedThreads();
  assert.equal(threads.any, false);
  threads.fromAdapter({ type: "event", event: "stopped", body: { threadId: 1, allThreadsStopped: true } });
  assert.equal(threads.any, true);
  threads.fromClient({ type: "request", command: "evaluate" });
  assert.equal(threads.any, true);
  threads.fromClient({ type: "request", command: "next" });
  assert.equal(threads.any, false);
  threads.fromAdapter({ type: "event", event: "stopped", body: { threadId: 2 } });
  threads.fromAdapter({ type: "event", event: "continued", body: { threadId: 2, allThreadsContinued: false } });
  assert.equal(threads.any, false);
  threads.fromAdapter({ type: "event", event: "stopped", body: { threadId: 2 } });
  threads.fromAdapter({ type: "event", event: "continued", body: { threadId: 2 } });
  assert.equal(threads.any, false);
  threads.fromAdapter({ type: "event", event: "stopped", body: { threadId: 2 } });
  threads.fromAdapter({ type: "event", event: "terminated" });
  assert.equal(threads.any, false);
});
