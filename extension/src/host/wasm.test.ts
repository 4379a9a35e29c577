import assert from "assert/strict";
import { existsSync } from "fs";
import * as path from "path";
import { test } from "node:test";
import { inputJson, type Input } from "./protocol";
import { wrapEngine, type DapperCoreModule, type WasmEngine } from "./wasm";


/** The engine module the build generated, loaded the way the bundle does not need to. */
const wasmPkg = path.resolve(__dirname, "..", "..", "..", "..", "wasm-pkg", "dapper_core.js");

test("the buffered fast path gives the outputs of the JSON form, also across memory growth", { skip: !existsSync(wasmPkg) && "wasm-pkg/ is not built (npm run build)" }, () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(wasmPkg) as DapperCoreModule;
  assert.equal(typeof module.engineMemory, "function", "wasm-pkg/ has the buffered fast path");
  const options = JSON.stringify({ pythonPackageDir: "/ext/python", platform: "linux", randomness: "cd".repeat(32), adapterVersion: "test" });
  const reference = new module.WasmEngine(options);
  const raw = new module.WasmEngine(options) as Required<Pick<WasmEngine, "inputBuffer" | "handleBuffered" | "outputAddress">> & WasmEngine;
  const fast = wrapEngine(raw, module.engineMemory?.());
  const message = (seq: number, text: string) => ({ seq, type: "event", event: "output", body: { output: text } });
  const framed = (body: string) => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  // Large enough that the engine's memory grows and the host's view of it must follow.
  const large = "é€😀 ".repeat(1_500_000);
  const inputs: Input[] = [
    { type: "clientOpened", client: 1, framing: "messages" },
    { type: "clientOpened", client: 2, framing: "contentLength" },
    { type: "clientMessage", client: 1, message: { seq: 1, type: "request", command: "initialize", arguments: { adapterID: "dapper", clientName: "é😀" } } },
    { type: "clientBytes", client: 2, data: Buffer.from(framed(JSON.stringify({ seq: 1, type: "request", command: "initialize", arguments: { adapterID: "dapper" } }))) },
    { type: "clientMessage", client: 1, message: message(2, large) },
    { type: "clientBytes", client: 2, data: Buffer.from(framed(JSON.stringify(message(2, large)))) },
    { type: "clientMessage", client: 1, message: { seq: 3, type: "request", command: "threads" } },
    { type: "connectionBytes", conn: 9, data: Buffer.from("DP") },
    { type: "processOutput", process: 4, stream: "stdout", data: Buffer.from("out") },
    { type: "timerFired", timer: 77 },
  ];
  // The buffered path leaves the bytes of writeToClient and send beside the JSON; put back
  // as base64, the outputs must be the JSON form's.
  let ranges = 0;
  const withData = (outputs: { type: string; dataRange?: [number, number]; data?: string }[]) =>
    outputs.map(({ dataRange, ...output }) => {
      if (dataRange === undefined) return output;
      ranges++;
      assert.ok(output.type === "writeToClient" || output.type === "send", output.type);
      return { ...output, data: Buffer.from(fast.outputBytes?.().subarray(...dataRange) ?? []).toString("base64") };
    });
  try {
    for (const input of inputs) {
      const expected: unknown = JSON.parse(reference.handle(JSON.stringify(inputJson(input))));
      const shown = JSON.stringify(inputJson(input)).slice(0, 200);
      assert.deepEqual(withData(JSON.parse(fast.handleInput?.(input) ?? "null")), expected, shown);
    }
    assert.ok(ranges >= 1, "what the byte-stream client got came beside the JSON");
    // The JSON form through the same buffers, and JSON the engine cannot parse.
    assert.deepEqual(JSON.parse(fast.handle('{"type":"timerFired","timer":78}')), JSON.parse(reference.handle('{"type":"timerFired","timer":78}')));
    const refused = JSON.parse(fast.handle('{"type":')) as { type: string; level: string }[];
    assert.deepEqual(refused.map((output) => [output.type, output.level]), [["log", "error"]]);
    // Bytes beside an input that takes none are refused, not ignored.
    const at = raw.inputBuffer(64);
    const memory = Buffer.from(module.engineMemory?.().buffer ?? new ArrayBuffer(0));
    const jsonLength = memory.write('{"type":"timerFired","timer":1}', at, 64, "utf8");
    memory.write("x", at + jsonLength);
    const length = raw.handleBuffered(jsonLength, 1);
    const outputs = Buffer.from(module.engineMemory?.().buffer ?? new ArrayBuffer(0)).toString("utf8", raw.outputAddress(), raw.outputAddress() + length);
    assert.deepEqual((JSON.parse(outputs) as { type: string; level: string }[]).map((output) => [output.type, output.level]), [["log", "error"]]);
  } finally {
    reference.free();
    fast.free();
  }
});
