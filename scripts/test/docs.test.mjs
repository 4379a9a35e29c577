// The README and docs/ hold what a user relies on, so what they point at must exist: every
// relative link and its #anchor, every command-line flag shown for the adapter and for
// `python -m dapperdbg`, every launch and attach option in a configuration example, every
// dapper.* setting and command, and every error message of the troubleshooting table
// (each literal part of it must be in the code that says it).
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const read = (file) => readFileSync(path.join(root, file), "utf8");

const pages = ["README.md", "extension/python/README.md", ...readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];
/** The pages for users; the others (engine-io.md, ipc.md, …) describe the project's insides. */
const userPages = ["README.md", ...["vscode", "options", "attach", "auto-attach", "hot-reload", "other-editors", "troubleshooting", "data-breakpoints"].map((name) => `docs/${name}.md`)];

/** A page's text without its fenced code blocks (links and anchors live outside them). */
function prose(text) {
  return text.replace(/^```[\s\S]*?^```/gm, "");
}

/** The fenced code blocks of a page, with their language. */
function codeBlocks(text) {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)].map((match) => ({ language: match[1], code: match[2] }));
}

/** GitHub's anchor for a heading. */
function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchorsOf(file) {
  const text = prose(read(file));
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1])));
}

for (const page of pages) {
  test(`${page}: every relative link and anchor exists`, () => {
    const text = prose(read(page));
    const broken = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
      const [file, anchor] = target.split("#");
      const resolved = file === "" ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
      if (!existsSync(path.join(root, resolved))) {
        broken.push(`${target}: no file ${resolved}`);
        continue;
      }
      if (anchor !== undefined && resolved.endsWith(".md") && !anchorsOf(resolved).has(anchor)) broken.push(`${target}: no heading #${anchor} in ${resolved}`);
    }
    assert.deepEqual(broken, []);
  });
}

const allText = userPages.map((page) => read(page)).join("\n");

/** Each command line of the docs that runs `program`, as its words. */
function commandLines(pattern) {
  const lines = [];
  for (const page of pages) {
    const text = read(page);
    const code = [...codeBlocks(text).map((block) => block.code), ...[...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1])];
    // The flags come before the program; what follows it (app.py, -m module, -c code)
    // is the program's own.
    for (const line of code.join("\n").split("\n")) if (pattern.test(line)) lines.push(line.replace(/#.*$/, "").replace(/^.*?(-m dapperdbg|adapter\.js)/, "").replace(/\s(\S+\.py|-[mc])(\s.*)?$/, ""));
  }
  return lines;
}

function flagsOf(lines) {
  return new Set(lines.flatMap((line) => [...line.matchAll(/(?<![\w-])(--[a-z][a-z-]*)/g)].map((match) => match[1])));
}

const flagCases = [
  {
    what: "the standalone adapter (node dist/adapter.js)",
    lines: commandLines(/adapter\.js/),
    accepted: (flag) => read("extension/src/standalone/args.ts").includes(`case "${flag}"`),
  },
  {
    what: "python -m dapperdbg",
    lines: commandLines(/-m dapperdbg\b/),
    accepted: (flag) => read("extension/python/dapperdbg/launcher/listen_cli.py").includes(`"${flag}"`),
  },
];

for (const { what, lines, accepted } of flagCases) {
  test(`every documented flag of ${what} is one it accepts`, () => {
    const flags = flagsOf(lines);
    assert.ok(flags.size > 0, `the docs show flags of ${what}`);
    assert.deepEqual([...flags].filter((flag) => !accepted(flag)), []);
  });
}

const manifest = JSON.parse(read("package.json"));
const attributes = manifest.contributes.debuggers[0].configurationAttributes;
const optionNames = new Set(Object.values(attributes).flatMap((request) => Object.keys(request.properties)));

test("every option in a configuration example is a launch or attach option", () => {
  // Keys that are not options: a configuration's own, and those inside an option's value.
  const structural = new Set(["name", "type", "request", "host", "port", "localRoot", "remoteRoot", "label", "adapter", "version", "configurations"]);
  const unknown = [];
  for (const page of userPages) {
    for (const block of codeBlocks(read(page)).filter((block) => block.language === "jsonc" || block.language === "json")) {
      for (const [, key] of block.code.matchAll(/"([A-Za-z_][\w.]*)"\s*:/g)) {
        // Environment variable names (the values of "env") and settings are not options.
        if (/^[A-Z0-9_]+$/.test(key) || key.startsWith("dapper.") || structural.has(key)) continue;
        if (!optionNames.has(key)) unknown.push(`${page}: ${key}`);
      }
    }
  }
  assert.deepEqual(unknown, []);
  assert.ok(optionNames.has("stopOnEntry") && optionNames.has("processId"));
});

test("every option the docs put in backticks as a key is one", () => {
  // `"key": value` written in prose, as the docs show single options.
  const written = [...allText.matchAll(/`"([a-zA-Z]+)":/g)].map((match) => match[1]);
  // What a client says in its initialize arguments, which the docs show the same way.
  const initialize = new Set(["supportsDapperEvents"]);
  assert.deepEqual(written.filter((key) => !optionNames.has(key) && !initialize.has(key) && !/^[A-Z_]+$/.test(key) && key !== "dapper"), []);
});

test("every dapper.* setting and command the docs name exists", () => {
  const settings = new Set(Object.keys(manifest.contributes.configuration.properties ?? {}));
  const commands = new Set(manifest.contributes.commands.map((command) => command.command));
  const named = new Set([...allText.matchAll(/`"?(dapper\.[a-zA-Z.]+[a-zA-Z])"?/g)].map((match) => match[1]));
  assert.ok(named.size > 10);
  assert.deepEqual([...named].filter((name) => !settings.has(name) && !commands.has(name)), []);
});

/** The source files whose strings a user may read in an error. */
function sources() {
  const files = [];
  const walk = (dir, extension) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(relative, extension);
      else if (entry.name.endsWith(extension) && !entry.name.includes(".test.")) files.push(read(relative));
    }
  };
  walk("core/src", ".rs");
  walk("extension/src", ".ts");
  walk("extension/python/dapperdbg", ".py");
  return files.join("\n");
}

test("every message of the troubleshooting tables is said by the code", () => {
  const code = sources();
  // The interpreter's table is generated from the engine's messages (core/tests/messages.rs).
  const common = read("docs/troubleshooting.md").split("<!-- interpreter-messages:start")[0];
  const rows = [...common.matchAll(/^\s*\| `([^`]+)`/gm)].map((match) => match[1]);
  assert.ok(rows.length >= 15, `the table has its rows (${rows.length})`);
  const missing = [];
  for (const message of rows) {
    // The parts between placeholders (…, a process id N or M, a version X, any number,
    // an address) and between the pieces a message is built of (joined by ": ", " (" or
    // "; "): each is written in the code, as one string or format string.
    const parts = message
      .split(/…|\b[NMX]\b|127\.0\.0\.1:\d+|\d+(?:\.\d+)*|ECONNREFUSED|: | \(|; /)
      .map((part) => part.replace(/^[\s.:;,()'"/]+|[\s.:;,()'"/]+$/g, ""))
      .filter((part) => part.length >= 6);
    for (const part of parts) {
      const variants = [part, part.replace(/"/g, '\\"'), part.replace(/'/g, "\\'")];
      if (!variants.some((variant) => code.includes(variant))) missing.push(`${JSON.stringify(part)} of ${JSON.stringify(message)}`);
    }
  }
  assert.deepEqual(missing, []);
});
