// The rules of "attach to a process": which processes are Python, in which order the
// picker offers them, which it leaves out, and the attach configuration a choice makes.
//
// No runtime dependency on the `vscode` module: the rules are tested under plain Node;
// processPicker.ts shows them and attachCommands.ts registers the commands.

import { DEBUG_TYPE, type LaunchConfiguration } from "./fileConfiguration";
import { baseName, commandWords, type ProcessInfo } from "./processList";

/** "Dapper: Attach to Process" in the command palette: the picker, then an attach session. */
export const ATTACH_TO_PROCESS_COMMAND = "dapper.attachToProcess";
/**
 * The picker alone, resolving to the chosen pid as a string (undefined when cancelled,
 * which makes VS Code abandon the launch quietly). package.json's debuggers contribution
 * names it as the variable `pickProcess`, so `"processId": "${command:pickProcess}"` works.
 */
export const PICK_PROCESS_COMMAND = "dapper.pickProcess";
export const PICK_PROCESS_VARIABLE = "pickProcess";

// python, python3, python3.12, python3.13t (free-threaded), python3.12d, pythonw,
// python.exe, pypy, pypy3.10, python3.11-dbg; a venv's bin/python and pyenv's shims
// have these names too. Not the Windows launcher py.exe: it only waits for the
// python.exe it starts, which is listed itself.
const PYTHON_EXECUTABLE = /^(?:python|pythonw|pypy)(?:\d+(?:\.\d+)*)?[tdmu]{0,2}(?:-dbg)?(?:\.exe)?$/i;
// Project tools whose `run` starts the project's Python as a child: `uv run app.py`.
const PYTHON_RUNNERS = new Set(["uv", "poetry", "pipenv", "pdm", "hatch", "rye"]);
// Tools that run a Python tool themselves: `uvx ruff`, `pipx run black`.
const PYTHON_TOOL_RUNNERS = new Set(["uvx", "pipx"]);

/**
 * Whether a process is a Python program, from its executable's name and from its command
 * line's first words: the interpreter itself (by any of its names, under any directory),
 * or a project tool running Python (`uv run`, `poetry run`, `uvx`). A script started
 * through its shebang is found by its command line (`/usr/bin/python3 ./tool.py`), since
 * Linux names the process after the script.
 */
export function isPythonProcess(process: Pick<ProcessInfo, "name" | "commandLine">): boolean {
  const [first, second] = commandWords(process.commandLine, 2).map((word) => baseName(word).replace(/\.exe$/i, "").toLowerCase());
  if (PYTHON_EXECUTABLE.test(baseName(process.name))) return true;
  if (first === undefined) return false;
  if (PYTHON_EXECUTABLE.test(first)) return true;
  return PYTHON_TOOL_RUNNERS.has(first) || (PYTHON_RUNNERS.has(first) && second === "run");
}

/** A process as the picker offers it. */
export interface ProcessEntry {
  process: ProcessInfo;
  python: boolean;
  /** A Dapper session already debugs it. */
  debugged: boolean;
}

export interface EntryContext {
  /** Pids that Dapper sessions debug now (attached, launched, their children). */
  debugged: ReadonlySet<number>;
  /** Pids never offered: the extension host's own. */
  excluded: ReadonlySet<number>;
  platform: NodeJS.Platform;
}

/**
 * The entries of the picker: Python processes first, then the others, each group by name
 * and then pid. Left out: the excluded pids and, on Linux, kernel threads (children of
 * kthreadd, pid 2, whose command line ps shows as "[name]"), which nothing can attach to.
 */
export function pickerEntries(processes: readonly ProcessInfo[], context: EntryContext): ProcessEntry[] {
  return processes
    .filter((process) => !context.excluded.has(process.pid) && !(context.platform === "linux" && isKernelThread(process)))
    .map((process) => ({ process, python: isPythonProcess(process), debugged: context.debugged.has(process.pid) }))
    .sort(
      (a, b) =>
        Number(b.python) - Number(a.python) ||
        a.process.name.localeCompare(b.process.name, "en", { sensitivity: "base" }) ||
        a.process.pid - b.process.pid,
    );
}

function isKernelThread(process: ProcessInfo): boolean {
  return (process.pid === 2 || process.ppid === 2) && /^\[.*\]$/.test(process.commandLine);
}

/** The configuration that attaches to a chosen process. */
export function processAttachConfiguration(process: Pick<ProcessInfo, "pid" | "name">): LaunchConfiguration {
  return { type: DEBUG_TYPE, request: "attach", name: `Attach to ${process.pid} ${process.name}`, processId: process.pid };
}

/** The Run and Debug view's dynamic entry: the picker runs when it starts. */
export function pickProcessConfiguration(): LaunchConfiguration {
  return { type: DEBUG_TYPE, request: "attach", name: "Dapper: Attach to Process", processId: `\${command:${PICK_PROCESS_VARIABLE}}` };
}

/**
 * The pid a session's configuration names in `processId`: a number, or a string of
 * digits as `${command:pickProcess}` leaves it. Anything else names none.
 */
export function pidOf(value: unknown): number | undefined {
  const pid = typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof pid === "number" && Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}
