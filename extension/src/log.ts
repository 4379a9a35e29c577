// A small levelled logger. The sink decides where lines go: the "Dapper" output channel
// inside VS Code, stderr or a file for the standalone adapter. Nothing here imports vscode.

import * as fs from "fs";
import type { LogLevel } from "./host/protocol";

export const LOG_LEVELS: readonly LogLevel[] = ["error", "warn", "info", "debug", "trace"];

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3, trace: 4 };

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === "string" && (LOG_LEVELS as readonly string[]).includes(value);
}

const TOKEN_CHARS = 32;

/** What the token of the host's randomness numbered `index` (from 0, in the order the host handed them out) becomes in a log. */
export function randomPlaceholder(index: number): string {
  return `<random:${index}>`;
}

/** Matches a placeholder of a token; group 1 is its number. */
export const RANDOM_PLACEHOLDER = /<random:(\d+)>/g;

/**
 * A JSON string member whose name says it is secret (`API_KEY`, `GITHUB_TOKEN`,
 * `db_password`, …), also inside JSON written in a JSON string (quotes escaped as `\"`).
 * Group 1 is the quote as written, 2 the name and separator, 3 the value.
 */
const SECRET_MEMBER =
  /(\\*")([A-Za-z0-9_.-]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL)[A-Za-z0-9_.-]*\1\s*:\s*)\1(.*?)\1/gi;

/**
 * What no log may show. The session tokens the host has handed to the engine (32 hex
 * characters each, the key to a debuggee) become `<random:N>`, N counting the tokens in
 * the order the host drew them, so that a replay can give the engine tokens of its own
 * in the same places (docs/session-logs.md); the values of secret-named members (an
 * `env` entry `API_KEY`, …) become as many `*` as they have bytes in the stream they travel
 * in, so that a message's Content-Length or a DP frame's length still holds and the log
 * still replays.
 */
export class Secrets {
  private readonly tokens = new Map<string, number>();

  /** Takes the host's randomness as the engine will cut it: 32 hex characters a token, numbered on from the last. */
  addTokens(hex: string): void {
    for (let index = 0; index + TOKEN_CHARS <= hex.length; index += TOKEN_CHARS) {
      this.setToken(this.tokens.size, hex.slice(index, index + TOKEN_CHARS));
    }
  }

  /** Gives a token its number (a replay sets the tokens it makes up for the placeholders). */
  setToken(index: number, token: string): void {
    this.tokens.set(token.toLowerCase(), index);
  }

  /**
   * A log line with every known token and every secret-named member's value replaced. A
   * member written with escaped quotes (`\"API_KEY\":\"…\"`) is in bytes the line
   * carries as a JSON string (a client's or a debuggee's stream): its value is measured
   * as those bytes.
   */
  redact(text: string): string {
    return this.redactSecretMembers(this.redactTokens(text), (value, quote) => (quote === '"' ? value.length : byteLengthInString(value)));
  }

  /** The same for bytes read as Latin-1 (one character a byte), which the log will write as base64. */
  redactBytes(latin1: string): string {
    return this.redactSecretMembers(this.redactTokens(latin1), (value) => value.length);
  }

  /** Only runs of 32+ hex characters are looked at. */
  private redactTokens(text: string): string {
    if (this.tokens.size === 0) return text;
    return text.replace(/[0-9a-fA-F]{32,}/g, (run) => {
      let out = "";
      let index = 0;
      while (index + TOKEN_CHARS <= run.length) {
        const number = this.tokens.get(run.slice(index, index + TOKEN_CHARS).toLowerCase());
        if (number !== undefined) {
          out += randomPlaceholder(number);
          index += TOKEN_CHARS;
        } else {
          out += run[index];
          index++;
        }
      }
      return out + run.slice(index);
    });
  }

  /** `bytes` measures a value; undefined keeps it (a value cut in the middle of an escape). */
  private redactSecretMembers(text: string, bytes: (value: string, quote: string) => number | undefined): string {
    return text.replace(SECRET_MEMBER, (whole: string, quote: string, name: string, value: string) => {
      const length = /^(?:\**|(?:<random:\d+>)+)$/.test(value) ? undefined : bytes(value, quote);
      return length === undefined ? whole : `${quote}${name}${quote}${"*".repeat(length)}${quote}`;
    });
  }
}

/** The UTF-8 length of what a JSON string's content stands for. */
function byteLengthInString(content: string): number | undefined {
  try {
    return Buffer.byteLength(JSON.parse(`"${content}"`) as string, "utf8");
  } catch {
    return undefined;
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
