// What an attach by process id needs to know about its target, and the choice of how to
// inject into it (inject.ts runs it). The facts come from /proc on Linux, from ps on macOS
// (which has no /proc) and from PowerShell's Win32_Process on Windows; each platform's
// output has a pure parser, and the choice is a pure function of the facts and the
// platform, so that every platform's way and every refusal is tested with data here.
//
// Python 3.14+ is attached to through its own sys.remote_exec on all three. Python
// 3.9-3.13 needs a native debugger that can call into the process: gdb (or lldb) on
// Linux, lldb (Xcode's; gdb must be code-signed there) on macOS; Windows has no such
// command-line tool that Dapper can count on, so those versions are refused there with
// the way that works (--listen).

import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";

/** A refusal with its user-facing reason (cause and fix). */
export class InjectError extends Error {}

export interface PythonVersion {
  major: number;
  minor: number;
  freeThreaded: boolean;
}

export interface TargetFacts {
  pid: number;
  /** The target's real uid and gid (from /proc/PID/status). */
  uid?: number;
  gid?: number;
  /** The uid Dapper runs as. */
  ownUid?: number;
  /** The target's program as the kernel resolves /proc/PID/exe (undefined: unreadable). */
  exe?: string;
  /** The target's root directory (/proc/PID/root): "/" unless it runs in a chroot or container. */
  root?: string;
  /** Its Python version, from its program's or libpython's name (or by running it). */
  version?: PythonVersion;
  /** Why nothing could be read about it (another user's process), if so. */
  unreadable?: string;
  /** PYTHON_DISABLE_REMOTE_DEBUG in its environment, or -X disable_remote_debug. */
  remoteDebugDisabled?: string;
  /** /proc/sys/kernel/yama/ptrace_scope, when Yama is there. */
  ptraceScope?: number;
  /** The process that traces it already (a debugger, strace), from /proc/PID/status. */
  tracer?: { pid: number; name: string };
}

export type Method =
  | { kind: "remoteExec"; tool: string; argv: string[] }
  | { kind: "gdb"; tool: string }
  | { kind: "lldb"; tool: string };

const PYTHON_NAME = /(?:^|\/)(?:lib)?python(\d)\.(\d+)(t?)(?:\.so(?:\.[\d.]+)?|d|m|dm)?$/;

/** A Python version from a program's or a library's path (python3.12, libpython3.13t.so.1.0). */
export function versionFromName(file: string): PythonVersion | undefined {
  const match = PYTHON_NAME.exec(file.replace(/ \(deleted\)$/, ""));
  if (match === null) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), freeThreaded: match[3] === "t" };
}

/**
 * A Python version from a macOS framework build's program, which is not named after its
 * version: …/Python.framework/Versions/3.12/Resources/Python.app/Contents/MacOS/Python
 * (python.org's and Homebrew's builds re-exec it from bin/python3.12).
 */
export function versionFromFrameworkPath(file: string): PythonVersion | undefined {
  // python.org's free-threaded build is PythonT.framework.
  const match = /\/Python(T?)\.framework\/Versions\/(\d)\.(\d+)(t?)\//.exec(file);
  if (match === null) return undefined;
  return { major: Number(match[2]), minor: Number(match[3]), freeThreaded: match[1] === "T" || match[4] === "t" };
}

/** The version of the libpython mapped into the process, if one is. */
export function versionFromMaps(maps: string): PythonVersion | undefined {
  for (const line of maps.split("\n")) {
    const file = line.split(/\s+/).slice(5).join(" ");
    if (!file.includes("libpython")) continue;
    const version = versionFromName(file);
    if (version !== undefined) return version;
  }
  return undefined;
}

/** Whether the process turned remote debugging off, from its environment and command line. */
export function remoteDebugSwitch(environ: string, cmdline: string): string | undefined {
  const variable = environ.split("\0").find((entry) => entry.startsWith("PYTHON_DISABLE_REMOTE_DEBUG="));
  if (variable !== undefined && variable.length > "PYTHON_DISABLE_REMOTE_DEBUG=".length) return "PYTHON_DISABLE_REMOTE_DEBUG is set in its environment";
  const args = cmdline.split("\0");
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "-Xdisable_remote_debug" || (args[i] === "-X" && args[i + 1] === "disable_remote_debug")) {
      return "it runs with -X disable_remote_debug";
    }
  }
  return undefined;
}

