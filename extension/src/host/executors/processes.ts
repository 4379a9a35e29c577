// Executes spawn and kill. Process ids come from the engine; the host tracks every child
// it started so that it can kill them all when the engine fails or the host goes away.

import { ChildProcess, spawn as spawnChild } from "child_process";
import * as fs from "fs";
import * as path from "path";
import type { KillSignal, KillTarget, OutputOf, Report } from "../protocol";
import type { Logger } from "../../log";
import { describeError } from "../../log";
import { killTree, signalPid } from "./processTree";

interface Tracked {
  child: ChildProcess;
  pid: number;
}

export class Processes {
  private readonly live = new Map<number, Tracked>();
  private disposed = false;
  private readonly emptyWaiters: (() => void)[] = [];

  constructor(
    private readonly report: Report,
    private readonly logger: Logger,
  ) {}

  /** Number of spawned processes that have not been reported as exited. */
  get size(): number {
    return this.live.size;
  }

  /** Resolves once no spawned process is alive (at once when none is). */
  whenAllExited(): Promise<void> {
    if (this.live.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.emptyWaiters.push(resolve));
  }

  spawn(command: OutputOf<"spawn">): void {
    const id = command.process;
    const failed = (error: string) => {
      this.logger.warn(`Process ${id} could not start: ${error}`);
      this.emit({ type: "spawnFailed", process: id, error });
    };
    if (this.disposed) return;
    if (this.live.has(id)) return failed(`process id ${id} is already in use`);
    if (!Array.isArray(command.argv) || command.argv.length === 0 || typeof command.argv[0] !== "string") {
      return failed("the command line is empty");
    }

    let child: ChildProcess;
    try {
      child = spawnChild(command.argv[0], command.argv.slice(1), {
        cwd: command.cwd,
        env: overlayEnvironment(process.env, command.env ?? {}, process.platform === "win32"),
        stdio: ["pipe", "pipe", "pipe"],
        // On POSIX the child leads its own process group, so a tree kill reaches all of it
        // and a Ctrl+C in the adapter's terminal does not hit the debuggee.
        detached: process.platform !== "win32",
        windowsHide: true,
      });
    } catch (error) {
      // spawn throws synchronously for arguments it rejects (a NUL byte, a bad cwd type,
      // a batch file on Windows).
      return failed(error instanceof Error ? explainSpawnError(error, command.cwd, command.argv[0]) : String(error));
    }

    // Node gives a pid exactly when the process started; without one an "error" follows.
    if (child.pid === undefined) {
      child.once("error", (error) => failed(explainSpawnError(error, command.cwd, command.argv[0])));
      return;
    }
    const pid = child.pid;
    this.live.set(id, { child, pid });
    this.logger.debug(`Process ${id} started: pid ${pid}: ${command.argv.join(" ")}`);
    this.emit({ type: "processSpawned", process: id, pid });

    child.stdout?.on("data", (chunk: Buffer) =>
      this.emit({ type: "processOutput", process: id, stream: "stdout", data: chunk }),
    );
    child.stderr?.on("data", (chunk: Buffer) =>
      this.emit({ type: "processOutput", process: id, stream: "stderr", data: chunk }),
    );
    // Writing to a child that has exited fails with EPIPE; the exit itself is reported.
    child.stdin?.on("error", (error) => this.logger.debug(`Process ${id} stdin: ${error.message}`));
    child.on("error", (error) => this.logger.warn(`Process ${id} (pid ${pid}): ${error.message}`));
    // "close" comes after "exit" once stdout and stderr are drained, so the engine sees
    // all of the output before the exit.
    child.on("close", (code: number | null, signal: NodeJS.Signals | null) => {
      if (this.live.get(id)?.child !== child) return;
      this.live.delete(id);
      this.logger.debug(`Process ${id} (pid ${pid}) exited: code ${code}, signal ${signal}`);
      this.emit({ type: "processExited", process: id, code, signal });
      if (this.live.size === 0) this.emptyWaiters.splice(0).forEach((resolve) => resolve());
    });
  }

