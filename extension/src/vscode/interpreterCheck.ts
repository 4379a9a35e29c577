// Checks, before a launch starts, that the interpreter it will run exists, runs and is
// Python 3.9 or newer, so that VS Code users get one clear message with a way out instead
// of a failed launch. The engine still checks the interpreter itself for every other DAP
// client; this check only spares VS Code users the engine's modal error dialog.
//
// No runtime dependency on the `vscode` module: the decisions here are tested under
// plain Node, with small shell scripts standing in for interpreters.

import * as fs from "fs";
import * as path from "path";
import { answerPython, parsePythonProbe } from "../host/executors/facts";
import { fill, PYTHON_PROBLEMS, PYTHON_SOURCES, PYTHON_UNUSABLE, type PythonProblem } from "../host/messages";
import type { InterpreterSource } from "./interpreter";

/** The oldest Python the debuggee package supports (the engine holds the same limit). */
const MINIMUM_PYTHON = { major: 3, minor: 9 } as const;

/**
 * How long the interpreter may take to print its version. Short, because a launch waits
 * for it; a slow machine that misses it only loses this check, never the launch.
 */
const PROBE_TIMEOUT_MS = 5_000;

/** What running the interpreter once gave. */
export type ProbeOutcome =
  | { kind: "ran"; version: string; executable: string }
  | { kind: "missing" }
  | { kind: "unusable"; problem: string }
  | { kind: "timedOut"; ms: number };

/**
 * The verdict on an interpreter. "unknown" lets the launch go on: the check could not
 * decide (the interpreter was too slow to answer), and the engine's own check follows.
 */
export type Verdict =
  | { usable: true; version: string; executable: string }
  | { usable: false; problem: string }
  | { usable: "unknown"; note: string };

/** The interpreter a launch runs when it names none: what the engine runs then. */
export function defaultPython(platform: NodeJS.Platform = process.platform): string {
  return platform === "win32" ? "python" : "python3";
}

/** A command name without a directory part is looked up on PATH; anything else is a path (on Windows "\\" separates too). */
export function isBareCommand(executable: string, platform: NodeJS.Platform = process.platform): boolean {
  return !executable.includes("/") && !(platform === "win32" && executable.includes("\\"));
}

/**
 * The files a bare command may be, in the order the engine's spawn (libuv) tries them,
 * folder by folder of PATH. On Windows (PATH split on ";", and named "Path" as often as
 * "PATH") a name with an extension as written first, then with .com and then .exe
 * appended: what CreateProcess can start, not PATHEXT, so a .bat or .cmd file is not taken
 * for what a spawn would run.
 */
