// package.json declares the language-model tools VS Code shows before the extension
// runs; they must be the table's tools, with the table's schemas.

import assert from "assert/strict";
import * as fs from "fs";
import * as path from "path";
import { test } from "node:test";
import { findExtensionRoot } from "../extensionRoot";
import { languageModelToolContribution, MCP_PROVIDER_ID } from "./contributions";
import { AGENT_TOOLS } from "./tools";

function manifest(): { contributes: { languageModelTools?: unknown[]; mcpServerDefinitionProviders?: { id: string }[] } } {
  const root = findExtensionRoot(__dirname);
  assert.ok(root);
  return JSON.parse(fs.readFileSync(path.join(root.directory, "package.json"), "utf8"));
}

test("package.json's languageModelTools are the agent tools' table (BLESS=1 rewrites them)", () => {
  const expected = AGENT_TOOLS.map(languageModelToolContribution);
  if (process.env.BLESS === "1") {
    const root = findExtensionRoot(__dirname);
    assert.ok(root);
    const file = path.join(root.directory, "package.json");
    const json = JSON.parse(fs.readFileSync(file, "utf8"));
    json.contributes.languageModelTools = expected;
    fs.writeFileSync(file, JSON.stringify(json, null, 2) + "\n");
  }
  assert.deepEqual(manifest().contributes.languageModelTools, JSON.parse(JSON.stringify(expected)));
});

test("package.json declares the MCP server definition provider the extension registers", () => {
  assert.deepEqual(manifest().contributes.mcpServerDefinitionProviders?.map((p) => p.id), [MCP_PROVIDER_ID]);
});
