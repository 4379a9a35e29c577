import assert from "assert/strict";
import { test } from "node:test";
import { formatInput, formatOutput } from "./transcript";

const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString("base64");

// Each case: a line formatter, its argument and the line expected.
const cases: [string, () => string, string][] = [
  ["an input without bytes", () => formatInput({ type: "timerFired", timer: 3 }), '> {"type":"timerFired","timer":3}'],
  ["text bytes are shown as text", () => formatInput({ type: "connectionBytes", conn: 1, data: b64("héllo\n") }), '> {"type":"connectionBytes","conn":1,"text":"héllo\\n"}'],
  ["raw text bytes too", () => formatInput({ type: "connectionBytes", conn: 1, data: Buffer.from("héllo\n") }), '> {"type":"connectionBytes","conn":1,"text":"héllo\\n"}'],
  ["raw binary bytes become base64", () => formatInput({ type: "processOutput", process: 2, stream: "stdout", data: Buffer.from([0xff, 0xfe]) }), '> {"type":"processOutput","process":2,"stream":"stdout","data":"//4="}'],
  ["binary bytes stay base64", () => formatOutput({ type: "send", conn: 1, data: b64(Buffer.from([0x44, 0x50, 0x01, 0xff])) }), '< {"type":"send","conn":1,"data":"RFAB/w=="}'],
  ["a character cut in half is not text", () => formatOutput({ type: "send", conn: 1, data: b64(Buffer.from("é").subarray(0, 1)) }), '< {"type":"send","conn":1,"data":"ww=="}'],
  ["an output that is not an object", () => formatOutput(42), "< 42"],
];

for (const [name, format, expected] of cases) {
  test(`transcript: ${name}`, () => assert.equal(format(), expected));
}

test("secrets are redacted from binary bytes too, which the logger sees only as base64", () => {
  const token = "3b7f04c3719303f8d77736f777767890";
  const frame = Buffer.concat([Buffer.from([0x44, 0x50, 1, 1, 0, 0, 0, 0xc8]), Buffer.from(`{"token":"${token}"}`)]);
  const line = formatInput({ type: "connectionBytes", conn: 1, data: frame }, (text) => text.split(token).join("<token>"));
  const data = (JSON.parse(line.slice(2)) as { data: string }).data;
  assert.equal(Buffer.from(data, "base64").toString("latin1"), '\u0044P\u0001\u0001\u0000\u0000\u0000\u00c8{"token":"<token>"}');
});
