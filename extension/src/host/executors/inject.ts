// Executes `inject` (attach by process id): runs the debuggee's bootstrap inside a running
// Python process and reports `injected` (with how) or `injectFailed` (with a reason that
// names the cause and the fix). The engine decides and times out; this only acts.
//
// Python 3.14+: the target's own interpreter runs `sys.remote_exec(pid, bootstrap)` (PEP
// 768), on Linux, macOS and Windows. Python 3.9-3.13, on Linux and macOS: gdb or lldb
// attaches, takes the GIL (PyGILState_Ensure), runs the bootstrap (PyRun_SimpleString)
// and detaches. The bootstrap is a small Python file in a fresh private directory (0700;
// on Windows the user's own temporary folder), holding the session's token; it removes
// itself once read, so the token is never in an argv nor in a file others can read.
// injectTarget.ts reads the target and chooses the way, per platform.

import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { Logger } from "../../log";
import { describeError } from "../../log";
import type { OutputOf, Report } from "../protocol";
import { describeTarget, InjectError, pickMethod, readTargetFacts, type Method, type TargetFacts } from "./injectTarget";

/** How long gdb, lldb or the remote_exec helper may run before it is killed. */
const TOOL_TIMEOUT_MS = 25_000;
/** A bootstrap that never ran is removed after this long (the engine gave up before). */
const BOOTSTRAP_LIFETIME_MS = 60_000;
/** The environment variable that chooses the debugger binary (the attach key debuggerPath wins). */
export const DEBUGGER_VARIABLE = "DAPPER_INJECT_DEBUGGER";

export class Injector {
  constructor(
    private readonly report: Report,
    private readonly logger: Logger,
  ) {}

  inject(command: OutputOf<"inject">): void {
    const injection = command.injection;
    run(command, this.logger).then(
      (method) => this.report({ type: "injected", injection, method }),
      (error: unknown) => {
        const reason = error instanceof InjectError ? error.message : `an unexpected error: ${describeError(error)}`;
        this.logger.info(`Injection ${injection} into process ${command.pid} failed: ${reason}`);
        this.report({ type: "injectFailed", injection, reason });
      },
    );
  }
}

async function run(command: OutputOf<"inject">, logger: Logger): Promise<string> {
  const platform = process.platform;
  const facts = await readTargetFacts(command.pid, platform);
  // An empty variable counts as unset.
  const method = pickMethod(facts, command.debugger ?? (process.env[DEBUGGER_VARIABLE] || undefined), findOnPath, platform);
  logger.debug(`Injecting into process ${command.pid}: ${describeTarget(facts)}; ${method.kind} ${method.tool}`);
  const bootstrap = writeBootstrap(command, facts);
  try {
    shareListener(command, facts);
    return await runMethod(method, facts, bootstrap, platform);
  } catch (error) {
    // It never ran (or failed before reading itself): nothing may keep the token.
    removeBootstrap(bootstrap);
    throw error;
  } finally {
    setTimeout(() => removeBootstrap(bootstrap), BOOTSTRAP_LIFETIME_MS).unref();
  }
}

interface Bootstrap {
  /** Where the host wrote it. */
  directory: string;
  /** The file as the target sees it (its root may not be the host's). */
  file: string;
}

/** The bootstrap's text: it removes itself, imports the package and hands over. */
export function bootstrapSource(command: OutputOf<"inject">, file: string): string {
  const address =
    command.address.transport === "unix" ? `unix:${command.address.path}` : `tcp:${command.address.host}:${command.address.port}`;
  const literal = (text: string) => JSON.stringify(text);
  return `# Dapper's bootstrap (attach by process id); it removes itself once read.
def _dapper_bootstrap():
    import os, sys
    file = ${literal(file)}
    try:
        os.unlink(file)
        os.rmdir(os.path.dirname(file))
    except OSError:
        pass
    package_dir = ${literal(command.packageDir)}
    sys.path.insert(0, package_dir)
    try:
        from dapperdbg.launcher import inject
    finally:
        try:
            sys.path.remove(package_dir)
        except ValueError:
            pass
    inject.attach(${literal(address)}, ${literal(command.token)}, ${literal(command.sessionId)})
try:
    _dapper_bootstrap()
except BaseException as _dapper_error:
    import sys as _dapper_sys
    print("dapper: the debugger could not attach: %r" % (_dapper_error,), file=_dapper_sys.stderr)
    del _dapper_error, _dapper_sys
finally:
    del _dapper_bootstrap
`;
}

/**
 * Writes the bootstrap where the target can read it: the host's temporary directory, or
 * the /tmp of the target's own root (a container or chroot), reached through /proc.
 */
