// .github/workflows/ci.yml, which no machine of this project can run: it stays valid YAML
// (the `yaml` package, pinned in package.json) and valid against GitHub's own workflow
// schema (@actions/workflow-parser, pinned: the parser behind GitHub's Actions language
// service, with the schema it ships), and it does what its header and the README say:
// the README's two commands in every job, on Linux, Windows and macOS, with the Pythons
// the README's platform table names.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { register } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const file = path.join(root, ".github", "workflows", "ci.yml");
const text = readFileSync(file, "utf8");

// @actions/workflow-parser imports its schema (a .json file) without the import attribute
// Node requires for JSON modules; this hook adds it, for that package's files only.
const jsonAttribute = `export async function load(url, context, next) {
  if (url.endsWith(".json") && url.includes("/@actions/workflow-parser/")) {
    return { ...(await next(url, { ...context, importAttributes: { type: "json" } })), shortCircuit: true };
  }
  return next(url, context);
}`;
register(`data:text/javascript,${encodeURIComponent(jsonAttribute)}`);

/** The workflow's errors by GitHub's schema, one message each (file, line, column, what). */
async function schemaErrors(content) {
  const { parseWorkflow, convertWorkflowTemplate, NoOperationTraceWriter } = await import("@actions/workflow-parser");
  const parsed = parseWorkflow({ name: "ci.yml", content }, new NoOperationTraceWriter());
  await convertWorkflowTemplate(parsed.context, parsed.value);
  return parsed.context.errors.getErrors().map((error) => error.message);
}

async function parseYaml(content) {
  const { parseDocument } = await import("yaml");
  return parseDocument(content, { prettyErrors: true });
}

test("ci.yml is YAML without errors or warnings", async () => {
  const document = await parseYaml(text);
  assert.deepEqual([...document.errors, ...document.warnings].map(String), []);
});

test("ci.yml is a valid workflow by GitHub's own schema", async () => {
  assert.deepEqual(await schemaErrors(text), []);
});

test("the schema check finds a broken workflow (so the check above can fail)", async () => {
  const broken = text.replace("runs-on: ${{ matrix.os }}", "runs_on: ${{ matrix.os }}").replace("timeout-minutes: 150", "timeout-minutes: soon");
  const errors = await schemaErrors(broken);
  assert.ok(errors.some((message) => /Unexpected value 'runs_on'/.test(message)), errors.join("\n"));
  assert.ok(errors.some((message) => /Unexpected value 'soon'/.test(message)), errors.join("\n"));
});

test("its header says it has never run, why, and what it runs", () => {
  const header = text.split("\n").filter((line) => line.startsWith("#")).join("\n");
  assert.match(header, /This workflow has never run/);
  assert.match(header, /reach\n# no GitHub runner/);
  assert.match(header, /`npm start` then `npm test`/);
  assert.match(header, /scripts\/test\/workflow\.test\.mjs/);
});

test("every job runs the README's two commands last, on Linux, Windows and macOS", async () => {
  const workflow = (await parseYaml(text)).toJS();
  const runners = [];
  for (const [name, job] of Object.entries(workflow.jobs)) {
    const commands = job.steps.filter((step) => step.run !== undefined).map((step) => step.run.trim());
    assert.deepEqual(commands.slice(-2), ["npm start", "npm test"], name);
    runners.push(...(job.strategy?.matrix?.os ?? [job["runs-on"]]));
  }
  assert.deepEqual(runners.map((runner) => runner.split("-")[0]).sort(), ["macos", "ubuntu", "windows"]);
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  assert.match(readme, /npm start +# /);
  assert.match(readme, /npm test +# /);
});

test("its Pythons are those the README's platform table says are tested there", async () => {
  const workflow = (await parseYaml(text)).toJS();
  const pyenv = workflow.jobs.linux.steps.find((step) => /pyenv" install/.test(step.run ?? "")).run;
  const linux = /for version in ([\d. ]+);/.exec(pyenv)[1].trim().split(" ");
  const setup = workflow.jobs["windows-macos"].steps.filter((step) => step.uses?.startsWith("actions/setup-python"));
  const released = setup.map((step) => String(step.with["python-version"]).trim().split("\n")).at(-1);
  const prerelease = setup.filter((step) => step.with["allow-prereleases"]).map((step) => String(step.with["python-version"]));
  const table = readFileSync(path.join(root, "README.md"), "utf8").split("\n").filter((line) => line.startsWith("|"));
  const row = (label) => table.find((line) => line.startsWith(`| ${label}`)) ?? assert.fail(`the README's platform table has no "${label}" row`);
  const [, , linuxCell, windowsCell, macCell] = row("CPython").split("|").map((cell) => cell.trim());
  assert.equal(linuxCell, `${linux[0]}–${linux.at(-1)}, 3.14, 3.15 (Debian sid)`);
  for (const cell of [windowsCell, macCell]) assert.equal(cell, `${released[0]}–${released.at(-1)}, ${prerelease.join(", ")} when a pre-release build exists`);
});