  kill(target: KillTarget, signal: KillSignal, tree: boolean): void {
    if ("process" in target) {
      const tracked = this.live.get(target.process);
      if (tracked === undefined) {
        this.logger.debug(`kill: process ${target.process} is not running`);
        return;
      }
      if (tree) killTree(tracked.pid, signal);
      else if (!tracked.child.kill(signal)) this.logger.debug(`kill: process ${target.process} did not take ${signal}`);
      return;
    }
    if (!Number.isInteger(target.pid) || target.pid <= 0) {
      // process.kill(0) or a negative pid would signal a whole group, possibly our own.
      this.logger.error(`kill: refusing to signal pid ${target.pid}`);
      return;
    }
    const reached = tree ? killTree(target.pid, signal) : signalPid(target.pid, signal);
    if (!reached) this.logger.debug(`kill: pid ${target.pid} is not running`);
  }

  /** Stops or starts reading a process's stdout and stderr: it blocks once a pipe is full. */
  flow(id: number, paused: boolean): void {
    const tracked = this.live.get(id);
    if (tracked === undefined) return this.logger.debug(`${paused ? "pause" : "resume"}Reading: process ${id} is not running`);
    for (const stream of [tracked.child.stdout, tracked.child.stderr]) {
      if (paused) stream?.pause();
      else stream?.resume();
    }
  }

  /**
   * The engine no longer owns the process (a debuggee left running after a detach): it is
   * not killed with the others when the host goes away, and nothing more of it is
   * reported. Its output is still read and dropped while this host lives, so that it never
   * blocks on a full pipe.
   */
  disown(id: OutputOf<"disown">["process"]): void {
    const tracked = this.live.get(id);
    if (tracked === undefined) return;
    this.live.delete(id);
    for (const stream of [tracked.child.stdout, tracked.child.stderr]) {
      stream?.removeAllListeners("data");
      stream?.resume();
    }
    tracked.child.unref();
    this.logger.debug(`Process ${id} (pid ${tracked.pid}) runs on without the debugger; no longer tracked`);
    if (this.live.size === 0) this.emptyWaiters.splice(0).forEach((resolve) => resolve());
  }

  /** Kills every live child and its descendants at once, synchronously. */
  killAll(): void {
    for (const [id, tracked] of this.live) {
      try {
        killTree(tracked.pid, "SIGKILL");
      } catch (error) {
        this.logger.error(`Could not kill process ${id} (pid ${tracked.pid}): ${describeError(error)}`);
      }
    }
  }

  /** Kills everything and stops reporting: the engine these processes belonged to is gone. */
  dispose(): void {
    this.killAll();
    this.disposed = true;
    this.live.clear();
    this.emptyWaiters.splice(0).forEach((resolve) => resolve());
  }

  private emit(input: Parameters<Report>[0]): void {
    if (!this.disposed) this.report(input);
  }
}

/**
 * Applies the engine's environment overlay to a copy of the host's environment: a string
 * sets a variable, null removes it. Names are case-insensitive on Windows, so an overlay
 * of "Path" replaces "PATH" there instead of adding a second entry.
 */
export function overlayEnvironment(
  base: NodeJS.ProcessEnv,
  overlay: { [name: string]: string | null },
  caseInsensitive: boolean,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const [name, value] of Object.entries(overlay)) {
    if (caseInsensitive) {
      for (const existing of Object.keys(env)) {
        if (existing.toLowerCase() === name.toLowerCase()) delete env[existing];
      }
    } else {
      delete env[name];
    }
    if (typeof value === "string") env[name] = value;
  }
  return env;
}

/**
 * What a failed start means, where Node's own words blame the wrong thing or say nothing
 * useful: a missing cwd is reported as "spawn python ENOENT"; and on Windows a .bat or
 * .cmd file (pyenv-win's shims are such files) is refused with a bare EINVAL, because
 * Node runs batch files only through cmd.exe, whose quoting the engine's argv would not
 * survive.
 */
export function explainSpawnError(error: Error, cwd: string | undefined, executable = "", platform: NodeJS.Platform = process.platform): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" && cwd && !isDirectory(cwd)) {
    return `the working directory ${path.resolve(cwd)} does not exist (${error.message})`;
  }
  if (platform === "win32" && code === "EINVAL" && /\.(bat|cmd)$/i.test(executable)) {
    return `${executable} is a batch file, which Windows starts only through cmd.exe: name the python.exe it runs instead (for a pyenv-win shim, \`pyenv which python\` prints it) (${error.message})`;
  }
  return error.message;
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
