// Renders the engine's traffic in the transcript format of the core's golden tests, so a
// user's trace log can become a transcript test: "> {json}" for an input, "< {json}" for
// an output and "@ <ms>" whenever the clock moved. A byte field (`data`, base64) that is
// valid UTF-8 is written as `text` instead, as the transcripts spell it
// (core/tests/README.md); other bytes stay base64 in `data`.

import type { Input, Output } from "./protocol";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

export function formatClock(nowMs: number): string {
  return `@ ${nowMs}`;
}

export function formatInput(input: Input | unknown): string {
  return `> ${JSON.stringify(withReadableBytes(input))}`;
}

export function formatOutput(output: Output | unknown): string {
  return `< ${JSON.stringify(withReadableBytes(output))}`;
}

function withReadableBytes(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  if (typeof record.data !== "string") return value;
  const text = decodeIfText(record.data);
  if (text === undefined) return value;
  const readable: Record<string, unknown> = { ...record, text };
  delete readable.data;
  return readable;
}

function decodeIfText(base64: string): string | undefined {
  try {
    return strictUtf8.decode(Buffer.from(base64, "base64"));
  } catch {
    return undefined;
  }
}
