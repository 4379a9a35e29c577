import assert from "assert/strict";
import * as crypto from "crypto";
import { existsSync } from "fs";
import * as path from "path";
import { test } from "node:test";
import { Secrets } from "../log";
import { inputJson, type EngineOptions, type Input } from "./protocol";
import { dpFrame, formatReplay, MalformedLog, parseSessionLog, replaySessionLog, SessionRecorder } from "./sessionLog";
import { withData, wrapEngine, type DapperCoreModule, type EngineFactory } from "./wasm";

/** The engine the build generated (npm run build), loaded as wasm.test.ts does. */
const wasmPkg = path.resolve(__dirname, "..", "..", "..", "..", "wasm-pkg", "dapper_core.js");
const skip = !existsSync(wasmPkg) && "wasm-pkg/ is not built (npm run build)";
const createEngine: EngineFactory = (options) => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(wasmPkg) as DapperCoreModule;
  return wrapEngine(new module.WasmEngine(options), module.engineMemory?.());
};

/**
 * Records a launch in the integrated terminal up to the debuggee's hello, as the host
 * records one: fresh OS randomness, its tokens told to the redaction first.
 */
function recordLaunch(): { log: string; token: string } {
  const randomness = crypto.randomBytes(16 * 32).toString("hex");
  const token = randomness.slice(0, 32);
  const secrets = new Secrets();
  secrets.addTokens(randomness);
  const lines: string[] = [];
  const recorder = new SessionRecorder({ line: (text) => lines.push(text) }, secrets);
  const options: EngineOptions = { pythonPackageDir: "/ext/python", platform: "linux", randomness, adapterVersion: "test", workingDirectory: "/work" };
  recorder.engineCreated(options);
  const engine = createEngine(JSON.stringify(options));
  const request = (seq: number, command: string, args: object): Input => ({ type: "clientMessage", client: 1, message: { seq, type: "request", command, arguments: args } });
  const framed = (body: object) => {
    const text = JSON.stringify(body);
    return Buffer.from(`Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
  };
  const inputs: Input[] = [
    { type: "clientOpened", client: 1, framing: "messages" },
    request(1, "initialize", { adapterID: "dapper", supportsRunInTerminalRequest: true }),
    request(2, "launch", { program: "/work/app.py", cwd: "/work", env: { API_KEY: "hunter2", PLAIN: "visible" } }),
    {
      type: "factsGathered",
      request: 1,
      facts: [
        { kind: "path", path: "/work", exists: true, isFile: false, isDirectory: true },
        { kind: "path", path: "/work/app.py", exists: true, isFile: true, isDirectory: false },
        { kind: "python", executable: "python3", ok: true, version: "3.12.1", path: "/usr/bin/python3" },
        { kind: "env", name: "PYTHONPATH", value: null },
      ],
    },
    { type: "listenerOpened", listener: 1, address: { transport: "unix", path: "/tmp/dapper-x/s.sock" } },
    { type: "clientMessage", client: 1, message: { seq: 3, type: "response", request_seq: 2, success: true, command: "runInTerminal", body: { processId: 5151 } } },
    { type: "connectionAccepted", listener: 1, conn: 9 },
    { type: "connectionBytes", conn: 9, data: dpFrame({ seq: 1, type: "event", event: "dapper/hello", body: { token, sessionId: "s1", pid: 5151, pythonVersion: "3.12.1", pythonImplementation: "cpython", executable: "/usr/bin/python3", protocol: 1 } }) },
    // A byte-stream client's secret, inside a Content-Length frame that must still add up.
    { type: "clientOpened", client: 2, framing: "contentLength" },
    { type: "clientBytes", client: 2, data: framed({ seq: 1, type: "request", command: "initialize", arguments: { adapterID: "dapper", clientName: "é", DB_PASSWORD: "sécret" } }) },
  ];
  for (const input of inputs) {
    recorder.input(input);
    // The fast path's bytes beside the JSON are put back into the outputs, as the host does.
    for (const output of JSON.parse(engine.handle(JSON.stringify(inputJson(input)))) as unknown[]) recorder.output(withData(engine, output));
  }
  engine.free();
  return { log: lines.join("\n") + "\n", token };
}

test("a recorded session has no token and no secret, and replays with no difference", { skip }, () => {
  const { log, token } = recordLaunch();
  assert.ok(!log.includes(token), "the session token is not in the log");
  assert.ok(!log.includes("hunter2") && !log.includes("sécret"), "secret-named values are not in the log");
  assert.match(log, /"DAPPER_SESSION_TOKEN":"<random:0>"/, "the runInTerminal request's token is a placeholder");
  assert.match(log, /"PLAIN":"visible"/);
  assert.ok(!log.includes("dataRange"), "bytes are in the log, not where the engine kept them");
  assert.match(log, /^! .*"randomness":"(<random:\d+>){32}"/m);
  const result = replaySessionLog(log, createEngine);
  assert.equal(formatReplay(result, "launch.log"), `launch.log: ${parseSessionLog(log).steps.length} input(s) replayed, no difference`);
});

test("a replay shows the input whose outputs differ, and what differs", { skip }, () => {
  const { log } = recordLaunch();
  const altered = log.replace(`"--program","/work/app.py"]`, `"--program","/work/other.py"]`);
  assert.notEqual(altered, log, "the recording has the launcher's command line to alter");
  const result = replaySessionLog(altered, createEngine);
  assert.equal(result.differences.length, 1);
  const report = formatReplay(result, "launch.log");
  assert.match(report, /launch\.log:\d+: the outputs differ after\n {2}> \{"type":"listenerOpened"/);
  assert.match(report, /- < .*other\.py/);
  assert.match(report, /\+ < .*app\.py/);
  assert.match(report, /1 input\(s\) with different outputs$/);
});

// Each case: a log and the line and reason it is refused with.
const malformed: [string, RegExp][] = [
  ["", /line 1: the log has no input/],
  ['# nothing\n! {"platform":"linux"}\n', /line 2: the log has no input/],
  ['< {"type":"log"}\n', /line 1: an output \('< '\) before any input/],
  ['> {"type":"timerFired","timer":1}\n! {}\n', /line 2: engine options \('! '\) after the first input/],
  ['! []\n> {"type":"timerFired","timer":1}\n', /line 1: engine options must be a JSON object/],
  ['> {"type":"timerFired",\n', /line 1: not JSON/],
  ['> {"type":"timerFired","timer":1}\n2026-11-25T16:00:00.000Z [info] hello\n', /line 2: not a comment, '! options', '> input' or '< output'/],
];
for (const [log, error] of malformed) {
  test(`a malformed log is refused with its line: ${JSON.stringify(log)}`, () => {
    assert.throws(() => parseSessionLog(log), (thrown: unknown) => thrown instanceof MalformedLog && error.test(thrown.message));
  });
}

test("comments, blank lines and old clock lines are skipped; options merge", () => {
  const log = parseSessionLog('# c\n\n! {"a":1}\n! {"b":2}\n@ 15\n> {"type":"timerFired","timer":1}\n< {"type":"log"}\r\n> {"type":"timerFired","timer":2}\n');
  assert.deepEqual(log.options, { a: 1, b: 2 });
  assert.deepEqual(log.steps, [
    { lineNumber: 6, input: '{"type":"timerFired","timer":1}', expected: ['{"type":"log"}'] },
    { lineNumber: 8, input: '{"type":"timerFired","timer":2}', expected: [] },
  ]);
});
