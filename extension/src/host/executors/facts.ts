// Answers gatherFacts queries about the host's world: paths, environment variables,
// Python interpreters and small text files. Every query gets an answer; a failure is an
// answer too. Queries run concurrently and the answers keep the queries' order.

import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import type { PythonProblem } from "../messages";
import type { FactAnswer } from "../protocol";

/**
 * The arguments that make an interpreter print its version and the real path of its
 * executable, as one line of JSON. `-S` skips `site` and the probe imports nothing, so it
 * costs ~12 ms instead of ~35 ms on the launch's critical path; it is written so that a
 * Python 2 answers too (and is then told it is too old, not that it is no Python).
 */
export const PYTHON_PROBE_ARGS: readonly string[] = [
  "-S",
  "-c",
  "import sys; sys.stdout.write('{\"version\": \"%s\", \"path\": \"%s\"}\\n' % " +
    "(sys.version.split()[0], sys.executable.replace('\\\\', '\\\\\\\\').replace('\"', '\\\\\"')))",
];

const PYTHON_PROBE_TIMEOUT_MS = 10_000;
/** Files larger than this are refused rather than read into the engine. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;

export async function gatherFacts(queries: readonly unknown[]): Promise<FactAnswer[]> {
  return Promise.all(queries.map((query) => answerQuery(query)));
}

export async function answerQuery(query: unknown): Promise<FactAnswer> {
  try {
    return await answerKnownQuery(query);
  } catch (error) {
    // Only a programming error gets here; it still becomes an answer.
    return { ...asRecord(query), kind: kindOf(query), ok: false, error: errorText(error) };
  }
}

async function answerKnownQuery(query: unknown): Promise<FactAnswer> {
  const record = asRecord(query);
  switch (record.kind) {
    case "path":
      if (typeof record.path === "string") return answerPath(record.path);
      break;
    case "env":
      if (typeof record.name === "string") return answerEnv(record.name);
      break;
    case "python":
      if (typeof record.executable === "string") return answerPython(record.executable);
      break;
    case "file":
      if (typeof record.path === "string") return answerFile(record.path);
      break;
    default:
      return { ...record, kind: kindOf(query), ok: false, error: `unknown fact kind ${JSON.stringify(record.kind)}` };
  }
  return { ...record, kind: kindOf(query), ok: false, error: "malformed fact query" };
}

async function answerPath(p: string): Promise<FactAnswer> {
  try {
    const stat = await fs.promises.stat(path.resolve(process.cwd(), p));
    return { kind: "path", path: p, exists: true, isFile: stat.isFile(), isDirectory: stat.isDirectory() };
  } catch {
    // Missing, unreadable or a dangling link: to the engine all of these do not exist.
    return { kind: "path", path: p, exists: false, isFile: false, isDirectory: false };
  }
}

function answerEnv(name: string): FactAnswer {
  const value = process.env[name];
  return { kind: "env", name, value: value === undefined ? null : value };
}

/**
 * Runs the interpreter once to read its version. A failure says why as a key of the
 * engine's message table (messages.ts), with what that message names as `error`; the
 * engine and VS Code's own check word it the same from there.
 */
export function answerPython(executable: string, timeoutMs = PYTHON_PROBE_TIMEOUT_MS): Promise<FactAnswer & { kind: "python" }> {
  return new Promise((resolve) => {
    const fail = (problem: PythonProblem, error: string) => resolve({ kind: "python", executable, ok: false, problem, error });
    try {
      execFile(executable, [...PYTHON_PROBE_ARGS], { timeout: timeoutMs, windowsHide: true, maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
        if (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === "ENOENT") return fail("missing", error.message);
          if (code === "EACCES") return fail(unrunnableProblem(executable), error.message);
          if (error.killed) return fail("noAnswer", `${timeoutMs / 1000} s`);
          return fail("failed", firstLine(String(stderr)) ?? error.message);
        }
        const parsed = parsePythonProbe(String(stdout));
        if (parsed === undefined) {
          const shown = firstLine(String(stdout));
          return fail("notPython", shown === undefined ? "nothing" : JSON.stringify(shown.slice(0, 120)));
        }
        resolve({ kind: "python", executable, ok: true, version: parsed.version, path: parsed.path });
      });
    } catch (error) {
      // execFile throws synchronously on arguments it rejects, such as a NUL byte.
      fail("failed", errorText(error));
    }
  });
}

/** Why an interpreter that exists cannot be started: a folder is the usual mistake. */
function unrunnableProblem(executable: string): PythonProblem {
  try {
    if (fs.statSync(path.resolve(process.cwd(), executable)).isDirectory()) return "folder";
  } catch {
    // Fall through to the general reason.
  }
  return "notExecutable";
}

/** The first non-empty line of what a process printed, trimmed and bounded. */
function firstLine(text: string): string | undefined {
  const line = text
    .split(/\r?\n/)
    .map((part) => part.trim())
    .find((part) => part !== "");
  return line === undefined ? undefined : line.slice(0, 300);
}

/** Reads the probe's JSON from the last non-empty line (a sitecustomize may print before it). */
export function parsePythonProbe(stdout: string): { version: string; path: string } | undefined {
  const lines = stdout.split(/\r?\n/).filter((line) => line.trim() !== "");
  const last = lines[lines.length - 1];
  if (last === undefined) return undefined;
  try {
    const value = JSON.parse(last) as unknown;
    const record = asRecord(value);
    if (typeof record.version === "string" && typeof record.path === "string") {
      return { version: record.version, path: record.path };
    }
  } catch {
    // Not JSON: reported by the caller.
  }
  return undefined;
}

async function answerFile(p: string): Promise<FactAnswer> {
  try {
    const resolved = path.resolve(process.cwd(), p);
    const stat = await fs.promises.stat(resolved);
    if (!stat.isFile()) return { kind: "file", path: p, ok: false, error: `${p} is not a file` };
    if (stat.size > MAX_FILE_BYTES) {
      return { kind: "file", path: p, ok: false, error: `${p} is larger than ${MAX_FILE_BYTES} bytes` };
    }
    const text = await fs.promises.readFile(resolved, "utf8");
    return { kind: "file", path: p, ok: true, text };
  } catch (error) {
    return { kind: "file", path: p, ok: false, error: errorText(error) };
  }
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function kindOf(query: unknown): string {
  const kind = asRecord(query).kind;
  return typeof kind === "string" ? kind : String(kind);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
