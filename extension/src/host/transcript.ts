// Renders the engine's traffic in the transcript format of the core's golden tests, so a
// user's trace log can become a transcript test: "> {json}" for an input, "< {json}" for
// an output. A byte field (`data`: raw bytes, or base64) that is valid UTF-8 is written as
// `text` instead, as the transcripts spell it (core/tests/README.md); other bytes are
// base64 in `data`.

import type { Input, Output } from "./protocol";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

export function formatInput(input: Input | unknown): string {
  return `> ${JSON.stringify(withReadableBytes(input))}`;
}

export function formatOutput(output: Output | unknown): string {
  return `< ${JSON.stringify(withReadableBytes(output))}`;
}

function withReadableBytes(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  const { data, ...rest } = record;
  let bytes: Buffer;
  if (typeof data === "string") bytes = Buffer.from(data, "base64");
  else if (data instanceof Uint8Array) bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  else return value;
  const text = decodeIfText(bytes);
  return text === undefined ? { ...rest, data: bytes.toString("base64") } : { ...rest, text };
}

function decodeIfText(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