const LISTEN_HINT = "or start the program with `python -m dapperdbg --listen PORT program.py` and attach with \"connect\"";

/**
 * How to inject into the target: sys.remote_exec with its own interpreter on 3.14+, else
 * `chosenDebugger` (the configuration's or the environment's) or a native debugger from
 * PATH: gdb, else lldb, on Linux; lldb, else gdb, on macOS; none on Windows.
 * Throws InjectError with the reason when it cannot be done.
 */
export function pickMethod(
  facts: TargetFacts,
  chosenDebugger: string | undefined,
  findOnPath: (name: string) => string | undefined,
  platform: NodeJS.Platform = process.platform,
): Method {
  const pid = facts.pid;
  const otherUser = facts.uid !== undefined && facts.ownUid !== undefined && facts.ownUid !== 0 && facts.uid !== facts.ownUid;
  if (otherUser) {
    return fail(
      `process ${pid} belongs to another user (uid ${facts.uid}) and Dapper runs as uid ${facts.ownUid}; only that user (or root) may attach to it: run VS Code as that user, ${LISTEN_HINT}.`,
    );
  }
  if (facts.unreadable !== undefined) return fail(`Dapper cannot inspect process ${pid}: ${facts.unreadable}.`);
  const version = facts.version;
  if (version === undefined) {
    const program = facts.exe === undefined ? "" : ` (it runs ${facts.exe})`;
    return fail(`process ${pid} is not a Python process${program}; pick the process of the Python interpreter that runs your program.`);
  }
  const name = `Python ${version.major}.${version.minor}${version.freeThreaded ? "t" : ""}`;
  if (version.major !== 3 || version.minor < 9) {
    return fail(`process ${pid} runs ${name}; Dapper debugs Python 3.9 and later.`);
  }
  if (version.freeThreaded) {
    return fail(`process ${pid} runs the free-threaded build of ${name}, which Dapper cannot attach to yet; run the program with the ordinary build, ${LISTEN_HINT}.`);
  }
  if (version.minor >= 14) {
    if (facts.remoteDebugDisabled !== undefined) {
      return fail(
        `remote debugging is disabled in process ${pid} (${facts.remoteDebugDisabled}); restart it without that, ${LISTEN_HINT}.`,
      );
    }
    return { kind: "remoteExec", ...interpreterOf(facts) };
  }
  if (platform === "win32") {
    return fail(
      `process ${pid} runs ${name}, which Dapper attaches to by process id on Windows only from Python 3.14 on (through sys.remote_exec; older versions would need a native debugger such as gdb); run the program with Python 3.14 or later, ${LISTEN_HINT}.`,
    );
  }
  if (facts.tracer !== undefined) {
    return fail(
      `process ${pid} is being traced already by process ${facts.tracer.pid} (${facts.tracer.name}), and a process has one tracer at a time; end or detach that debugger (or strace) first, ${LISTEN_HINT}.`,
    );
  }
  // macOS's gdb must be code-signed before it may attach; Xcode's lldb may.
  const order = platform === "darwin" ? ["lldb", "gdb"] : ["gdb", "lldb"];
  const tool = chosenDebugger ?? findOnPath(order[0]) ?? findOnPath(order[1]);
  if (tool === undefined) {
    const missing =
      platform === "darwin"
        ? "is attached to through lldb or gdb, and neither is on PATH; install Xcode's command line tools (`xcode-select --install`), which have lldb,"
        : "is attached to through gdb or lldb, and neither is on PATH; install gdb (`sudo apt install gdb`, `sudo dnf install gdb`) or lldb,";
    return fail(
      `${name} ${missing} or name one with the attach configuration's "debuggerPath" (or the DAPPER_INJECT_DEBUGGER environment variable), ${LISTEN_HINT}.`,
    );
  }
  if (chosenDebugger !== undefined && !fs.existsSync(chosenDebugger)) {
    return fail(`the debugger ${JSON.stringify(chosenDebugger)} (the attach configuration's "debuggerPath" or DAPPER_INJECT_DEBUGGER) does not exist; install gdb or lldb, or correct the path.`);
  }
  return { kind: path.basename(tool).includes("lldb") ? "lldb" : "gdb", tool };
}

