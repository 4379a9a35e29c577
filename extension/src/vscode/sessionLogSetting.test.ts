import assert from "assert/strict";
import * as os from "os";
import * as path from "path";
import { test } from "node:test";
import { sessionLogFileName, traceDirectory } from "./sessionLogSetting";

// Each case: the setting's value and the folder it means (undefined: no session log).
const cases: [unknown, string | undefined][] = [
  [false, undefined],
  [undefined, undefined],
  ["", undefined],
  ["  ", undefined],
  [1, undefined],
  [true, "/vscode/logs/dapper"],
  ["/tmp/traces", "/tmp/traces"],
  ["~/traces", path.join(os.homedir(), "traces")],
  ["traces", path.join(os.homedir(), "traces")],
];
for (const [setting, folder] of cases) {
  test(`dapper.trace ${JSON.stringify(setting)} writes to ${folder}`, () => assert.equal(traceDirectory(setting, "/vscode/logs/dapper"), folder));
}

test("a session log's file name says when and which process, and is a valid file name everywhere", () => {
  assert.equal(sessionLogFileName(new Date(Date.UTC(2026, 10, 25, 16, 5, 9, 42)), 4242), "dapper-session-2026-11-25T16-05-09-042Z-4242.log");
});
