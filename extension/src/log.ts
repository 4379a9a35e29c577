// A small levelled logger. The sink decides where lines go: the "Dapper" output channel
// inside VS Code, stderr or a file for the standalone adapter. Nothing here imports vscode.

import * as fs from "fs";
import type { LogLevel } from "./host/protocol";

export const LOG_LEVELS: readonly LogLevel[] = ["error", "warn", "info", "debug", "trace"];

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3, trace: 4 };

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === "string" && (LOG_LEVELS as readonly string[]).includes(value);
}

/** Receives finished lines; a sink never filters. */
export interface LogSink {
  write(level: LogLevel, line: string): void;
}

export class Logger {
  private level: LogLevel;

  constructor(
    private readonly sink: LogSink,
    level: LogLevel = "info",
  ) {
    this.level = level;
  }

  setLevel(level: LogLevel): void {
    this.level = level;
  }

  /** True when a message at this level would be written; lets callers skip costly formatting. */
  enabled(level: LogLevel): boolean {
    return RANK[level] <= RANK[this.level];
  }

  log(level: LogLevel, message: string): void {
    if (!this.enabled(level)) return;
    try {
      this.sink.write(level, message);
    } catch {
      // A broken sink (a closed stderr, a full disk) must not take the debugger down with it.
    }
  }

  error(message: string): void {
    this.log("error", message);
  }
  warn(message: string): void {
    this.log("warn", message);
  }
  info(message: string): void {
    this.log("info", message);
  }
  debug(message: string): void {
    this.log("debug", message);
  }
  trace(message: string): void {
    this.log("trace", message);
  }
}

/** Prefixes a line with an ISO time stamp and its level, the format of every text sink. */
export function formatLogLine(level: LogLevel, message: string, now: Date = new Date()): string {
  return `${now.toISOString()} [${level}] ${message}`;
}

/** Writes lines to a stream such as process.stderr. */
export class StreamSink implements LogSink {
  constructor(private readonly stream: NodeJS.WritableStream) {}

  write(level: LogLevel, line: string): void {
    this.stream.write(formatLogLine(level, line) + "\n");
  }
}

/**
 * Appends lines to a file synchronously, so the last lines before a crash or a
 * process.exit are never lost in a buffer.
 */
export class FileSink implements LogSink {
  private readonly fd: number;

  constructor(path: string) {
    this.fd = fs.openSync(path, "a");
  }

  write(level: LogLevel, line: string): void {
    fs.writeSync(this.fd, formatLogLine(level, line) + "\n");
  }
}

/** Collects lines in memory; used by tests. */
export class MemorySink implements LogSink {
  readonly lines: { level: LogLevel; line: string }[] = [];

  write(level: LogLevel, line: string): void {
    this.lines.push({ level, line });
  }
}

/** Renders an unknown thrown value as text, with the stack when there is one. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}