/** The target's own interpreter, run in the target's root when that is not ours. */
function interpreterOf(facts: TargetFacts): { tool: string; argv: string[] } {
  const exe = facts.exe ?? "";
  const root = facts.root ?? "/";
  if (root === "/") return { tool: exe, argv: [exe] };
  const inside = exe.startsWith(`${root}/`) ? exe.slice(root.length) : exe;
  if (facts.ownUid !== 0) {
    return fail(
      `process ${facts.pid} runs in another root (${root}: a container or chroot), where only root can run its interpreter for sys.remote_exec; attach from inside it, ${LISTEN_HINT}.`,
    );
  }
  return { tool: inside, argv: ["chroot", `/proc/${facts.pid}/root`, inside] };
}

function fail(reason: string): never {
  throw new InjectError(reason);
}

/**
 * Reads what the choice needs: from /proc on Linux, from ps on macOS, from PowerShell on
 * Windows. Refuses a process that does not exist.
 */
export async function readTargetFacts(pid: number, platform: NodeJS.Platform = process.platform): Promise<TargetFacts> {
  const facts = platform === "linux" ? readProcFacts(pid) : platform === "win32" ? await readWindowsFacts(pid) : await readPsFacts(pid);
  if (facts.version === undefined && facts.exe !== undefined && /^python/i.test(path.basename(facts.exe))) {
    facts.version = await probeVersion(facts);
  }
  return facts;
}

function noSuchProcess(pid: number): InjectError {
  return new InjectError(`there is no process with id ${pid} (has it exited?); pick a running process.`);
}

