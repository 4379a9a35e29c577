// Checks package.json's contributions against the code that backs them: every command
// is registered, every menu entry names a contributed command, and the extension
// activates only on what the issue allows.
import assert from "assert/strict";
import * as fs from "fs";
import * as path from "path";
import { test } from "node:test";
import { findExtensionRoot } from "../extensionRoot";
import { DEBUG_FILE_COMMAND, DEBUG_TYPE, RUN_FILE_COMMAND } from "./fileConfiguration";
import { HOT_RELOAD_COMMAND } from "./hotReloadReport";
import { ATTACH_TO_PROCESS_COMMAND, PICK_PROCESS_COMMAND, PICK_PROCESS_VARIABLE } from "./processChoice";
import { AUTO_ATTACH_MODES } from "../autoAttach/broker";
import { TOGGLE_AUTO_ATTACH_COMMAND } from "./autoAttachModes";
import { REPLAY_SESSION_LOG_COMMAND } from "./sessionLogSetting";
import { DEBUGPY_TYPES } from "../host/debugpy";
import { TASKS_VIEW } from "./tasksModel";

interface Manifest {
  activationEvents: string[];
  contributes: {
    commands: { command: string; title: string }[];
    menus: Record<string, { command: string; when?: string }[]>;
    debuggers: {
      type: string;
      variables?: Record<string, string>;
      initialConfigurations: Record<string, unknown>[];
      configurationSnippets: { label: string; body: Record<string, unknown> }[];
      configurationAttributes?: Record<string, { properties: Record<string, unknown> }>;
    }[];
    keybindings?: { command: string; key: string; mac?: string; when?: string }[];
    views?: Record<string, { id: string; name: string; when?: string }[]>;
    configuration?: { properties: Record<string, { enum?: string[]; enumDescriptions?: string[]; default?: unknown }> };
  };
}

function manifest(): Manifest {
  const root = findExtensionRoot();
  assert.ok(root, "the extension root (package.json) is found");
  return JSON.parse(fs.readFileSync(path.join(root.directory, "package.json"), "utf8")) as Manifest;
}

test("the contributed commands are exactly the ones the extension registers, with their titles", () => {
  const titles = Object.fromEntries(manifest().contributes.commands.map(({ command, title }) => [command, title]));
  assert.deepEqual(titles, {
    [DEBUG_FILE_COMMAND]: "Dapper: Debug Python File",
    [RUN_FILE_COMMAND]: "Dapper: Run Python File",
    [HOT_RELOAD_COMMAND]: "Dapper: Hot Reload Current File",
    [ATTACH_TO_PROCESS_COMMAND]: "Dapper: Attach to Process",
    [TOGGLE_AUTO_ATTACH_COMMAND]: "Dapper: Toggle Auto Attach",
    [REPLAY_SESSION_LOG_COMMAND]: "Dapper: Replay Session Log…",
  });
});

test("${command:pickProcess} runs the picker command, and launch.json offers it in a new file and as a snippet", () => {
  const [dapper] = manifest().contributes.debuggers;
  assert.deepEqual(dapper?.variables, { [PICK_PROCESS_VARIABLE]: PICK_PROCESS_COMMAND });
  const variable = `\${command:${PICK_PROCESS_VARIABLE}}`;
  assert.ok(
    dapper.initialConfigurations.some((configuration) => configuration.request === "attach" && configuration.processId === variable),
    "a new launch.json has an attach configuration with the picker",
  );
  // A snippet's body is a snippet: its `$` is escaped, and `^"…"` keeps the quotes.
  const snippet = dapper.configurationSnippets.find(({ body }) => body.request === "attach" && "processId" in body);
  assert.equal(snippet?.body.processId, `^"\\${variable}"`);
});

const menuCases: { menu: string; command: string; when: string }[] = [
  { menu: "editor/title/run", command: DEBUG_FILE_COMMAND, when: "resourceLangId == python" },
  { menu: "editor/title/run", command: RUN_FILE_COMMAND, when: "resourceLangId == python" },
  { menu: "commandPalette", command: DEBUG_FILE_COMMAND, when: "editorLangId == python" },
  { menu: "commandPalette", command: RUN_FILE_COMMAND, when: "editorLangId == python" },
  { menu: "commandPalette", command: HOT_RELOAD_COMMAND, when: "editorLangId == python" },
];