function writeBootstrap(command: OutputOf<"inject">, facts: TargetFacts): Bootstrap {
  const ownRoot = facts.root === undefined || facts.root === "/";
  const base = ownRoot ? os.tmpdir() : `/proc/${facts.pid}/root/tmp`;
  // mkdtemp makes the directory 0700; the file is 0600 inside it.
  const directory = fs.mkdtempSync(path.join(base, "dapper-inject-"));
  const written = path.join(directory, "bootstrap.py");
  const file = ownRoot ? written : path.posix.join("/tmp", path.basename(directory), "bootstrap.py");
  fs.writeFileSync(written, bootstrapSource(command, file), { mode: 0o600 });
  if (forOtherUser(facts)) {
    // Root attaching to another user's process: that user must read and remove it.
    fs.chownSync(directory, facts.uid, facts.gid ?? facts.uid);
    fs.chownSync(written, facts.uid, facts.gid ?? facts.uid);
  }
  return { directory, file };
}

/** Whether Dapper is root attaching to another user's process, which must then be let in. */
function forOtherUser(facts: TargetFacts): facts is TargetFacts & { uid: number } {
  return facts.uid !== undefined && process.getuid?.() === 0 && facts.uid !== 0;
}

/**
 * Root attaching to another user's process: the listener's private directory (one per
 * listener) and socket are given to that user, or the bootstrap could not connect. The
 * token still guards the connection.
 */
function shareListener(command: OutputOf<"inject">, facts: TargetFacts): void {
  if (command.address.transport !== "unix" || !forOtherUser(facts)) return;
  const socket = command.address.path;
  for (const file of [path.dirname(socket), socket]) fs.chownSync(file, facts.uid, facts.gid ?? facts.uid);
}

function removeBootstrap(bootstrap: Bootstrap): void {
  fs.rmSync(bootstrap.directory, { recursive: true, force: true });
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // Not there.
    }
  }
  return undefined;
}

export interface ToolResult {
  code: number | null;
  output: string;
  timedOut: boolean;
}

function runTool(argv: string[]): Promise<ToolResult> {
  return new Promise((resolve) => {
    execFile(argv[0], argv.slice(1), { timeout: TOOL_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024, env: toolEnvironment() }, (error, stdout, stderr) => {
      const output = `${stdout}\n${stderr}`;
      if (error === null) return resolve({ code: 0, output, timedOut: false });
      const failure = error as NodeJS.ErrnoException & { killed?: boolean; code?: number | string };
      if (typeof failure.code === "string") return resolve({ code: null, output: `${failure.message}\n${output}`, timedOut: false });
      resolve({ code: typeof failure.code === "number" ? failure.code : null, output, timedOut: failure.killed === true });
    });
  });
}

/** The tools run with the host's environment minus the Python variables that would change the helper interpreter. */
function toolEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ["PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONSAFEPATH"]) delete env[name];
  return env;
}

async function runMethod(method: Method, facts: TargetFacts, bootstrap: Bootstrap, platform: NodeJS.Platform): Promise<string> {
  const result = await runTool(toolArgv(method, facts.pid, bootstrap.file, platform));
  if (method.kind === "remoteExec") {
    if (result.code === 0) return `sys.remote_exec with ${method.tool}`;
    throw new InjectError(remoteExecFailure(result, facts, platform));
  }
  const failure = debuggerFailure(method, result, facts, platform);
  if (failure !== undefined) throw new InjectError(failure);
  return `${method.kind} ${method.tool}`;
}

/**
 * The command line that injects the bootstrap at `file` into process `pid`. gdb reads the
 * target's libraries through /proc/PID/root on Linux, so that a target in a container or
 * chroot is read from its own root; other systems have no such path.
 */
export function toolArgv(method: Method, pid: number, file: string, platform: NodeJS.Platform = process.platform): string[] {
  if (method.kind === "remoteExec") {
    const script = "import sys; sys.remote_exec(int(sys.argv[1]), sys.argv[2])";
    return [...method.argv, "-I", "-c", script, String(pid), file];
  }
  // The bootstrap runs in a fresh namespace, not in the program's __main__.
  const code = `exec(compile(open(${pyString(file)}).read(), '<dapper bootstrap>', 'exec'), {'__name__': '__dapper_bootstrap__'})`;
  if (method.kind === "gdb") {
    return [
      method.tool,
      "-nx",
      "-nh",
      "-batch",
      "-p",
      String(pid),
      ...(platform === "linux" ? ["-ex", `set sysroot /proc/${pid}/root`] : []),
      "-ex",
      "set scheduler-locking off",
      "-ex",
      "call (int)PyGILState_Ensure()",
      "-ex",
      `call (int)PyRun_SimpleString(${cString(code)})`,
      "-ex",
      "call (void)PyGILState_Release($1)",
    ];
  }
  return [
    method.tool,
    "--batch",
    "--no-lldbinit",
    "-p",
    String(pid),
    "-o",
    "expr (int)PyGILState_Ensure()",
    "-o",
    `expr (int)PyRun_SimpleString(${cString(code)})`,
    "-o",
    // Through a cast pointer: with the C API's types known, lldb refuses an int for
    // PyGILState_STATE.
    "expr ((void (*)(int))PyGILState_Release)($0)",
  ];
}

