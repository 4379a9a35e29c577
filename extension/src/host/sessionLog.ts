// Session logs (docs/session-logs.md): an engine's whole conversation with its host, in
// the transcript format of the core's golden tests, secrets redacted so that the log can
// be shared and still replays. This file writes them (SessionRecorder, used by the host),
// reads them (parseSessionLog) and replays them through an engine (replaySessionLog), for
// `npm run replay` and the "Dapper: Replay Session Log…" command alike.

import * as crypto from "crypto";
import * as fs from "fs";
import { RANDOM_PLACEHOLDER, Secrets } from "../log";
import { inputJson, type EngineOptions, type Input } from "./protocol";
import { formatInput, formatOutput } from "./transcript";
import { withData, type EngineFactory } from "./wasm";

/** Where a session log's lines go: a file, in practice. */
export interface LineSink {
  line(text: string): void;
  close?(): void;
}

/**
 * Opens the session log files of one host: `path` for its first engine, `path.2`, `path.3`…
 * for the engines that replace a failed one (a log is one engine's, from its options on).
 * Lines are written synchronously, so the last ones before a crash are kept.
 */
export function sessionLogFiles(path: string): () => LineSink {
  let engines = 0;
  return () => {
    engines++;
    const fd = fs.openSync(engines === 1 ? path : `${path}.${engines}`, "w", 0o600);
    return { line: (text) => fs.writeSync(fd, text + "\n"), close: () => fs.closeSync(fd) };
  };
}

/** What a log's first line says it is. */
export const SESSION_LOG_TITLE = "# Dapper session log (format: docs/session-logs.md)";

/** An input's line, redacted. */
export function inputLine(input: unknown, secrets: Secrets): string {
  return secrets.redact(formatInput(input, (bytes) => secrets.redactBytes(bytes)));
}

/** An output's line, redacted: the recorder and the replay both write outputs with it, so they compare. */
export function outputLine(output: unknown, secrets: Secrets): string {
  return secrets.redact(formatOutput(output, (bytes) => secrets.redactBytes(bytes)));
}

/** Writes one engine's session log: its options, then every input and the outputs it gave. */
export class SessionRecorder {
  constructor(
    private readonly sink: LineSink,
    private readonly secrets: Secrets,
  ) {}

  /** The head of the log: what made it, and the engine's options (its randomness as placeholders). */
  engineCreated(options: EngineOptions, recordedAt: Date = new Date()): void {
    this.write(SESSION_LOG_TITLE);
    this.write(`# adapter ${options.adapterVersion}, node ${process.version}, ${process.platform}, recorded ${recordedAt.toISOString()}`);
    this.write(this.secrets.redact(`! ${JSON.stringify(options)}`));
  }

  input(input: Input): void {
    this.write(inputLine(input, this.secrets));
  }

  output(output: unknown): void {
    this.write(outputLine(output, this.secrets));
  }

  /** The engine is gone: its log is complete. */
  close(): void {
    try {
      this.sink.close?.();
    } catch {
      // Nothing to do about it.
    }
  }

  private write(line: string): void {
    try {
      this.sink.line(line);
    } catch {
      // A full disk must not take the debugger down; the log is a help, not a duty.
    }
  }
}

// ---------------------------------------------------------------------------------------
// Reading.

/** A log that cannot be replayed, and the line (from 1) that says why. */
export class MalformedLog extends Error {
  constructor(
    readonly lineNumber: number,
    reason: string,
  ) {
    super(`line ${lineNumber}: ${reason}`);
  }
}

/** One recorded input and the outputs recorded under it. */
export interface Step {
  lineNumber: number;
  /** The input's line without "> ". */
  input: string;
  /** The output lines without "< ". */
  expected: string[];
}

export interface SessionLog {
  /** The `!` lines merged (the transcripts' defaults are not filled in: a log names them all). */
  options: Record<string, unknown>;
  steps: Step[];
}

