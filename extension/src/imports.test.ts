// The host's import graph: no cycles, and each layer imports only what it may
// (the folder map and its arrows: extension/src/README.md).

import assert from "assert/strict";
import * as path from "path";
import { test } from "node:test";
import { findExtensionRoot } from "./extensionRoot";
import { findCycles, importGraphOf, readImportGraph, type ImportGraph } from "./testing/importGraph";

function sourceGraph(): ImportGraph {
  const root = findExtensionRoot(__dirname);
  assert.ok(root, `no extension root above ${__dirname}`);
  return readImportGraph(path.join(root.directory, "extension", "src"));
}

const isTestCode = (file: string) => file.endsWith(".test.ts") || file.startsWith("testing/");
const within = (file: string, places: readonly string[]) =>
  places.some((place) => (place.endsWith("/") ? file.startsWith(place) : file === place));

test("extension/src has no import cycle (type-only imports count)", () => {
  const graph = sourceGraph();
  assert.ok(graph.local.has("host/host.ts") && graph.local.has("extension.ts"), "the graph has the host's files");
  const cycles = findCycles(graph.local).map((cycle) => cycle.join(" → "));
  assert.deepEqual(cycles, [], `import cycles:\n  ${cycles.join("\n  ")}`);
});

// Which files each kind of module may import, outside tests and test helpers.
const localRules: { files: string; mayImport: readonly string[]; why: string }[] = [
  {
    files: "host/executors/",
    // messages.ts, like the contract, is generated from the engine: the facts about an
    // interpreter are reported in the engine's own terms.
    mayImport: ["host/executors/", "host/protocol.ts", "host/messages.ts", "log.ts"],
    why: "executors carry out outputs and report facts; they never import the host",
  },
  {
    files: "host/",
    mayImport: ["host/", "log.ts"],
    why: "the host serves every entry point, so it imports none of them nor their parts",
  },
  {
    files: "standalone/",
    mayImport: ["standalone/", "host/clients.ts", "host/protocol.ts", "host/executors/peer.ts", "log.ts"],
    why: "the standalone adapter's parts see the host only as a ClientHost",
  },
  {
    files: "vscode/",
    mayImport: ["vscode/", "host/", "autoAttach/", "agent/", "log.ts"],
    why: "the VS Code side uses the host; the standalone adapter is not its business",
  },
  {
    files: "agent/",
    mayImport: ["agent/", "host/clients.ts", "host/protocol.ts", "log.ts"],
    why: "the agent's tools serve both the MCP server and VS Code, so they see the engine only as a ClientHost and VS Code not at all",
  },
  {
    files: "mcp/",
    mayImport: ["mcp/", "agent/", "log.ts"],
    why: "the MCP server is a transport for the agent's tools and nothing more",
  },
  {
    files: "autoAttach/",
    mayImport: ["autoAttach/", "log.ts"],
    why: "terminal auto-attach's broker runs without VS Code (its end-to-end test) and apart from the host",
  },
  {
    files: "log.ts",
    mayImport: ["host/protocol.ts"],
    why: "everything logs, so the log imports nothing but the level's type",
  },
];

test("each layer of extension/src imports only what it may", () => {
  const graph = sourceGraph();
  const broken: string[] = [];
  for (const [file, targets] of graph.local) {
    if (isTestCode(file)) continue;
    // The most specific rule (the longest `files`) is the one that applies.
    const rule = localRules.filter((r) => within(file, [r.files])).sort((a, b) => b.files.length - a.files.length)[0];
    if (rule === undefined) continue;
    for (const target of targets) {
      if (!within(target, rule.mayImport)) broken.push(`${file} imports ${target}: ${rule.why}`);
    }
  }
  assert.deepEqual(broken, []);
});

test("only the VS Code entry point and vscode/ import vscode, and nothing but tests imports testing/", () => {
  const graph = sourceGraph();
  const broken: string[] = [];
  for (const [file, externals] of graph.external) {
    if (externals.includes("vscode") && !within(file, ["extension.ts", "vscode/"])) {
      broken.push(`${file} imports vscode: the standalone adapter runs without VS Code; one place per VS Code API concern is under vscode/`);
    }
  }
  for (const [file, targets] of graph.local) {
    if (!isTestCode(file) && targets.some((target) => target.startsWith("testing/"))) broken.push(`${file} imports testing/`);
  }
  assert.deepEqual(broken, []);
});

test("only mcp/ and the tests import the MCP SDK, so the VS Code extension's bundle does without it", () => {
  const graph = sourceGraph();
  const broken = [...graph.external]
    .filter(([file, externals]) => !isTestCode(file) && !file.startsWith("mcp/") && externals.some((name) => name.startsWith("@modelcontextprotocol/")))
    .map(([file]) => file);
  assert.deepEqual(broken, []);
});

// The checker itself, on made-up files: a check that cannot fail proves nothing.
const graphCases: { name: string; files: Record<string, string>; cycles: string[][] }[] = [
  { name: "a chain", files: { "a.ts": 'import { b } from "./b";', "b.ts": 'import "./c";', "c.ts": "" }, cycles: [] },
  {
    name: "a cycle through a folder, a type-only import and export … from",
    files: {
      "a.ts": 'import type { B } from "./sub/b";',
      "sub/b.ts": 'export { c } from "../c";',
      "c.ts": 'import * as fs from "fs";\nconst a = require("./a");',
    },
    cycles: [["a.ts", "sub/b.ts", "c.ts", "a.ts"]],
  },
  { name: "a file importing itself", files: { "a.ts": 'import("./a");' }, cycles: [["a.ts", "a.ts"]] },
  {
    name: "two separate cycles, the shortest path of each",
    files: {
      "a.ts": 'import "./b";',
      "b.ts": 'import "./a"; import "./c";',
      "c.ts": 'import "./a";',
      "x/index.ts": 'import "./y";',
      "x/y.ts": 'import "../x";',
    },
    cycles: [
      ["a.ts", "b.ts", "a.ts"],
      ["x/index.ts", "x/y.ts", "x/index.ts"],
    ],
  },
  { name: "imports in comments and strings", files: { "a.ts": '// import "./b";\nconst s = \'import "./b"\';', "b.ts": 'import "./a";' }, cycles: [] },
];

for (const { name, files, cycles } of graphCases) {
  test(`the import graph checker: ${name}`, () => {
    assert.deepEqual(findCycles(importGraphOf(new Map(Object.entries(files))).local), cycles);
  });
}

test("the import graph keeps packages and paths outside the directory apart from its files", () => {
  const graph = importGraphOf(new Map([["a/b.ts", 'import * as vscode from "vscode";\nrequire("../../wasm-pkg/x");\nimport "../c";'], ["c.ts", ""]]));
  assert.deepEqual(graph.local.get("a/b.ts"), ["c.ts"]);
  assert.deepEqual(graph.external.get("a/b.ts"), ["vscode", "../../wasm-pkg/x"]);
});