/** A Python string literal in single quotes, for a path. */
function pyString(text: string): string {
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/** A C string literal, as gdb's and lldb's expression parsers read it. */
function cString(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

const LISTEN_HINT = "or start the program with `python -m dapperdbg --listen PORT program.py` and attach with \"connect\"";

/** The reason a `sys.remote_exec` helper failed, from its output. */
export function remoteExecFailure(result: ToolResult, facts: TargetFacts, platform: NodeJS.Platform = process.platform): string {
  const text = result.output;
  if (result.timedOut) return `sys.remote_exec did not finish within ${TOOL_TIMEOUT_MS / 1000} seconds.`;
  if (/remote debugging is not enabled|PYTHON_DISABLE_REMOTE_DEBUG|disable_remote_debug/i.test(text)) {
    return `remote debugging is disabled in process ${facts.pid} (PYTHON_DISABLE_REMOTE_DEBUG is set, or it runs with -X disable_remote_debug, or its Python was built --without-remote-debug); restart it without that, ${LISTEN_HINT}.`;
  }
  if (/PermissionError|Operation not permitted|EPERM|ptrace|task_for_pid|Access is denied|WinError 5\b/i.test(text)) return attachForbidden(facts, platform);
  if (/ProcessLookupError|No such process/i.test(text)) return `process ${facts.pid} has exited.`;
  const last = lastLine(text);
  return `sys.remote_exec failed: ${last || `exit status ${String(result.code)}`}`;
}

/** The reason a gdb or lldb run failed, or undefined when the bootstrap ran. */
export function debuggerFailure(method: Method, result: ToolResult, facts: TargetFacts, platform: NodeJS.Platform = process.platform): string | undefined {
  const text = result.output;
  if (result.timedOut) {
    return `${method.kind} did not finish within ${TOOL_TIMEOUT_MS / 1000} seconds (${method.tool}); the process may be stopped, or another debugger may be attached.`;
  }
  if (/ptrace: Operation not permitted|Operation not permitted|attach failed/i.test(text) && !/\$\d+ = /.test(text)) {
    return attachForbidden(facts, platform);
  }
  if (/No symbol "?PyGILState_Ensure"? in current context|undeclared identifier 'PyGILState_Ensure'/.test(text)) {
    return `${method.kind} could not find Python's C API in process ${facts.pid} (its interpreter has no exported symbols?): it cannot be attached to by process id; ${LISTEN_HINT}.`;
  }
  // gdb prints `$2 = 0`, lldb `(int) $1 = 0`, for PyRun_SimpleString's result.
  const results = [...text.matchAll(/\$(\d+) = (-?\d+)/g)].map((match) => Number(match[2]));
  if (results.length >= 2) {
    if (results[1] === 0 && method.kind === "lldb" && /^error:/m.test(text)) {
      return `the bootstrap ran in process ${facts.pid}, but lldb could not give the GIL back (${lastLine(text.split("\n").filter((line) => line.startsWith("error:")).join("\n"))}): the program may hang; use gdb (debuggerPath).`;
    }
    if (results[1] === 0) return undefined;
    return `the bootstrap failed inside process ${facts.pid} (PyRun_SimpleString returned ${results[1]}); the program's stderr shows the Python error.`;
  }
  const last = lastLine(text.split("\n").filter((line) => !/^warning:|^\s*$/.test(line)).join("\n"));
  return `${method.kind} (${method.tool}) could not run the bootstrap in process ${facts.pid}: ${last || `exit status ${String(result.code)}`}`;
}

/** Why the system refused the attach, and what lets it through, on each platform. */
function attachForbidden(facts: TargetFacts, platform: NodeJS.Platform): string {
  if (platform === "darwin") {
    return `macOS does not allow Dapper to attach to process ${facts.pid}: reading another process's memory needs root (run VS Code, or the adapter, with sudo) and, for lldb, the developer tools' access (\`sudo DevToolsSecurity -enable\`); a program signed with the hardened runtime may refuse any debugger; ${LISTEN_HINT}.`;
  }
  if (platform === "win32") {
    return `Windows does not allow Dapper to attach to process ${facts.pid} (access is denied): an elevated program, or another user's, needs VS Code run as Administrator; ${LISTEN_HINT}.`;
  }
  const scope = facts.ptraceScope;
  const yama =
    scope === undefined
      ? ""
      : scope === 0
        ? ""
        : ` /proc/sys/kernel/yama/ptrace_scope is ${scope}${scope >= 3 ? " (no process may be attached to until reboot)" : ": run `echo 0 | sudo tee /proc/sys/kernel/yama/ptrace_scope`, or run VS Code as the same user with CAP_SYS_PTRACE"}.`;
  return `the system does not allow Dapper to attach to process ${facts.pid} (ptrace: Operation not permitted).${yama} In a container, add the capability: \`docker run --cap-add=SYS_PTRACE\` (or --security-opt seccomp=unconfined); ${LISTEN_HINT}.`;
}

function lastLine(text: string): string {
  const lines = text.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  return lines.at(-1) ?? "";
}
