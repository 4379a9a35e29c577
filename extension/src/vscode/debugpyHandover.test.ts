import assert from "assert/strict";
import { test } from "node:test";
import { decide, handOver, isDebugpyConfiguration, isDebugTest, withTestConfiguration, type DebugpySituation } from "./debugpyHandover";

test("who runs a debugpy configuration: the setting, else the workspace's answer, else ask (when debugpy is there to choose)", () => {
  const cases: [DebugpySituation, ReturnType<typeof decide>][] = [
    [{ setting: "always", remembered: "debugpy", debugpyInstalled: true }, "dapper"],
    [{ setting: "never", remembered: "dapper", debugpyInstalled: false }, "debugpy"],
    [{ setting: "ask", remembered: undefined, debugpyInstalled: true }, "ask"],
    [{ setting: "ask", remembered: "dapper", debugpyInstalled: true }, "dapper"],
    [{ setting: "ask", remembered: "debugpy", debugpyInstalled: true }, "debugpy"],
    // Nothing else could run it.
    [{ setting: "ask", remembered: undefined, debugpyInstalled: false }, "dapper"],
    [{ setting: "ask", remembered: "debugpy", debugpyInstalled: false }, "dapper"],
    // A value the setting does not offer counts as its default.
    [{ setting: 3, remembered: undefined, debugpyInstalled: true }, "ask"],
  ];
  for (const [situation, expected] of cases) assert.equal(decide(situation), expected, JSON.stringify(situation));
});

test("a debugpy configuration becomes a dapper one that says which type it had", () => {
  const cases: [Record<string, unknown>, unknown, Record<string, unknown>][] = [
    [
      { type: "debugpy", request: "launch", name: "Flask", module: "flask", jinja: true },
      undefined,
      { type: "dapper", __dapperFromType: "debugpy", request: "launch", name: "Flask", module: "flask", jinja: true },
    ],
    [
      { type: "python", request: "attach", name: "Attach", connect: { port: 5678 } },
      false,
      { type: "dapper", __dapperFromType: "python", request: "attach", name: "Attach", connect: { port: 5678 }, justMyCode: false },
    ],
    // The configuration's own justMyCode (or debugStdLib) wins over debugpy's setting.
    [
      { type: "debugpy", request: "launch", name: "n", program: "/a.py", justMyCode: true },
      false,
      { type: "dapper", __dapperFromType: "debugpy", request: "launch", name: "n", program: "/a.py", justMyCode: true },
    ],
    [
      { type: "debugpy", request: "launch", name: "n", program: "/a.py", debugStdLib: true },
      true,
      { type: "dapper", __dapperFromType: "debugpy", request: "launch", name: "n", program: "/a.py", debugStdLib: true },
    ],
    // VS Code refuses any request but launch and attach before an adapter sees it.
    [
      { type: "python", request: "test", name: "Tests" },
      undefined,
      { type: "dapper", __dapperFromType: "python", request: "launch", name: "Tests", purpose: ["debug-test"] },
    ],
  ];
  for (const [given, setting, expected] of cases) {
    assert.deepEqual(handOver(given as never, setting), expected);
  }
  assert.ok(isDebugpyConfiguration({ type: "debugpy" }) && isDebugpyConfiguration({ type: "python" }));
  assert.ok(!isDebugpyConfiguration({ type: "dapper" }) && !isDebugpyConfiguration({}));
});

test("Debug Test takes its options from a dapper configuration with purpose debug-test, keeping what to run", () => {
  const run = {
    type: "debugpy",
    request: "launch",
    name: "Debug Unit Test",
    program: "/ext/python_files/vscode_pytest/run_pytest_script.py",
    args: ["tests/test_a.py::test_one"],
    env: { TEST_RUN_PIPE: "/tmp/p1", PATH: "/bin" },
    justMyCode: true,
    __vscodeTestSessionMarker: "test-1",
  };
  const launchJson = [
    { type: "dapper", request: "launch", name: "Run app", program: "/w/app.py" },
    { type: "dapper", request: "launch", name: "Tests", purpose: ["debug-test"], program: "/ignored.py", justMyCode: false, env: { DEBUG: "1" } },
  ];
  assert.deepEqual(withTestConfiguration(run, launchJson), {
    ...run,
    justMyCode: false,
    env: { TEST_RUN_PIPE: "/tmp/p1", PATH: "/bin", DEBUG: "1" },
  });
  // Not a test run, or no such configuration: unchanged.
  const plain: Record<string, unknown> = { ...run };
  delete plain.__vscodeTestSessionMarker;
  assert.deepEqual(withTestConfiguration(plain as never, launchJson), plain);
  assert.deepEqual(withTestConfiguration(run, [launchJson[0]]), run);
  assert.deepEqual(withTestConfiguration(run, undefined), run);
  assert.ok(isDebugTest({ purpose: ["debug-test"] }) && !isDebugTest({ purpose: [] }));
});
