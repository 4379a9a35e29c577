// The README's prerequisites, checked before `npm start`, `npm test` or `npm run build` does
// anything: Node.js new enough, Rust through rustup, and a CPython the debugger supports.
// A missing one is reported in one line that says how to get it. Plain Node.js, no packages:
// this runs before anything is installed.
import { spawnSync } from "node:child_process";
import { findPythons } from "./lib.mjs";

export const minimumNode = 20;
export const minimumPython = "3.9";

function found(command, args = ["--version"]) {
  const result = spawnSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], shell: process.platform === "win32" });
  return !result.error && result.status === 0;
}

/** What is missing, one line each; empty when everything is there. */
export function missingPrerequisites({ nodeVersion = process.versions.node, has = found, pythons = () => findPythons({ minimum: minimumPython }) } = {}) {
  const missing = [];
  const major = Number(nodeVersion.split(".")[0]);
  if (!(major >= minimumNode)) {
    missing.push(`Node.js ${nodeVersion} is too old: Dapper needs Node.js ${minimumNode} or newer (https://nodejs.org, or nvm install ${minimumNode}).`);
  }
  if (!has("cargo")) {
    missing.push("cargo was not found: install Rust with rustup (https://rustup.rs), then open a new shell so cargo is on PATH.");
  } else if (!has("rustup")) {
    missing.push("rustup was not found: Dapper adds the wasm32 target with it; install Rust with rustup (https://rustup.rs) instead of a distribution's Rust.");
  }
  if (pythons().length === 0) {
    missing.push(`No CPython ${minimumPython} or newer was found (python3.N or python3 on PATH, or pyenv): install one from https://www.python.org/downloads/ or your package manager.`);
  }
  return missing;
}

/** Stops the command with the missing prerequisites, before it has changed anything. */
export function requirePrerequisites(command) {
  const missing = missingPrerequisites();
  if (missing.length === 0) return;
  for (const line of missing) console.error(`${command}: ${line}`);
  process.exit(1);
}