for (const { menu, command, when } of menuCases) {
  test(`menu ${menu} shows ${command} only for Python files`, () => {
    const entry = manifest().contributes.menus[menu]?.find((item) => item.command === command);
    assert.ok(entry, `${command} is in ${menu}`);
    assert.ok(entry.when?.split("&&").map((part) => part.trim()).includes(when), `${entry.when} requires ${when}`);
  });
}

test("Ctrl+Alt+R (Cmd+Alt+R) hot-reloads only while a Dapper session is stopped and a Python editor has focus", () => {
  const { keybindings } = manifest().contributes;
  const binding = keybindings?.find((item) => item.command === HOT_RELOAD_COMMAND);
  assert.ok(binding, "the hot reload command has a key");
  assert.equal(binding.key, "ctrl+alt+r");
  assert.equal(binding.mac, "cmd+alt+r");
  const when = binding.when?.split("&&").map((part) => part.trim()) ?? [];
  for (const part of ["editorTextFocus", "editorLangId == python", "debugType == 'dapper'", "debugState == 'stopped'"]) assert.ok(when.includes(part), `${binding.when} requires ${part}`);
});

test("the Tasks view is Run and Debug's, shown while a Dapper session is", () => {
  const views = manifest().contributes.views ?? {};
  assert.deepEqual(Object.keys(views), ["debug"]);
  assert.deepEqual(
    views.debug?.map(({ id, name, when }) => ({ id, name, when })),
    [{ id: TASKS_VIEW, name: "Tasks", when: `debugType == '${DEBUG_TYPE}'` }],
  );
});

test("every menu entry names a contributed command", () => {
  const { commands, menus } = manifest().contributes;
  const contributed = new Set(commands.map(({ command }) => command));
  for (const [menu, items] of Object.entries(menus)) {
    for (const { command } of items) assert.ok(contributed.has(command), `${menu} names ${command}, which is not contributed`);
  }
});

test("every configuration snippet writes only keys its request's schema describes", () => {
  const debuggerContribution = manifest().contributes.debuggers[0];
  const snippets = debuggerContribution?.configurationSnippets ?? [];
  assert.ok(snippets.length > 0, "there are configuration snippets");
  for (const { label, body } of snippets) {
    const request = String(body.request);
    const described = debuggerContribution?.configurationAttributes?.[request]?.properties ?? {};
    for (const key of Object.keys(body)) {
      if (["name", "type", "request"].includes(key)) continue;
      assert.ok(key in described, `the snippet '${label}' writes '${key}', which the ${request} schema does not describe`);
    }
  }
});

test("the extension activates on debug events for its own type (its commands activate it implicitly), and once started up for terminal auto-attach", () => {
  const { activationEvents, contributes } = manifest();
  assert.equal(contributes.debuggers[0]?.type, DEBUG_TYPE);
  // Terminals opened before any debugging get auto-attach's environment only from an
  // active extension; activating costs little (the engine is made on first use).
  // debugpy's types resolve through Dapper's provider too (dapper.debugpyConfigurations),
  // also when the Python Debugger extension, which would activate for them, is absent.
  assert.deepEqual(activationEvents, [
    `onDebugResolve:${DEBUG_TYPE}`,
    `onDebugDynamicConfigurations:${DEBUG_TYPE}`,
    ...DEBUGPY_TYPES.map((type) => `onDebugResolve:${type}`),
    "onStartupFinished",
  ]);
});

test("dapper.autoAttach offers exactly the broker's modes, disabled by default", () => {
  const { configuration } = manifest().contributes;
  const setting = configuration?.properties["dapper.autoAttach"];
  assert.deepEqual(setting?.enum, [...AUTO_ATTACH_MODES]);
  assert.equal(setting?.enumDescriptions?.length, AUTO_ATTACH_MODES.length);
  assert.equal(setting?.default, "disabled");
  assert.deepEqual(configuration?.properties["dapper.autoAttachSmartPattern"]?.default, []);
});