export function commandCandidates(command: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string[] {
  const windows = platform === "win32";
  const paths = windows ? path.win32 : path.posix;
  const pathVariable = (windows ? (env.PATH ?? env.Path) : env.PATH) ?? "";
  const hasExtension = /\.[^.]/.test(command);
  const names = windows ? [...(hasExtension ? [command] : []), `${command}.com`, `${command}.exe`] : [command];
  return pathVariable
    .split(paths.delimiter)
    .filter((dir) => dir !== "")
    .flatMap((dir) => names.map((name) => paths.join(dir, name)));
}

/** What the probe printed, if it was the probe's answer (shared with the engine's fact query). */
export function parseProbeOutput(stdout: string): { version: string; executable: string } | undefined {
  const parsed = parsePythonProbe(stdout);
  return parsed && { version: parsed.version, executable: parsed.path };
}

/** The major and minor version of a version string such as "3.12.1" or "3.13.0rc2". */
export function majorMinor(version: string): { major: number; minor: number } | undefined {
  const match = /^(\d+)\.(\d+)/.exec(version.trim());
  return match ? { major: Number(match[1]), minor: Number(match[2]) } : undefined;
}

/** Judges what the probe gave. `bare` says whether the interpreter was a command looked up on PATH. */
export function judge(outcome: ProbeOutcome, bare: boolean): Verdict {
  switch (outcome.kind) {
    case "missing":
      return { usable: false, problem: problemText(bare ? "notOnPath" : "missing") };
    case "unusable":
      return { usable: false, problem: outcome.problem };
    case "timedOut":
      return { usable: "unknown", note: `it did not print its version within ${outcome.ms / 1000} s, so it is not checked before the launch` };
    case "ran": {
      const found = majorMinor(outcome.version);
      if (found === undefined) return { usable: false, problem: problemText("unreadableVersion", { version: JSON.stringify(outcome.version) }) };
      const oldEnough = found.major > MINIMUM_PYTHON.major || (found.major === MINIMUM_PYTHON.major && found.minor >= MINIMUM_PYTHON.minor);
      if (!oldEnough) {
        return { usable: false, problem: problemText("tooOld", { version: outcome.version }) };
      }
      return { usable: true, version: outcome.version, executable: outcome.executable };
    }
  }
}

/** Runs the interpreter once to read its version (the engine's own probe); never rejects. */
async function probeInterpreter(executable: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<ProbeOutcome> {
  const answer = await answerPython(executable, timeoutMs);
  if (answer.ok) return { kind: "ran", version: answer.version ?? "", executable: answer.path ?? executable };
  const problem = (answer.problem ?? "failed") as PythonProblem;
  if (problem === "missing") return { kind: "missing" };
  if (problem === "noAnswer") return { kind: "timedOut", ms: timeoutMs };
  return { kind: "unusable", problem: problemText(problem in PYTHON_PROBLEMS ? problem : "failed", { detail: answer.error ?? "" }) };
}

/** A problem's words, from the table the engine uses too. */
function problemText(problem: PythonProblem, values: Record<string, string> = {}): string {
  return fill(PYTHON_PROBLEMS[problem], values);
}

/**
 * The file a command runs: a path as it is (relative to the extension host's working
 * directory, as the engine's own check runs it), a bare name looked up on PATH.
 */
async function resolveExecutable(executable: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (!isBareCommand(executable)) return path.resolve(executable);
  for (const candidate of commandCandidates(executable, env)) {
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

export async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const stat = await fs.promises.stat(file);
    if (!stat.isFile()) return false;
    await fs.promises.access(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Verdicts per executable file, kept while the file's modification time and size stay
 * the same, so a second launch costs two stat calls instead of starting Python again.
 * Only a file that is the interpreter itself is cached (its real path is the real path
 * of the sys.executable it reports, as for a virtual environment's link): a wrapper
 * such as a pyenv shim picks its interpreter anew on every run, by files the cache
 * cannot watch. Failures are not cached either; they are quick to find again.
 */
export class InterpreterChecker {
  private readonly cache = new Map<string, { mtimeMs: number; size: number; verdict: Verdict }>();
  /** How many times an interpreter was started; for tests and the log. */
  probes = 0;

  constructor(private readonly timeoutMs = PROBE_TIMEOUT_MS) {}

  async check(executable: string): Promise<Verdict> {
    const bare = isBareCommand(executable);
    const file = await resolveExecutable(executable);
    const stat = file === undefined ? undefined : await fs.promises.stat(file).catch(() => undefined);
    const cached = file === undefined ? undefined : this.cache.get(file);
    if (cached !== undefined && stat !== undefined && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.verdict;
    this.probes++;
    const outcome = await probeInterpreter(file !== undefined && stat?.isFile() ? file : executable, this.timeoutMs);
    const verdict = judge(outcome, bare);
    if (file !== undefined && stat !== undefined && outcome.kind === "ran" && (await sameFile(file, outcome.executable))) {
      this.cache.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, verdict });
    }
    return verdict;
  }
}

async function sameFile(a: string, b: string): Promise<boolean> {
  const real = (file: string) => fs.promises.realpath(file).catch(() => undefined);
  const [left, right] = await Promise.all([real(a), real(b)]);
  return left !== undefined && left === right;
}

/** A button of the error message. */
export type InterpreterAction = "Select Interpreter" | "Open launch.json" | "Open Settings";

/**
 * The one error message for an interpreter that cannot be used, naming it, where the
 * choice came from and the problem, with the buttons that lead to a fix. A `python` in
 * the launch configuration wins over every other choice, so selecting another
 * interpreter would not help there: its fix is in launch.json.
 */
export function interpreterMessage(python: string, source: InterpreterSource, problem: string): { message: string; actions: InterpreterAction[] } {
  const message = fill(PYTHON_UNUSABLE, { python, source: PYTHON_SOURCES[source], problem });
  switch (source) {
    case "launch configuration":
      return { message, actions: ["Open launch.json"] };
    case "Python extension":
      return { message, actions: ["Select Interpreter"] };
    case "setting dapper.python":
    case "python3 on PATH":
      return { message, actions: ["Select Interpreter", "Open Settings"] };
  }
}
