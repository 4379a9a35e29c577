// Activation of the VS Code extension: the time to load dist/extension.js and run its
// activate(), in fresh Node processes with a stand-in `vscode` module (not inside VS
// Code, whose own work around an activation is not Dapper's), and the sizes of what is
// loaded. Each sample is a new process, so every one pays the cold require of the
// bundle, as the extension host does once per window.
//
// Run by bench/run.mjs; as a child it is `node bench/lib/activation.mjs --child BUNDLE`
// and prints one JSON line.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { root } from "./paths.mjs";
import { formatMs, median, minimum } from "./stats.mjs";

export const DEFAULT_BUNDLE = path.join(root, "dist", "extension.js");
const CHILD_TIMEOUT_MS = 30_000;

/**
 * A stand-in for the `vscode` module: every namespace, function, class and enum member
 * exists and answers with another stand-in (which is also a Disposable), except
 * `workspace.getConfiguration(...).get(key, default)`, which gives the default as a
 * fresh installation would. Records the API paths used, e.g.
 * "debug.registerDebugConfigurationProvider", so a caller can see what activate() did.
 */
export function createVscodeStandIn(names = vscodeApiNames()) {
  const used = [];
  const make = (trail) => {
    const target = function standIn() {};
    return new Proxy(target, {
      get(_target, key) {
        if (typeof key === "symbol") return key === Symbol.toPrimitive ? () => trail : undefined;
        if (key === "then") return undefined; // not a promise
        if (key === "dispose") return () => undefined;
        if (key === "get" && trail.endsWith("getConfiguration()")) return (_section, fallback) => fallback;
        return make(trail === "" ? key : `${trail}.${key}`);
      },
      apply() {
        used.push(trail);
        return make(`${trail}()`);
      },
      construct() {
        used.push(`new ${trail}`);
        return make(`new ${trail}`);
      },
      // Properties set on what the API returned (a status-bar item's text) are dropped.
      set() {
        return true;
      },
    });
  };
  // The module itself is a plain object with the API's names as its own properties,
  // because a bundler's CommonJS interop copies only own properties.
  const vscode = Object.fromEntries(names.map((name) => [name, make(name)]));
  return { vscode, used };
}

// The namespaces of the API, should @types/vscode be missing.
const FALLBACK_NAMES = ["commands", "debug", "env", "extensions", "languages", "window", "workspace", "Uri", "Disposable", "EventEmitter", "ConfigurationTarget", "DebugAdapterInlineImplementation", "DebugConfigurationProviderTriggerKind"];

/** The values the `vscode` module exports (namespaces, classes, enums, functions), read from @types/vscode. */
export function vscodeApiNames(typesFile = path.join(root, "node_modules", "@types", "vscode", "index.d.ts")) {
  if (!existsSync(typesFile)) return FALLBACK_NAMES;
  const names = [...readText(typesFile).matchAll(/^\texport (?:namespace|class|enum|const|function) (\w+)/gm)].map((match) => match[1]);
  return names.length > 0 ? [...new Set(names)] : FALLBACK_NAMES;
}

/** The extension context activate() receives, as far as Dapper reads it. */
export function standInContext(bundle) {
  const extensionPath = path.resolve(path.dirname(bundle), "..");
  const packageJsonPath = path.join(extensionPath, "package.json");
  const packageJSON = existsSync(packageJsonPath) ? JSON.parse(readText(packageJsonPath)) : { version: "0.0.0" };
  return {
    subscriptions: [],
    extensionPath,
    extension: { id: "dapper-debugger.dapper", extensionPath, packageJSON },
    globalState: { get: () => undefined, update: async () => undefined },
    workspaceState: { get: () => undefined, update: async () => undefined },
    logPath: path.join(extensionPath, ".cache"),
    environmentVariableCollection: { persistent: true, description: undefined, clear() {}, replace() {}, prepend() {}, append() {} },
  };
}

function readText(file) {
  return readFileSync(file, "utf8");
}

/** In the child: loads the bundle with the stand-in as `vscode`, activates it, prints the timings. */
async function child(bundle) {
  const require = createRequire(bundle);
  const Module = require("node:module");
  const { vscode, used } = createVscodeStandIn();
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function resolveWithStandIn(request, ...rest) {
    return request === "vscode" ? "vscode" : resolve.call(this, request, ...rest);
  };
  require.cache.vscode = { id: "vscode", filename: "vscode", loaded: true, exports: vscode };
  const context = standInContext(bundle);

  const started = performance.now();
  const extension = require(bundle);
  const loaded = performance.now();
  await extension.activate(context);
  const activated = performance.now();
  process.stdout.write(
    `${JSON.stringify({ loadMs: loaded - started, activateMs: activated - loaded, totalMs: activated - started, subscriptions: context.subscriptions.length, used })}\n`,
  );
  // Whatever activate() started (it should start nothing) must not keep the sample alive.
  process.exit(0);
}

