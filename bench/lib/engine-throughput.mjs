// DAP messages per second through the WebAssembly engine, loaded in this Node process as
// the extension host loads it. A scripted host and a scripted debuggee take one session
// through its launch handshake, then feed it the traffic of a stopped session in VS
// Code, over and over: threads, stackTrace, scopes and variables requests forwarded to
// the debuggee, their responses forwarded back, and an output event.
//
// Only the engine's side is timed, as the host pays it per message: everything
// extension/src/host/wasm.ts (`wrapEngine`) does with an Input — its JSON.stringify,
// writing that JSON and the raw bytes of its `data` (the executors report Buffers) into
// the engine's memory, the engine's call, reading the outputs' JSON back as a string —
// the JSON.parse of the outputs that extension/src/host/host.ts does, and its copy of the
// bytes of `writeToClient` and `send` out of the engine's memory (`outputBytes`). Not timed: the scripted client and
// debuggee (building the inputs, decoding what the engine sends them) and executing the
// outputs.
import { createRequire } from "node:module";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { root } from "./paths.mjs";

const require = createRequire(import.meta.url);

/**
 * The two mixes: a forwarded `threads` request and its response (small messages), and
 * what VS Code sends after each stop (threads, stackTrace, scopes, variables) with
 * realistically sized responses and an output event. bench/native/ runs the same two.
 */
export const MIXES = {
  threads: ["threads"],
  stopped: ["threads", "stackTrace", "scopes", "variables"],
};

/** The inputs whose bytes the host passes beside the JSON (extension/src/host/wasm.ts). */
const BYTE_INPUTS = ["clientBytes", "connectionBytes", "processOutput"];

