// A small levelled logger. The sink decides where lines go: the "Dapper" output channel
// inside VS Code, stderr or a file for the standalone adapter. Nothing here imports vscode.

import * as fs from "fs";
import type { LogLevel } from "./host/protocol";

export const LOG_LEVELS: readonly LogLevel[] = ["error", "warn", "info", "debug", "trace"];

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3, trace: 4 };

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === "string" && (LOG_LEVELS as readonly string[]).includes(value);
}

/** What a session token becomes in the log. */
export const REDACTED_TOKEN = "<token>";
const TOKEN_CHARS = 32;

/**
 * The session tokens the host has handed to the engine (32 hex characters each): no log
 * line may show one, since it is the key to a debuggee.
 */
export class Secrets {
  private readonly tokens = new Set<string>();

  /** Takes the host's randomness as the engine will cut it: 32 hex characters a token. */
  addTokens(hex: string): void {
    for (let index = 0; index + TOKEN_CHARS <= hex.length; index += TOKEN_CHARS) {
      this.tokens.add(hex.slice(index, index + TOKEN_CHARS).toLowerCase());
    }
  }

  /** `text` with every known token replaced. Only runs of 32+ hex characters are looked at. */
  redact(text: string): string {
    if (this.tokens.size === 0) return text;
    return text.replace(/[0-9a-fA-F]{32,}/g, (run) => {
      let out = "";
      let index = 0;
      while (index + TOKEN_CHARS <= run.length) {
        if (this.tokens.has(run.slice(index, index + TOKEN_CHARS).toLowerCase())) {
          out += REDACTED_TOKEN;
          index += TOKEN_CHARS;
        } else {
          out += run[index];
          index++;
        }
      }
      return out + run.slice(index);
    });
  }
}

/** Receives finished lines; a sink never filters. */
export interface LogSink {
  write(level: LogLevel, line: string): void;
}

export class Logger {
  private level: LogLevel;
  /** Redacted from every line this logger writes. */
  readonly secrets = new Secrets();

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
      this.sink.write(level, this.secrets.redact(message));
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
