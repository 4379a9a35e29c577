// What the benchmark needs before it measures, installed only when missing: the built
// adapter (dist/), a virtual environment per Python with debugpy from PyPI; and the facts
// about the machine and the versions that go into RESULTS.md.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findPythons, isSidWrapper, probe, run, step, writeSidWrapper } from "../../scripts/lib.mjs";
import { benchCacheDir, root } from "./paths.mjs";

/**
 * debugpy's version for the benchmark. Pinned so that figures from different days
 * compare the same debugpy; it is the version the issue measured.
 */
export const DEBUGPY_VERSION = "1.8.22";

/** The adapter bundle; built with `npm run build` when missing. */
export function ensureBuilt() {
  const adapter = path.join(root, "dist", "adapter.js");
  const wasm = path.join(root, "wasm-pkg", "dapper_core.js");
  if (existsSync(adapter) && existsSync(wasm)) return;
  step("Building Dapper (dist/ or wasm-pkg/ is missing)");
  run("npm", ["run", "build"]);
}

/**
 * The interpreters to measure: the requested versions, or every CPython from 3.11 on
 * (the issue's versions). Throws when a requested version is not on this machine.
 */
export function choosePythons(requested) {
  const found = findPythons({ minimum: requested ? "3.9" : "3.11" });
  if (!requested) {
    if (found.length === 0) throw new Error("no CPython 3.11 or newer found (pyenv's versions or python3.N on PATH)");
    return found;
  }
  return requested.map((version) => {
    const python = found.find((p) => p.version === version);
    if (!python) throw new Error(`Python ${version} is not on this machine; found ${found.map((p) => p.version).join(", ") || "none"}`);
    return python;
  });
}

/**
 * A venv per Python under .cache/bench/<version>/ with debugpy installed (at the pinned
 * version) when `withDebugpy`. Plain runs and Dapper use the same interpreter, so the
 * three modes run the very same python.
 */
export function ensureVenv(python, { withDebugpy }) {
  // A Debian sid Python (3.14, 3.15 on this Debian 12) runs inside the sid root: so does
  // its venv, through a host-side wrapper, as for the test environments.
  const sid = isSidWrapper(python.executable);
  const dir = path.join(benchCacheDir, sid ? `${python.version}-sid` : python.version);
  const inside = path.join(dir, "bin", "python");
  const bin = sid ? path.join(dir, "python-from-host") : inside;
  if (sid) {
    mkdirSync(dir, { recursive: true });
    writeSidWrapper(bin, inside);
  }
  if (!existsSync(inside)) {
    step(`Creating the benchmark environment for Python ${python.version}`);
    mkdirSync(benchCacheDir, { recursive: true });
    run(python.executable, ["-m", "venv", dir]);
  }
  let debugpy;
  if (withDebugpy) {
    debugpy = probe(bin, ["-c", "import debugpy; print(debugpy.__version__)"]);
    if (debugpy !== DEBUGPY_VERSION) {
      step(`Installing debugpy ${DEBUGPY_VERSION} for Python ${python.version}`);
      run(bin, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", `debugpy==${DEBUGPY_VERSION}`]);
      debugpy = probe(bin, ["-c", "import debugpy; print(debugpy.__version__)"]);
      if (!debugpy) throw new Error(`debugpy could not be imported in ${dir} after installing it`);
    }
  }
  const fullVersion = probe(bin, ["-c", "import platform; print(platform.python_version())"]) ?? python.version;
  return { version: python.version, fullVersion, venvPython: bin, debugpy, sid };
}

/** CPU model, cores, memory, OS; and the versions of Node and Dapper. */
export function machineFacts() {
  let cpu = os.cpus()[0]?.model ?? "unknown CPU";
  try {
    const line = readFileSync("/proc/cpuinfo", "utf8").split("\n").find((l) => l.startsWith("model name"));
    if (line) cpu = line.split(":").slice(1).join(":").trim();
  } catch {
    // Not Linux: os.cpus() already gave the model.
  }
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const commit = probe("git", ["-C", root, "rev-parse", "--short", "HEAD"]);
  const dirty = probe("git", ["-C", root, "status", "--porcelain", "--untracked-files=no"]);
  return {
    cpu,
    cores: os.cpus().length,
    memoryGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    dapper: `${manifest.version}${commit ? ` (${commit}${dirty ? ", with uncommitted changes" : ""})` : ""}`,
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
  };
}