/** A DP frame (docs/ipc.md): "DP", version 1, kind, big-endian length, JSON. */
export function encodeFrame(kind, message) {
  const payload = Buffer.from(JSON.stringify(message), "utf8");
  const header = Buffer.alloc(8);
  header.write("DP", 0, "ascii");
  header[2] = 1;
  header[3] = kind;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

/** Every frame in a chunk the engine sent to the debuggee. */
export function decodeFrames(buffer) {
  const messages = [];
  let offset = 0;
  while (offset + 8 <= buffer.length) {
    if (buffer.toString("ascii", offset, offset + 2) !== "DP") throw new Error("the engine sent bytes that are not a DP frame");
    const length = buffer.readUInt32BE(offset + 4);
    messages.push(JSON.parse(buffer.toString("utf8", offset + 8, offset + 8 + length)));
    offset += 8 + length;
  }
  return messages;
}

/** The body a debuggee would answer each request of the mix with: realistic sizes. */
export function responseBody(command) {
  switch (command) {
    case "threads":
      return { threads: [{ id: 1, name: "MainThread" }, { id: 2, name: "Thread-1 (worker)" }] };
    case "stackTrace":
      return {
        stackFrames: Array.from({ length: 20 }, (_, i) => ({ id: 1000 + i, name: `function_${i}`, line: 10 + i, column: 1, source: { path: `/home/user/project/package/module_${i % 4}.py` } })),
        totalFrames: 20,
      };
    case "scopes":
      return { scopes: [{ name: "Locals", presentationHint: "locals", variablesReference: 7, expensive: false }, { name: "Globals", variablesReference: 8, expensive: false }] };
    case "variables":
      return { variables: Array.from({ length: 50 }, (_, i) => ({ name: `name_${i}`, value: `'a value of variable ${i}'`, type: "str", variablesReference: 0, evaluateName: `name_${i}` })) };
    case "setBreakpoints":
      return { breakpoints: [] };
    default:
      return {};
  }
}

/**
 * The host's glue around a WasmEngine, as extension/src/host/wasm.ts (`wrapEngine`)
 * has it (the benchmark runs on wasm-pkg/ alone, without the compiled extension): the
 * buffered fast path, the input's JSON and the raw bytes of its `data` written straight
 * into the engine's memory and the outputs' JSON read straight out of it.
 */
export function hostGlue(engine, memory) {
  let view = Buffer.from(memory.buffer);
  const current = () => {
    if (view.byteLength === 0) view = Buffer.from(memory.buffer);
    return view;
  };
  const run = (json, data) => {
    const jsonRoom = json.length * 3;
    const at = engine.inputBuffer(jsonRoom + (data?.length ?? 0));
    const input = current();
    const jsonLength = input.write(json, at, jsonRoom, "utf8");
    if (data !== undefined) input.set(data, at + jsonLength);
    const dataLength = data?.length;
    const outputLength = engine.handleBuffered(jsonLength, dataLength);
    const from = engine.outputAddress();
    return current().toString("utf8", from, from + outputLength);
  };
  return {
    outputBytes: () => current().subarray(engine.outputBytesAddress()),
    handleInput(input) {
      if (BYTE_INPUTS.includes(input.type)) {
        const { data, ...rest } = input;
        return run(JSON.stringify(rest), data);
      }
      return run(JSON.stringify(input), undefined);
    },
  };
}

/**
 * A scripted host and debuggee around a WasmEngine: answers facts, listeners, spawns and
 * the debuggee's side of the IPC conversation, and counts what reaches the client.
 */
class ScriptedWorld {
  constructor(engine) {
    this.engine = engine;
    this.listener = undefined;
    this.conn = 100;
    this.debuggeeSeq = 1;
    this.clientMessages = [];
    this.engineNanos = 0;
    this.inputBytes = 0;
    this.messagesIn = 0;
    this.queue = [];
  }

  /** Hands one input to the engine (timed), then reacts to its outputs (not timed). */
  feed(input) {
    // The size the contract's JSON form has (bytes in base64), for the table.
    this.inputBytes += JSON.stringify(input.data === undefined ? input : { ...input, data: input.data.toString("base64") }).length;
    const started = performance.now();
    const outputs = JSON.parse(this.engine.handleInput(input));
    for (const output of outputs) {
      if (output.dataRange) {
        output.bytes = Buffer.from(this.engine.outputBytes().subarray(output.dataRange[0], output.dataRange[1]));
      }
    }
    this.engineNanos += (performance.now() - started) * 1e6;
    for (const output of outputs) this.react(output);
  }

  react(output) {
    switch (output.type) {
      case "gatherFacts":
        this.queue.push({ type: "factsGathered", request: output.request, facts: output.queries.map(answerFact) });
        break;
      case "openListener":
        this.listener = output.listener;
        this.queue.push({ type: "listenerOpened", listener: output.listener, address: { transport: "unix", path: `/tmp/dapper-bench/s${output.listener}.sock` } });
        break;
      case "spawn":
        this.queue.push({ type: "processSpawned", process: output.process, pid: 4242 });
        this.queue.push({ type: "connectionAccepted", listener: this.listener, conn: this.conn });
        this.queue.push(this.fromDebuggee({
          type: "event",
          event: "dapper/hello",
          body: { token: output.env.DAPPER_SESSION_TOKEN, sessionId: argAfter(output.argv, "--session-id"), pid: 4242, pythonVersion: "3.12.1", pythonImplementation: "cpython", executable: "/usr/bin/python3", protocol: 1 },
        }));
        break;
      case "send":
        for (const request of decodeFrames(output.bytes ?? Buffer.from(output.data, "base64"))) {
          if (request.type !== "request") continue;
          this.queue.push(this.fromDebuggee({ type: "response", request_seq: request.seq, success: true, command: request.command, body: responseBody(request.command) }));
        }
        break;
      case "sendToClient":
        this.clientMessages.push(output.message);
        break;
      case "writeToClient":
        // Framed bytes; kept as text so that the handshake check below can read them.
        this.clientMessages.push((output.bytes ?? Buffer.from(output.data, "base64")).toString("utf8"));
        break;
      default:
        // Timers, logs and the rest need no answer in this scripted session.
        break;
    }
  }

  fromDebuggee(message) {
    return { type: "connectionBytes", conn: this.conn, data: encodeFrame(1, { seq: this.debuggeeSeq++, ...message }) };
  }

  /** Feeds queued inputs until the engine asks for nothing more. */
  settle() {
    while (this.queue.length > 0) {
      const input = this.queue.shift();
      if (input.type === "connectionBytes") this.messagesIn++;
      this.feed(input);
    }
  }
}

function answerFact(query) {
  switch (query.kind) {
    case "path":
      return { kind: "path", path: query.path, exists: true, isFile: query.path.endsWith(".py"), isDirectory: !query.path.endsWith(".py") };
    case "env":
      return { kind: "env", name: query.name, value: null };
    case "python":
      return { kind: "python", executable: query.executable, ok: true, version: "3.12.1", path: "/usr/bin/python3.12" };
    default:
      return { ...query, ok: false, error: "not available in the benchmark" };
  }
}

function argAfter(argv, name) {
  const index = argv.indexOf(name);
  return index >= 0 ? argv[index + 1] : undefined;
}

function clientInput(framing, client, message) {
  if (framing === "messages") return { type: "clientMessage", client, message };
  const json = Buffer.from(JSON.stringify(message), "utf8");
  const bytes = Buffer.concat([Buffer.from(`Content-Length: ${json.length}\r\n\r\n`), json]);
  return { type: "clientBytes", client, data: bytes };
}

/**
 * Runs `rounds` rounds of the mix through a fresh engine with a client of this framing.
 * @returns {{messages, seconds, perSecond, microsPerForward}}
 */
export function measureWasmThroughput({ framing, mix: mixName, rounds }) {
  const mix = MIXES[mixName];
  if (!mix) throw new Error(`unknown message mix ${JSON.stringify(mixName)}`);
  const { WasmEngine, engineMemory } = require(path.join(root, "wasm-pkg", "dapper_core.js"));
  if (typeof engineMemory !== "function") throw new Error("wasm-pkg/ predates the buffered fast path; run npm run build");
  const engine = new WasmEngine(JSON.stringify({ pythonPackageDir: "/ext/python", platform: "linux", randomness: "5a".repeat(32), adapterVersion: "bench" }));
  try {
    const world = new ScriptedWorld(hostGlue(engine, engineMemory()));
    const client = 1;
    let seq = 1;
    const request = (command, args) => {
      world.feed(clientInput(framing, client, { seq: seq++, type: "request", command, arguments: args }));
      world.settle();
    };
    world.feed({ type: "clientOpened", client, framing });
    request("initialize", { clientID: "vscode", adapterID: "dapper", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
    request("launch", { type: "dapper", request: "launch", program: "/home/user/project/app.py", console: "internalConsole" });
    request("configurationDone", {});
    const before = world.clientMessages.length;
    if (!world.clientMessages.some((m) => JSON.stringify(m).includes('"initialized"') || String(m).includes('"event":"initialized"'))) {
      throw new Error("the scripted launch did not reach `initialized`; the engine's handshake changed");
    }

    // The timed part: only what the engine does with the mix.
    world.engineNanos = 0;
    world.inputBytes = 0;
    world.messagesIn = 0;
    let clientRequests = 0;
    const args = { threads: {}, stackTrace: { threadId: 1, startFrame: 0, levels: 20 }, scopes: { frameId: 1000 }, variables: { variablesReference: 7 } };
    for (let round = 0; round < rounds; round++) {
      for (const command of mix) {
        request(command, args[command]);
        clientRequests++;
      }
      if (mix.length > 1) {
        world.queue.push(world.fromDebuggee({ type: "event", event: "output", body: { category: "console", output: "a line of log\n" } }));
        world.settle();
      }
    }
    const delivered = world.clientMessages.length - before;
    const expected = rounds * (mix.length + (mix.length > 1 ? 1 : 0));
    if (delivered !== expected) throw new Error(`the engine delivered ${delivered} messages to the client, expected ${expected}`);
    const messages = clientRequests + world.messagesIn;
    const seconds = world.engineNanos / 1e9;
    return {
      framing,
      mix: mixName,
      messages,
      seconds,
      perSecond: messages / seconds,
      // The mean size of an input as the host hands it over (JSON text, bytes in base64).
      bytesPerMessage: world.inputBytes / messages,
      // A forwarded request costs the engine one request in and one response in.
      // A forwarded request costs the engine a request in and a response in: two messages.
      microsPerForward: ((2 * seconds) / messages) * 1e6,
    };
  } finally {
    engine.free();
  }
}