function readProcFacts(pid: number): TargetFacts {
  const proc = `/proc/${pid}`;
  let status: string;
  try {
    status = fs.readFileSync(`${proc}/status`, "utf8");
  } catch {
    throw noSuchProcess(pid);
  }
  const ids = (key: string) => /^\s*(\d+)/.exec(status.split("\n").find((line) => line.startsWith(`${key}:`))?.slice(key.length + 1) ?? "");
  const uid = ids("Uid");
  const gid = ids("Gid");
  const tracerPid = ids("TracerPid");
  const facts: TargetFacts = {
    pid,
    uid: uid ? Number(uid[1]) : undefined,
    gid: gid ? Number(gid[1]) : undefined,
    ownUid: process.getuid?.(),
    ptraceScope: readNumber("/proc/sys/kernel/yama/ptrace_scope"),
  };
  if (tracerPid && tracerPid[1] !== "0") {
    const tracer = Number(tracerPid[1]);
    facts.tracer = { pid: tracer, name: readText(`/proc/${tracer}/comm`).trim() || "unknown" };
  }
  try {
    facts.exe = fs.readlinkSync(`${proc}/exe`);
    facts.root = fs.readlinkSync(`${proc}/root`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return facts; // A kernel thread, or a zombie: no program.
    facts.unreadable = `${code ?? "error"} reading ${proc}/exe (is it another user's process?)`;
    return facts;
  }
  facts.version = versionFromMaps(readText(`${proc}/maps`)) ?? versionFromName(facts.exe);
  facts.remoteDebugDisabled = remoteDebugSwitch(readText(`${proc}/environ`), readText(`${proc}/cmdline`));
  return facts;
}

/** ps's columns for a target on macOS: its owner and program (macOS's comm is the program's path), then its command line. */
export const PS_TARGET_ARGS = (pid: number) => [["-p", String(pid), "-ww", "-o", "uid=,comm="], ["-p", String(pid), "-ww", "-o", "args="]] as const;

/**
 * The facts ps gives of a target on macOS: `uid comm` (comm is the program's whole path
 * there, and may hold spaces) and its command line, whose words show -X switches (its
 * environment is not readable there). Undefined when ps printed no row: no such process.
 */
export function factsFromPs(pid: number, ownerAndProgram: string, commandLine: string, ownUid?: number): TargetFacts | undefined {
  const match = /^\s*(\d+)\s+(.+?)\s*$/.exec(ownerAndProgram.split("\n")[0] ?? "");
  if (match === null) return undefined;
  const exe = match[2];
  return {
    pid,
    uid: Number(match[1]),
    ownUid,
    exe,
    version: versionFromName(exe) ?? versionFromFrameworkPath(exe),
    remoteDebugDisabled: remoteDebugSwitch("", commandLine.trim().split(/\s+/).join("\0")),
  };
}

async function readPsFacts(pid: number): Promise<TargetFacts> {
  const [columns, args] = PS_TARGET_ARGS(pid);
  const [ownerAndProgram, commandLine] = await Promise.all([outputOf("ps", columns), outputOf("ps", args)]);
  const facts = factsFromPs(pid, ownerAndProgram ?? "", commandLine ?? "", process.getuid?.());
  if (facts === undefined) throw noSuchProcess(pid);
  return facts;
}

/** PowerShell's query of one process: its program and command line as JSON, or nothing when there is no such process. */
export const POWERSHELL_TARGET_SCRIPT = (pid: number) =>
  "[Console]::OutputEncoding = [System.Text.Encoding]::UTF8; " +
  `Get-CimInstance -ClassName Win32_Process -Filter "ProcessId = ${Math.trunc(pid)}" | Select-Object ProcessId,ExecutablePath,CommandLine | ConvertTo-Json -Compress`;

/**
 * The facts of a target on Windows from Win32_Process: its program and command line.
 * ExecutablePath is null for a process Windows does not let this user open (an elevated
 * one, another user's). Undefined for no output: no such process.
 */
export function factsFromCim(pid: number, text: string): TargetFacts | undefined {
  const trimmed = text.replace(/^\uFEFF/, "").trim();
  if (trimmed === "") return undefined;
  let row: unknown;
  try {
    row = JSON.parse(trimmed);
  } catch {
    return { pid, unreadable: `PowerShell's answer is not JSON: ${JSON.stringify(trimmed.slice(0, 200))}` };
  }
  const { ExecutablePath, CommandLine } = (Array.isArray(row) ? row[0] : row) as Record<string, unknown>;
  if (typeof ExecutablePath !== "string" || ExecutablePath === "") {
    return { pid, unreadable: "Windows does not tell its program to this user (is it elevated, or another user's process? run VS Code as Administrator)" };
  }
  const words = typeof CommandLine === "string" ? CommandLine.trim().split(/\s+/) : [];
  return { pid, exe: ExecutablePath, version: versionFromName(ExecutablePath.replace(/\.exe$/i, "").replace(/\\/g, "/")), remoteDebugDisabled: remoteDebugSwitch("", words.join("\0")) };
}

async function readWindowsFacts(pid: number): Promise<TargetFacts> {
  const args = ["-NoLogo", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-Command", POWERSHELL_TARGET_SCRIPT(pid)];
  const text = await outputOf("powershell.exe", args);
  if (text === undefined) return { pid, unreadable: "PowerShell (Get-CimInstance Win32_Process) could not be run" };
  const facts = factsFromCim(pid, text);
  if (facts === undefined) throw noSuchProcess(pid);
  return facts;
}

/** What a command printed, or undefined when it could not run or failed. */
function outputOf(command: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, args, { encoding: "utf8", timeout: 10_000, windowsHide: true }, (error, stdout) => resolve(error ? undefined : stdout));
  });
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

function readNumber(file: string): number | undefined {
  const text = readText(file).trim();
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

/** Asks an interpreter named python* (a static build: no libpython) for its version. */
function probeVersion(facts: TargetFacts): Promise<PythonVersion | undefined> {
  let argv: string[];
  try {
    argv = interpreterOf(facts).argv;
  } catch {
    return Promise.resolve(undefined);
  }
  const script = "import sys, sysconfig; print(sys.version_info[0], sys.version_info[1], int(bool(sysconfig.get_config_var('Py_GIL_DISABLED'))))";
  return new Promise((resolve) => {
    execFile(argv[0], [...argv.slice(1), "-I", "-c", script], { timeout: 10_000 }, (error, stdout) => {
      const match = /^(\d+) (\d+) ([01])/.exec(stdout);
      resolve(error === null && match !== null ? { major: Number(match[1]), minor: Number(match[2]), freeThreaded: match[3] === "1" } : undefined);
    });
  });
}

/** For the log. */
export function describeTarget(facts: TargetFacts): string {
  const version = facts.version === undefined ? "unknown Python" : `Python ${facts.version.major}.${facts.version.minor}`;
  return `${facts.exe ?? "unknown program"}, ${version}, root ${facts.root ?? "?"}`;
}
