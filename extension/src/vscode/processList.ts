// Lists the processes of this machine for the "attach to a process" picker: `ps` on Linux
// and macOS, PowerShell's CIM (Win32_Process) on Windows. Each platform's output has a
// pure parser, tested with captured and hand-written samples.
//
// No runtime dependency on the `vscode` module: the listing is tested under plain Node,
// against the real `ps` of the machine and real Python processes.

import { execFile, type ExecFileException } from "child_process";

/** One running process, as the picker shows it. */
export interface ProcessInfo {
  pid: number;
  /** The parent's pid, when the platform says. */
  ppid?: number;
  /** The short name: the executable's file name (Linux: its first 15 characters). */
  name: string;
  /** The whole command line; "" when the OS does not tell (another user's process on Windows). */
  commandLine: string;
  /** The owner's user name (or uid when ps has no room for the name); undefined on Windows. */
  user?: string;
}

/** How long a listing may take before it fails: a loaded machine may need seconds. */
const LIST_TIMEOUT_MS = 20_000;
/** Room for tens of thousands of processes with long command lines. */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

// The POSIX listing runs ps twice because one table cannot be split unambiguously: the
// executable name (`comm`) may hold spaces ("Web Content" on Linux, a full path under
// "/Applications/Visual Studio Code.app" on macOS), and so may the command line; each
// is safe only as the last column of a line. -A (every process) and -o with these
// names are POSIX; -ww (no truncation) is in both procps and BSD ps.
export const PS_COMMAND_LINES_ARGS = ["-A", "-ww", "-o", "pid=,ppid=,user=,args="] as const;
export const PS_NAMES_ARGS = ["-A", "-ww", "-o", "pid=,comm="] as const;

/**
 * Parses the two ps tables: `pid ppid user args` lines and `pid comm` lines, joined by
 * pid (`platform`: "darwin" for macOS's ps, whose comm is a path; any other for Linux's). A process that appears in only one table (it started or ended between the two
 * runs) is listed when its command line is known, named after the command line's first
 * word. Lines that are not a table row (none, in practice) are skipped.
 */
export function parsePsOutput(commandLines: string, names: string, platform: NodeJS.Platform): ProcessInfo[] {
  const nameOf = new Map<number, string>();
  for (const line of names.split("\n")) {
    const match = /^\s*(\d+)\s(.*)$/.exec(line.replace(/\r$/, ""));
    if (match) nameOf.set(Number(match[1]), match[2].trim());
  }
  const processes: ProcessInfo[] = [];
  for (const line of commandLines.split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s?(.*)$/.exec(line.replace(/\r$/, ""));
    if (!match) continue;
    const pid = Number(match[1]);
    const commandLine = match[4].trim();
    // Linux's comm is a name, and may hold "/" (kworker/0:1); macOS's is the executable's path.
    const comm = nameOf.get(pid);
    const name = comm ? (platform === "darwin" ? baseName(comm) : comm) : baseName(firstWord(commandLine) ?? "");
    processes.push({ pid, ppid: Number(match[2]), user: match[3], name, commandLine });
  }
  return processes;
}

/**
 * The PowerShell script of the Windows listing: every process's id, parent, name and
 * command line as JSON, written as UTF-8 (the console's code page would mangle command
 * lines in other scripts). WMIC is not used: current Windows no longer has it.
 */
export const POWERSHELL_SCRIPT =
  "[Console]::OutputEncoding = [System.Text.Encoding]::UTF8; " +
  "Get-CimInstance -ClassName Win32_Process | Select-Object ProcessId,ParentProcessId,Name,CommandLine | ConvertTo-Json -Compress";
