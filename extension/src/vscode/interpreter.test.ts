import assert from "assert/strict";
import { test } from "node:test";
import { activeInterpreterOf, chooseInterpreter, expandSettingPath, type InterpreterChoice, type PythonEnvironmentsApi } from "./interpreter";

// What the Python extension does in a case: answer with a path, answer nothing, fail, or hang.
type ExtensionBehaviour = { answers: string | undefined } | { fails: string } | "hangs";

interface Case {
  name: string;
  configured?: unknown;
  extension: ExtensionBehaviour;
  setting?: unknown;
  expected: InterpreterChoice;
}

const cases: Case[] = [
  {
    name: "a python in the launch configuration wins over everything",
    configured: "/opt/py/bin/python3",
    extension: { answers: "/ext/python" },
    setting: "/set/python",
    expected: { python: "/opt/py/bin/python3", source: "launch configuration", notes: [] },
  },
  {
    name: "a non-string python in the configuration is kept for the engine to reject",
    configured: 42,
    extension: { answers: "/ext/python" },
    expected: { python: undefined, source: "launch configuration", notes: [] },
  },
  {
    name: "the Python extension's interpreter comes before the setting",
    extension: { answers: "/ext/python" },
    setting: "/set/python",
    expected: { python: "/ext/python", source: "Python extension", notes: [] },
  },
  {
    name: "an empty python in the configuration counts as none",
    configured: "",
    extension: { answers: "/ext/python" },
    expected: { python: "/ext/python", source: "Python extension", notes: [] },
  },
  {
    name: "the setting is used when the Python extension is absent",
    extension: { answers: undefined },
    setting: "/set/python",
    expected: { python: "/set/python", source: "setting dapper.python", notes: [] },
  },
  {
    name: "an empty answer of the Python extension falls through to the setting",
    extension: { answers: "  " },
    setting: "/set/python",
    expected: { python: "/set/python", source: "setting dapper.python", notes: ["the Python extension returned no interpreter path"] },
  },
  {
    name: "a failing Python extension falls through to the setting, with the reason",
    extension: { fails: "not activated" },
    setting: "/set/python",
    expected: { python: "/set/python", source: "setting dapper.python", notes: ["the Python extension failed: not activated"] },
  },
  {
    name: "a Python extension that hangs is given up on",
    extension: "hangs",
    setting: "/set/python",
    expected: { python: "/set/python", source: "setting dapper.python", notes: ["the Python extension did not answer within 50 ms"] },
  },
  {
    name: "nothing anywhere leaves it to the engine",
    extension: { answers: undefined },
    expected: { python: undefined, source: "python3 on PATH", notes: [] },
  },
  {
    name: "a setting that is not a string is ignored, with the reason",
    extension: { answers: undefined },
    setting: ["python3"],
    expected: { python: undefined, source: "python3 on PATH", notes: ['the setting dapper.python is not a string (["python3"]) and was ignored'] },
  },
];

function extensionOf(behaviour: ExtensionBehaviour): () => Promise<string | undefined> {
  if (behaviour === "hangs") return () => new Promise(() => undefined);
  if ("fails" in behaviour) return () => Promise.reject(new Error(behaviour.fails));
  return () => Promise.resolve(behaviour.answers);
}

for (const c of cases) {
  test(`interpreter: ${c.name}`, async () => {
    const choice = await chooseInterpreter(c.configured, {
      pythonExtension: extensionOf(c.extension),
      setting: () => c.setting,
      timeoutMs: 50,
    });
    assert.deepEqual(choice, c.expected);
  });
}

// activeInterpreterOf: what the Python extension's environments API gives, and the executable expected.
interface ApiCase {
  name: string;
  active: { id?: string; path?: string } | undefined;
  resolved?: string | undefined | "no resolveEnvironment";
  expected: string | undefined;
}

const apiCases: ApiCase[] = [
  { name: "no active environment", active: undefined, expected: undefined },
  { name: "an active environment without a path", active: { id: "x" }, expected: undefined },
  { name: "a folder resolved to its executable", active: { path: "/envs/venv" }, resolved: "/envs/venv/bin/python", expected: "/envs/venv/bin/python" },
  { name: "an environment the extension cannot resolve keeps its raw path", active: { path: "/usr/bin/python3" }, resolved: undefined, expected: "/usr/bin/python3" },
  { name: "an older API without resolveEnvironment", active: { path: "/usr/bin/python3" }, resolved: "no resolveEnvironment", expected: "/usr/bin/python3" },
];

for (const c of apiCases) {
  test(`Python extension API: ${c.name}`, async () => {
    const seen: unknown[] = [];
    const api: PythonEnvironmentsApi = {
      getActiveEnvironmentPath: (resource) => {
        seen.push(resource);
        return c.active;
      },
    };
    if (c.resolved !== "no resolveEnvironment") {
      const resolved = c.resolved;
      api.resolveEnvironment = async () => (resolved === undefined ? undefined : { executable: { uri: { fsPath: resolved } } });
    }
    assert.equal(await activeInterpreterOf(api, "the-resource"), c.expected);
    assert.deepEqual(seen, ["the-resource"], "the resource is passed through to the Python extension");
  });
}

// expandSettingPath: the setting as written, the workspace folder, and the path expected.
const expansions: [string, string | undefined, string][] = [
  ["/usr/bin/python3", "/ws", "/usr/bin/python3"],
  ["python3.12", "/ws", "python3.12"],
  ["${workspaceFolder}/.venv/bin/python", "/ws", "/ws/.venv/bin/python"],
  ["${workspaceFolder}/.venv/bin/python", undefined, "${workspaceFolder}/.venv/bin/python"],
  ["~/venvs/a/bin/python", "/ws", "/home/u/venvs/a/bin/python"],
  ["~", undefined, "/home/u"],
  ["~other/bin/python", "/ws", "~other/bin/python"],
  ["  /padded/python  ", "/ws", "/padded/python"],
];

for (const [written, workspaceFolder, expected] of expansions) {
  test(`the setting ${JSON.stringify(written)} with workspace folder ${workspaceFolder ?? "(none)"} is ${expected}`, () => {
    assert.equal(expandSettingPath(written, { workspaceFolder, home: "/home/u" }), expected);
  });
}
