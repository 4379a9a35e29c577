import assert from "assert/strict";
import { test } from "node:test";
import { dynamicConfigurations, fileConfiguration, type FileConfigurationResult, type FileDescription, type Mode } from "./fileConfiguration";

interface Case {
  name: string;
  file: FileDescription | undefined;
  mode: Mode;
  expected: FileConfigurationResult;
}

const debugA = {
  type: "dapper",
  request: "launch",
  name: "Dapper: Current File",
  program: "/w/a.py",
  console: "integratedTerminal",
};

const cases: Case[] = [
  {
    name: "a saved Python editor is debugged as a program",
    file: { scheme: "file", fsPath: "/w/a.py", languageId: "python" },
    mode: "debug",
    expected: { configuration: debugA },
  },
  {
    name: "running adds noDebug and says so in the name",
    file: { scheme: "file", fsPath: "/w/a.py", languageId: "python" },
    mode: "run",
    expected: { configuration: { ...debugA, name: "Dapper: Run Current File", noDebug: true } },
  },
  {
    name: "a file from a menu has no language: its suffix decides",
    file: { scheme: "file", fsPath: "/w/a.py" },
    mode: "debug",
    expected: { configuration: debugA },
  },
  {
    name: "the language wins over the suffix (a script without .py)",
    file: { scheme: "file", fsPath: "/w/tool", languageId: "python" },
    mode: "debug",
    expected: { configuration: { ...debugA, program: "/w/tool" } },
  },
  {
    name: "no editor at all",
    file: undefined,
    mode: "debug",
    expected: { error: "Dapper: there is no Python file to debug. Open a Python file, or add a launch configuration to launch.json." },
  },
  {
    name: "an editor in another language",
    file: { scheme: "file", fsPath: "/w/notes.md", languageId: "markdown" },
    mode: "run",
    expected: { error: "Dapper: /w/notes.md is not a Python file, so Dapper cannot run it." },
  },
  {
    name: "a menu file that is not Python",
    file: { scheme: "file", fsPath: "/w/data.txt" },
    mode: "debug",
    expected: { error: "Dapper: /w/data.txt is not a Python file, so Dapper cannot debug it." },
  },
  {
    name: "an untitled Python editor must be saved first",
    file: { scheme: "untitled", fsPath: "Untitled-1", languageId: "python" },
    mode: "debug",
    expected: { error: "Dapper: save the file before you debug it; Python runs files from disk." },
  },
  {
    name: "a file of a remote file system cannot be run by a local Python",
    file: { scheme: "vscode-vfs", fsPath: "/repo/a.py", languageId: "python" },
    mode: "debug",
    expected: { error: "Dapper: /repo/a.py is not on this machine's disk (vscode-vfs:), so Python cannot debug it." },
  },
];

for (const { name, file, mode, expected } of cases) {
  test(`fileConfiguration: ${name}`, () => {
    assert.deepEqual(fileConfiguration(file, mode), expected);
  });
}

test("the dynamic configuration debugs whichever file is active when it starts", () => {
  assert.deepEqual(dynamicConfigurations(), [
    { type: "dapper", request: "launch", name: "Dapper: Current File", program: "${file}", console: "integratedTerminal" },
  ]);
});
