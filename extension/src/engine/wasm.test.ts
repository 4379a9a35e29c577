import assert from "assert/strict";
import { existsSync } from "fs";
import * as path from "path";
import { test } from "node:test";
import type { Input } from "./protocol";
import { encodeInput, wrapEngine, type DapperCoreModule } from "./wasm";

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

// Each case: an input, the JSON the fast path passes, and the bytes beside it.
const cases: [string, Input, string, string | undefined][] = [
  ["an input without bytes", { type: "timerFired", timer: 3 }, '{"type":"timerFired","timer":3}', undefined],
  [
    "a DAP object stays in the JSON",
    { type: "clientMessage", client: 1, message: { seq: 1, type: "request", command: "threads", data: "not bytes" } },
    '{"type":"clientMessage","client":1,"message":{"seq":1,"type":"request","command":"threads","data":"not bytes"}}',
    undefined,
  ],
  ["client bytes go beside", { type: "clientBytes", client: 2, data: b64("Content-Length: 2\r\n\r\n{}") }, '{"type":"clientBytes","client":2}', "Content-Length: 2\r\n\r\n{}"],
  ["connection bytes go beside", { type: "connectionBytes", conn: 5, data: b64("héllo") }, '{"type":"connectionBytes","conn":5}', "héllo"],
  ["process output goes beside", { type: "processOutput", process: 1, stream: "stderr", data: b64("") }, '{"type":"processOutput","process":1,"stream":"stderr"}', ""],
];

for (const [name, input, json, data] of cases) {
  test(`encodeInput: ${name}`, () => {
    const encoded = encodeInput(input);
    assert.equal(encoded.json.toString("utf8"), json);
    assert.equal(encoded.data?.toString("utf8"), data);
  });
}

/** The engine module the build generated, loaded the way the bundle does not need to. */
const wasmPkg = path.resolve(__dirname, "..", "..", "..", "..", "wasm-pkg", "dapper_core.js");

interface RawEngine {
  handle(nowMs: number, inputJson: string): string;
  handleUtf8(nowMs: number, inputJson: Uint8Array, data?: Uint8Array): string;
  free(): void;
}

test("the fast path and the JSON form give the same outputs", { skip: !existsSync(wasmPkg) && "wasm-pkg/ is not built (npm run build)" }, () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { WasmEngine } = require(wasmPkg) as { WasmEngine: new (options: string) => RawEngine };
  const options = JSON.stringify({ pythonPackageDir: "/ext/python", platform: "linux", seed: "ab".repeat(32), adapterVersion: "test" });
  const [reference, fast] = [new WasmEngine(options), new WasmEngine(options)];
  const request = JSON.stringify({ seq: 1, type: "request", command: "initialize", arguments: { adapterID: "dapper" } });
  const framed = `Content-Length: ${Buffer.byteLength(request)}\r\n\r\n${request}`;
  const inputs: Input[] = [
    { type: "clientOpened", client: 1, framing: "contentLength" },
    { type: "clientBytes", client: 1, data: b64(framed.slice(0, 30)) },
    { type: "clientBytes", client: 1, data: b64(framed.slice(30)) },
    { type: "clientBytes", client: 1, data: b64("Content-Length: 9\r\n\r\n{\"seq\":2,") },
    { type: "clientOpened", client: 2, framing: "messages" },
    { type: "clientMessage", client: 2, message: { seq: 1, type: "request", command: "threads" } },
    { type: "connectionBytes", conn: 9, data: b64("DP") },
    { type: "processOutput", process: 4, stream: "stdout", data: b64("out") },
  ];
  try {
    for (const input of inputs) {
      const expected: unknown = JSON.parse(reference.handle(0, JSON.stringify(input)));
      const { json, data } = encodeInput(input);
      assert.deepEqual(JSON.parse(fast.handleUtf8(0, json, data)), expected, JSON.stringify(input));
    }
    // Bytes beside an input that takes none are refused, not ignored.
    const refused = JSON.parse(fast.handleUtf8(0, Buffer.from('{"type":"timerFired","timer":1}'), Buffer.from("x"))) as { type: string; level: string }[];
    assert.deepEqual(refused.map((output) => [output.type, output.level]), [["log", "error"]]);
  } finally {
    reference.free();
    fast.free();
  }
});

test("the buffered fast path gives the outputs of the JSON form, also across memory growth", { skip: !existsSync(wasmPkg) && "wasm-pkg/ is not built (npm run build)" }, () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(wasmPkg) as DapperCoreModule;
  assert.equal(typeof module.engineMemory, "function", "wasm-pkg/ has the buffered fast path");
  const options = JSON.stringify({ pythonPackageDir: "/ext/python", platform: "linux", seed: "cd".repeat(32), adapterVersion: "test" });
  const reference = new module.WasmEngine(options);
  const fast = wrapEngine(new module.WasmEngine(options), module.engineMemory?.());
  const message = (seq: number, text: string) => ({ seq, type: "event", event: "output", body: { output: text } });
  const framed = (body: string) => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  // Large enough that the engine's memory grows and the host's view of it must follow.
  const large = "é€😀 ".repeat(1_500_000);
  const inputs: Input[] = [
    { type: "clientOpened", client: 1, framing: "messages" },
    { type: "clientOpened", client: 2, framing: "contentLength" },
    { type: "clientMessage", client: 1, message: { seq: 1, type: "request", command: "initialize", arguments: { adapterID: "dapper", clientName: "é😀" } } },
    { type: "clientBytes", client: 2, data: b64(framed(JSON.stringify({ seq: 1, type: "request", command: "initialize", arguments: { adapterID: "dapper" } }))) },
    { type: "clientMessage", client: 1, message: message(2, large) },
    { type: "clientBytes", client: 2, data: b64(framed(JSON.stringify(message(2, large)))) },
    { type: "clientMessage", client: 1, message: { seq: 3, type: "request", command: "threads" } },
    { type: "connectionBytes", conn: 9, data: b64("DP") },
    { type: "processOutput", process: 4, stream: "stdout", data: b64("out") },
    { type: "timerFired", timer: 77 },
  ];
  // The buffered path leaves a byte-stream client's bytes beside the JSON; put back as
  // base64, the outputs must be the JSON form's.
  let ranges = 0;
  const withData = (outputs: { type: string; dataRange?: [number, number]; data?: string }[]) =>
    outputs.map(({ dataRange, ...output }) => {
      if (dataRange === undefined) return output;
      ranges++;
      assert.equal(output.type, "writeToClient");
      return { ...output, data: Buffer.from(fast.outputBytes?.().subarray(...dataRange) ?? []).toString("base64") };
    });
  try {
    for (const input of inputs) {
      const expected: unknown = JSON.parse(reference.handle(0, JSON.stringify(input)));
      const shown = JSON.stringify(input).slice(0, 200);
      assert.deepEqual(withData(JSON.parse(fast.handleInput?.(0, input) ?? "null")), expected, shown);
    }
    assert.ok(ranges >= 1, "what the byte-stream client got came beside the JSON");
    // The JSON form through the same buffers, and JSON the engine cannot parse.
    assert.deepEqual(JSON.parse(fast.handle(0, '{"type":"timerFired","timer":78}')), JSON.parse(reference.handle(0, '{"type":"timerFired","timer":78}')));
    const refused = JSON.parse(fast.handle(0, '{"type":')) as { type: string; level: string }[];
    assert.deepEqual(refused.map((output) => [output.type, output.level]), [["log", "error"]]);
  } finally {
    reference.free();
    fast.free();
  }
});