export function parseSessionLog(text: string): SessionLog {
  const options: Record<string, unknown> = {};
  const steps: Step[] = [];
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  lines.forEach((raw, index) => {
    const lineNumber = index + 1;
    const json = (body: string): unknown => {
      try {
        return JSON.parse(body);
      } catch (error) {
        throw new MalformedLog(lineNumber, `not JSON: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
    if (raw.startsWith("< ")) {
      const step = steps.at(-1);
      if (step === undefined) throw new MalformedLog(lineNumber, "an output ('< ') before any input ('> ')");
      json(raw.slice(2));
      step.expected.push(raw.slice(2));
    } else if (raw.startsWith("> ")) {
      json(raw.slice(2));
      steps.push({ lineNumber, input: raw.slice(2), expected: [] });
    } else if (raw.startsWith("! ")) {
      if (steps.length > 0) throw new MalformedLog(lineNumber, "engine options ('! ') after the first input");
      const value = json(raw.slice(2));
      if (typeof value !== "object" || value === null || Array.isArray(value)) throw new MalformedLog(lineNumber, "engine options must be a JSON object");
      Object.assign(options, value);
    } else if (!(raw === "" || raw.startsWith("#") || raw.startsWith("@ "))) {
      throw new MalformedLog(lineNumber, `not a comment, '! options', '> input' or '< output': ${JSON.stringify(raw.slice(0, 80))}`);
    }
  });
  if (steps.length === 0) throw new MalformedLog(Math.max(1, lines.length), "the log has no input ('> ')");
  return { options, steps };
}

// ---------------------------------------------------------------------------------------
// Replaying.

/** An input whose outputs differ from the recording. */
export interface Difference {
  step: Step;
  /** The outputs as the log writes them (without "< "). */
  actual: string[];
  /** The recorded outputs compared (quiet logs left out). */
  expected: string[];
}

export interface ReplayResult {
  steps: number;
  differences: Difference[];
  /** Set when the engine refused the options or failed (panicked) on an input. */
  failure?: string;
}

/**
 * Feeds a log's inputs to a fresh engine and compares its outputs with the recorded ones,
 * input by input. The engine gets tokens of its own wherever the log has a placeholder,
 * and its outputs are redacted the way the recorder redacts them, so a faithful replay
 * compares equal. Throws MalformedLog for a log it cannot read.
 */
export function replaySessionLog(text: string, createEngine: EngineFactory): ReplayResult {
  const log = parseSessionLog(text);
  const secrets = new Secrets();
  const tokens = new Map<number, string>();
  const restore = (json: string): string =>
    json.replace(RANDOM_PLACEHOLDER, (_, number: string) => {
      const index = Number(number);
      let token = tokens.get(index);
      if (token === undefined) {
        token = crypto.randomBytes(16).toString("hex");
        tokens.set(index, token);
        secrets.setToken(index, token);
      }
      return token;
    });
  let engine;
  try {
    engine = createEngine(restore(JSON.stringify(log.options)));
  } catch (error) {
    return { steps: 0, differences: [], failure: `the engine refused the log's options: ${error instanceof Error ? error.message : String(error)}` };
  }
  const differences: Difference[] = [];
  try {
    for (const step of log.steps) {
      let input: Input;
      try {
        input = inputOfLine(restore(step.input), restore);
      } catch (error) {
        throw new MalformedLog(step.lineNumber, error instanceof Error ? error.message : String(error));
      }
      let outputs: unknown;
      try {
        outputs = JSON.parse(engine.handle(JSON.stringify(inputJson(input))));
      } catch (error) {
        return { steps: log.steps.indexOf(step), differences, failure: `the engine failed on the input of line ${step.lineNumber}: ${String(error)}` };
      }
      const actual = (Array.isArray(outputs) ? outputs : [outputs]).map((output) => outputLine(withData(engine, output), secrets).slice(2));
      const shown = (lines: string[]) => lines.map(comparable).filter((line): line is string => line !== undefined);
      const [want, got] = [shown(step.expected), shown(actual)];
      if (want.length !== got.length || want.some((line, index) => line !== got[index])) {
        differences.push({ step, expected: step.expected.filter((line) => comparable(line) !== undefined), actual: actual.filter((line) => comparable(line) !== undefined) });
      }
    }
  } finally {
    engine.free();
  }
  return { steps: log.steps.length, differences };
}

/** An input from its line: the readable byte forms (`text`, `frame`, `frames`) back to bytes in `data`. */
function inputOfLine(json: string, restore: (text: string) => string): Input {
  const value = JSON.parse(json) as Record<string, unknown>;
  if (typeof value !== "object" || value === null || typeof value.type !== "string") throw new Error("an input must be a JSON object with a type");
  const { text, data, frame, frames, ...rest } = value;
  let bytes: Buffer | undefined;
  if (typeof text === "string") bytes = Buffer.from(text, "utf8");
  // Bytes that are not UTF-8 are base64; a token in them is a placeholder in their Latin-1 reading.
  else if (typeof data === "string") bytes = Buffer.from(restore(Buffer.from(data, "base64").toString("latin1")), "latin1");
  else if (frame !== undefined) bytes = dpFrame(frame);
  else if (Array.isArray(frames)) bytes = Buffer.concat(frames.map(dpFrame));
  return (bytes === undefined ? rest : { ...rest, data: bytes }) as unknown as Input;
}

/** A DP frame from the debuggee (docs/ipc.md): "DP", version 1, kind 1, big-endian length, JSON. */
export function dpFrame(message: unknown): Buffer {
  const payload = Buffer.from(JSON.stringify(message), "utf8");
  const header = Buffer.from([0x44, 0x50, 1, 1, 0, 0, 0, 0]);
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

/**
 * An output line as compared: its JSON with sorted keys, or undefined for a `debug` or
 * `trace` log, which replays leave out as the transcripts do (chatter that may change freely).
 */
function comparable(line: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return line;
  }
  const record = value as { type?: unknown; level?: unknown };
  if (record?.type === "log" && (record.level === "debug" || record.level === "trace")) return undefined;
  return JSON.stringify(sorted(value));
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
  );
}

/** The result for a person: one block per differing input, and a last line that sums up. */
export function formatReplay(result: ReplayResult, name: string): string {
  const out: string[] = [];
  for (const { step, expected, actual } of result.differences) {
    out.push(`${name}:${step.lineNumber}: the outputs differ after`, `  > ${step.input}`);
    const removed = expected.filter((line) => !actual.includes(line));
    const added = actual.filter((line) => !expected.includes(line));
    out.push("  recorded:", ...expected.map((line) => `  ${removed.includes(line) ? "-" : " "} < ${line}`));
    out.push("  replayed:", ...actual.map((line) => `  ${added.includes(line) ? "+" : " "} < ${line}`));
    out.push("");
  }
  if (result.failure !== undefined) out.push(`${name}: ${result.failure}`);
  const verdict = result.differences.length === 0 && result.failure === undefined ? "no difference" : `${result.differences.length} input(s) with different outputs`;
  out.push(`${name}: ${result.steps} input(s) replayed, ${verdict}`);
  return out.join("\n");
}