/** Parses one child's output; throws with the output when it holds no sample. */
export function parseSample(stdout) {
  const line = stdout
    .split("\n")
    .filter((text) => text.startsWith("{"))
    .at(-1);
  if (line === undefined) throw new Error(`the activation run printed no sample: ${stdout.slice(0, 300)}`);
  const sample = JSON.parse(line);
  for (const key of ["loadMs", "activateMs", "totalMs"]) {
    if (!Number.isFinite(sample[key])) throw new Error(`the activation sample has no ${key}: ${line.slice(0, 300)}`);
  }
  return sample;
}

/** Medians and extremes of the samples, and the bundle's sizes. */
export function summarizeActivation(samples, sizes) {
  const of = (key) => samples.map((sample) => sample[key]);
  return {
    runs: samples.length,
    totalMs: { median: median(of("totalMs")), min: minimum(of("totalMs")), max: Math.max(...of("totalMs")) },
    loadMs: median(of("loadMs")),
    activateMs: median(of("activateMs")),
    subscriptions: samples[0]?.subscriptions,
    /** The API calls activate() made, in the first sample. */
    used: samples[0]?.used,
    sizes,
  };
}

/** Measures `runs` fresh processes, one after the other. Returns a summary, or { error }. */
export function measureActivation({ runs = 25, bundle = DEFAULT_BUNDLE } = {}) {
  try {
    if (!existsSync(bundle)) throw new Error(`${path.relative(root, bundle)} does not exist; run \`npm run build\``);
    const wasm = path.join(path.dirname(bundle), "dapper_core_bg.wasm");
    const sizes = { bundleBytes: statSync(bundle).size, wasmBytes: existsSync(wasm) ? statSync(wasm).size : undefined };
    const samples = [];
    for (let i = 0; i < runs; i++) {
      const stdout = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--child", bundle], {
        encoding: "utf8",
        timeout: CHILD_TIMEOUT_MS,
        stdio: ["ignore", "pipe", "pipe"],
      });
      samples.push(parseSample(stdout));
    }
    return summarizeActivation(samples, sizes);
  } catch (error) {
    return { error: String(error.stderr || error.message).trim().split("\n")[0] };
  }
}

const kib = (bytes) => (bytes === undefined ? "—" : `${(bytes / 1024).toFixed(0)} KiB`);

/** One line for the console. */
export function describeActivation(result) {
  if (result.error) return `failed: ${result.error}`;
  return `median ${formatMs(result.totalMs.median)} (load ${formatMs(result.loadMs)}, activate() ${formatMs(result.activateMs)}) over ${result.runs} processes; bundle ${kib(result.sizes.bundleBytes)}`;
}

/** The section of RESULTS.md; empty when the part did not run. */
export function renderActivation(result) {
  if (result === undefined) return "";
  const lines = ["", "## Extension activation", ""];
  if (result.error) return [...lines, `_Failed: ${result.error}_`, ""].join("\n");
  lines.push(
    `Measured in ${result.runs} fresh Node processes with a stand-in \`vscode\` module (bench/lib/activation.mjs), not in a real VS Code: ` +
      "the time from `require(\"dist/extension.js\")` to the end of `activate()`. VS Code activates Dapper once it has started up (for terminal auto-attach's environment), and on a Dapper debug event or command.",
    "",
    "| measure | value |",
    "|---|---|",
    `| load dist/extension.js + activate(), median (min / max) | ${formatMs(result.totalMs.median)} (${formatMs(result.totalMs.min)} / ${formatMs(result.totalMs.max)}) |`,
    `| of which loading the bundle (median) | ${formatMs(result.loadMs)} |`,
    `| of which activate() (median) | ${formatMs(result.activateMs)} |`,
    `| bundle dist/extension.js | ${kib(result.sizes.bundleBytes)} |`,
    `| engine dist/dapper_core_bg.wasm (loaded at the first session, not at activation) | ${kib(result.sizes.wasmBytes)} |`,
    "",
  );
  return lines.join("\n");
}

if (process.argv[2] === "--child") {
  child(path.resolve(process.argv[3] ?? DEFAULT_BUNDLE)).catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  });
}