export const POWERSHELL_ARGS = ["-NoLogo", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-Command", POWERSHELL_SCRIPT] as const;

/**
 * Parses ConvertTo-Json's output of Win32_Process rows. One process gives an object, not
 * an array; no process at all gives nothing. CommandLine is null where Windows does not
 * tell (the System process, other users' processes without elevation). Throws, with the
 * start of the text, when it is not that JSON.
 */
export function parseCimJson(text: string): ProcessInfo[] {
  const trimmed = text.replace(/^\uFEFF/, "").trim();
  if (trimmed === "") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch (error) {
    throw new Error(`PowerShell's process list is not JSON (${(error as Error).message}): ${JSON.stringify(trimmed.slice(0, 200))}`);
  }
  const rows = Array.isArray(parsed) ? parsed : [parsed];
  const processes: ProcessInfo[] = [];
  for (const row of rows) {
    if (typeof row !== "object" || row === null) continue;
    const { ProcessId, ParentProcessId, Name, CommandLine } = row as Record<string, unknown>;
    if (typeof ProcessId !== "number") continue;
    processes.push({
      pid: ProcessId,
      ppid: typeof ParentProcessId === "number" ? ParentProcessId : undefined,
      name: typeof Name === "string" ? Name : "",
      commandLine: typeof CommandLine === "string" ? CommandLine.trim() : "",
    });
  }
  return processes;
}

/** The file name of a path written with / or \ (Windows paths reach this on every OS in tests). */
export function baseName(file: string): string {
  return file.slice(Math.max(file.lastIndexOf("/"), file.lastIndexOf("\\")) + 1);
}

/**
 * The first words of a command line: a word in double quotes (as Windows writes paths
 * with spaces) is one word without its quotes; otherwise words end at whitespace.
 */
export function commandWords(commandLine: string, count: number): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"?|(\S+)/g;
  for (let match = pattern.exec(commandLine); match !== null && words.length < count; match = pattern.exec(commandLine)) {
    words.push(match[1] ?? match[2]);
  }
  return words;
}

function firstWord(commandLine: string): string | undefined {
  return commandWords(commandLine, 1)[0];
}

/** The programs that list: ps and PowerShell as found on PATH; tests put missing and failing ones there. */
export interface ListCommands {
  ps: string;
  powershell: string;
}

const DEFAULT_COMMANDS: ListCommands = { ps: "ps", powershell: "powershell.exe" };

/**
 * Every process of the machine but the listing's own (ps, PowerShell). Rejects with a
 * message that says what failed and how to fix it; never resolves to an empty list
 * because the listing failed.
 */
export async function listProcesses(platform: NodeJS.Platform = process.platform, commands: ListCommands = DEFAULT_COMMANDS): Promise<ProcessInfo[]> {
  if (platform === "win32") {
    const run = await runListing(commands.powershell, POWERSHELL_ARGS, POWERSHELL_LISTING);
    return withoutPids(parseCimJson(run.stdout), run.pids);
  }
  const [commandLines, names] = await Promise.all([
    runListing(commands.ps, PS_COMMAND_LINES_ARGS, PS_LISTING),
    runListing(commands.ps, PS_NAMES_ARGS, PS_LISTING),
  ]);
  return withoutPids(parsePsOutput(commandLines.stdout, names.stdout, platform), [...commandLines.pids, ...names.pids]);
}

function withoutPids(processes: ProcessInfo[], pids: readonly number[]): ProcessInfo[] {
  return processes.filter((entry) => !pids.includes(entry.pid));
}

/** What a listing command is called in messages, and what to do when it is missing. */
interface Listing {
  what: string;
  whenMissing: string;
}

const PS_LISTING: Listing = { what: "ps", whenMissing: "Install ps (Debian and Ubuntu: the procps package) or put it on PATH." };
const POWERSHELL_LISTING: Listing = { what: "PowerShell (Get-CimInstance Win32_Process)", whenMissing: "Windows PowerShell 5.1 or later is needed." };

/** Runs one listing command; its pid is returned so that it can be left out of the list. */
function runListing(command: string, args: readonly string[], listing: Listing): Promise<{ stdout: string; pids: number[] }> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      { encoding: "utf8", timeout: LIST_TIMEOUT_MS, maxBuffer: MAX_OUTPUT_BYTES, windowsHide: true },
      (error, stdout, stderr) => {
        if (!error) {
          resolve({ stdout, pids: child.pid === undefined ? [] : [child.pid] });
          return;
        }
        reject(new Error(listingError(command, listing, error, stderr)));
      },
    );
  });
}

/** The message of a failed listing: what ran, what went wrong, and what to do. */
function listingError(command: string, listing: Listing, error: ExecFileException, stderr: string): string {
  const lead = `Dapper cannot list the running processes: ${listing.what}`;
  if (error.code === "ENOENT") return `${lead} was not found (${command}). ${listing.whenMissing}`;
  if (error.killed || error.signal) return `${lead} did not finish within ${LIST_TIMEOUT_MS / 1000} s.`;
  const detail = stderr.trim() || error.message;
  return `${lead} failed: ${detail.length > 500 ? `${detail.slice(0, 500)}…` : detail}`;
}
