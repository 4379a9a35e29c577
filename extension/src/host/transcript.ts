// Renders the engine's traffic in the transcript format of the core's golden tests, so a
// user's trace log can become a transcript test: "> {json}" for an input, "< {json}" for
// an output. A byte field (`data`: raw bytes, or base64) that is valid UTF-8 is written as
// `text` instead, as the transcripts spell it (core/tests/README.md); other bytes are
// base64 in `data`.

import type { Input, Output } from "./protocol";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Hides secrets in text; applied also to bytes written as base64, where the logger cannot see them. */
export type Redact = (text: string) => string;
const keep: Redact = (text) => text;

export function formatInput(input: Input | unknown, redact: Redact = keep): string {
  return `> ${JSON.stringify(withReadableBytes(input, redact))}`;
}

export function formatOutput(output: Output | unknown, redact: Redact = keep): string {
  return `< ${JSON.stringify(withReadableBytes(output, redact))}`;
}

function withReadableBytes(value: unknown, redact: Redact): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  const { data, ...rest } = record;
  let bytes: Buffer;
  if (typeof data === "string") bytes = Buffer.from(data, "base64");
  else if (data instanceof Uint8Array) bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  else return value;
  const text = decodeIfText(bytes);
  if (text !== undefined) return { ...rest, text };
  // Binary frames (a DP frame's length bytes need not be UTF-8) carry JSON too: hide the
  // secrets in their ASCII parts before base64 would hide them from the logger.
  const latin1 = bytes.toString("latin1");
  const redacted = redact(latin1);
  return { ...rest, data: (redacted === latin1 ? bytes : Buffer.from(redacted, "latin1")).toString("base64") };
}

function decodeIfText(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
