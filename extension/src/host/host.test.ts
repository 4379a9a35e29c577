import assert from "assert/strict";
import { test } from "node:test";
import type { ClientSink } from "./clients";
import { EngineHost } from "./host";
import type * as contract from "./contract";
import type { DapMessage, Output } from "./protocol";
import { b64, delay, isAlive, scriptedHost, testLogger, unb64, waitFor, type Script } from "../testing/standIns";

/** A host over scripted engines. */
function makeHost(script: Script) {
  return scriptedHost(script);
}

function messagesClient(host: EngineHost) {
  const received: DapMessage[] = [];
  const client = host.openClient({ framing: "messages", deliver: (message) => received.push(message) });
  return { client, received };
}

function streamClient(host: EngineHost) {
  const state = { written: [] as Buffer[], ended: false };
  const sink: ClientSink = {
    framing: "contentLength",
    write: (data) => state.written.push(data),
    end: () => (state.ended = true),
    pause: () => undefined,
    resume: () => undefined,
  };
  return { client: host.openClient(sink), state };
}

const types = (inputs: contract.Input[]) => inputs.map((input) => input.type);

test("the engine is created lazily with the host's options and fresh OS randomness", () => {
  const { host, engines } = makeHost(() => []);
  assert.equal(engines.length, 0);
  messagesClient(host);
  assert.equal(engines.length, 1);
  const options = JSON.parse(engines[0].optionsJson);
  assert.equal(options.pythonPackageDir, "/opt/dapper/extension/python");
  assert.equal(options.platform, "linux");
  assert.equal(options.adapterVersion, "9.9.9");
  assert.match(options.randomness, /^[0-9a-f]{1024}$/);
  host.dispose();
  assert.equal(engines[0].freed, true);
});

test("client traffic becomes inputs, and client outputs reach the right client", () => {
  const { host, engines } = makeHost((input) => {
    if (input.type === "clientMessage") return [{ type: "sendToClient", client: input.client, message: { seq: 1, echo: input.message } }];
    if (input.type === "clientBytes") return [{ type: "writeToClient", client: input.client, data: input.data }, { type: "closeClient", client: input.client }];
    return [];
  });
  const inline = messagesClient(host);
  const stream = streamClient(host);
  inline.client.message({ seq: 1, type: "request", command: "initialize" });
  stream.client.bytes(Buffer.from("Content-Length: 2\r\n\r\n{}"));
  inline.client.closed();
  inline.client.closed();
  assert.deepEqual(engines[0].inputs, [
    { type: "clientOpened", client: 1, framing: "messages" },
    { type: "clientOpened", client: 2, framing: "contentLength" },
    { type: "clientMessage", client: 1, message: { seq: 1, type: "request", command: "initialize" } },
    { type: "clientBytes", client: 2, data: b64("Content-Length: 2\r\n\r\n{}") },
    { type: "clientClosed", client: 1 },
  ]);
  assert.deepEqual(inline.received, [{ seq: 1, echo: { seq: 1, type: "request", command: "initialize" } }]);
  // The host frames nothing: the bytes written are exactly the engine's.
  assert.equal(Buffer.concat(stream.state.written).toString(), "Content-Length: 2\r\n\r\n{}");
  assert.equal(stream.state.ended, true);
  host.dispose();
});

test("closeClient leaves an inline client open: its disconnect still gets an answer", () => {
  const { host, engines } = makeHost((input) => {
    if (input.type !== "clientMessage") return [];
    const reply = { seq: input.message.seq, type: "response", request_seq: input.message.seq, command: input.message.command, success: true };
    return input.message.command === "terminate"
      ? [{ type: "sendToClient", client: input.client, message: reply }, { type: "closeClient", client: input.client }]
      : [{ type: "sendToClient", client: input.client, message: reply }];
  });
  const inline = messagesClient(host);
  inline.client.message({ seq: 1, type: "request", command: "terminate" });
  inline.client.message({ seq: 2, type: "request", command: "disconnect" });
  assert.deepEqual(inline.received.map((message) => message.command), ["terminate", "disconnect"]);
  assert.equal(types(engines[0].inputs).filter((type) => type === "clientClosed").length, 0);
  host.dispose();
});

test("inputs reported while outputs execute are queued, never handled re-entrantly, and keep their order", () => {
  const { host, engines } = makeHost((input) => {
    if (input.type !== "clientMessage") return [];
    const n = input.message.n as number;
    // Each message makes two deliveries; the client answers each one synchronously.
    return n < 3
      ? [
          { type: "sendToClient", client: input.client, message: { reply: n, first: true } },
          { type: "sendToClient", client: input.client, message: { reply: n, first: false } },
        ]
      : [];
  });
  const received: DapMessage[] = [];
  const client = host.openClient({
    framing: "messages",
    deliver: (message) => {
      received.push(message);
      if (message.first) client.message({ n: (message.reply as number) + 1 });
      else client.message({ n: 100 + (message.reply as number) });
    },
  });
  client.message({ n: 1 });
  assert.equal(engines[0].reentered, false);
  const order = engines[0].inputs.filter((input) => input.type === "clientMessage").map((input) => (input.type === "clientMessage" ? input.message.n : undefined));
  assert.deepEqual(order, [1, 2, 101, 3, 102]);
  host.dispose();
});

test("inputs and outputs are traced in the transcript format", () => {
  const { host, lines } = makeHost(
    (input) => (input.type === "clientOpened" ? [{ type: "log", level: "info", message: "hello" }] : [{ type: "writeToClient", client: 1, data: b64("hi") }]),
  );
  const stream = streamClient(host);
  stream.client.bytes(Buffer.from("x"));
  stream.client.bytes(Buffer.from([0xff, 0xfe]));
  assert.deepEqual(lines().filter((line) => /^[<>@] /.test(line) || line === "hello"), [
    '> {"type":"clientOpened","client":1,"framing":"contentLength"}',
    '< {"type":"log","level":"info","message":"hello"}',
    "hello",
    '> {"type":"clientBytes","client":1,"text":"x"}',
    '< {"type":"writeToClient","client":1,"text":"hi"}',
    '> {"type":"clientBytes","client":1,"data":"//4="}',
    '< {"type":"writeToClient","client":1,"text":"hi"}',
  ]);
  host.dispose();
});

test("engine log outputs reach the logger at their level", () => {
  const { host, sink } = makeHost(() => [
    { type: "log", level: "warn", message: "careful" },
    { type: "log", level: "loud" as never, message: "odd level" },
  ]);
  messagesClient(host);
  assert.ok(sink.lines.some((line) => line.level === "warn" && line.line === "careful"));
  assert.ok(sink.lines.some((line) => line.level === "info" && line.line === "odd level"));
  host.dispose();
});

// Each case: outputs the host cannot execute as asked; it logs an error and carries on.
const badOutputs: { name: string; outputs: unknown; error: RegExp }[] = [
  { name: "an unknown output type", outputs: [{ type: "teleport" }, { type: "log", level: "info", message: "after" }], error: /does not know/ },
  { name: "sendToClient to a byte stream client", outputs: [{ type: "sendToClient", client: 1, message: {} }, { type: "log", level: "info", message: "after" }], error: /byte stream/ },
  { name: "a result that is not an array", outputs: { type: "log" }, error: /not an array/ },
];

for (const bad of badOutputs) {
  test(`the host survives ${bad.name}`, () => {
    const { host, sink } = makeHost((input) => (input.type === "clientOpened" ? (bad.outputs as Output[]) : []));
    streamClient(host);
    assert.ok(sink.lines.some((line) => line.level === "error" && bad.error.test(line.line)), JSON.stringify(sink.lines));
    if (Array.isArray(bad.outputs)) assert.ok(sink.lines.some((line) => line.line === "after"), "later outputs still run");
    host.dispose();
  });
}

test("gatherRandomness is answered with that many fresh bytes of OS randomness, different each time", async () => {
  const { host, engines } = makeHost((input) => (input.type === "clientOpened" ? [{ type: "gatherRandomness", bytes: 48 }] : []));
  messagesClient(host);
  messagesClient(host);
  const inputs = engines[0].inputs;
  const answers = await waitFor(() => {
    const found = inputs.filter((input) => input.type === "randomnessGathered");
    return found.length === 2 ? found : undefined;
  }, "two randomnessGathered");
  const [first, second] = answers.map((input) => (input.type === "randomnessGathered" ? input.hex : ""));
  assert.match(first, /^[0-9a-f]{96}$/);
  assert.match(second, /^[0-9a-f]{96}$/);
  assert.notEqual(first, second);
  host.dispose();
});

test("timers, facts, listeners and processes report back through the engine", async () => {
  const { host, engines } = makeHost((input) => {
    if (input.type === "clientOpened") {
      return [
        { type: "setTimer", timer: 4, afterMs: 5 },
        { type: "gatherFacts", request: 8, queries: [{ kind: "env", name: "DAPPER_HOST_TEST_UNSET" }] },
        { type: "openListener", listener: 2, transport: "tcp" },
        { type: "spawn", process: 6, argv: [process.execPath, "-e", "process.stdout.write('out')"], cwd: process.cwd(), env: {} },
      ];
    }
    return [];
  });
  messagesClient(host);
  const inputs = engines[0].inputs;
  await waitFor(() => (inputs.some((input) => input.type === "processExited") && inputs.length >= 7 ? true : undefined), "every report");
  const seen = new Set(types(inputs));
  for (const type of ["timerFired", "factsGathered", "listenerOpened", "processSpawned", "processOutput", "processExited"]) {
    assert.ok(seen.has(type as contract.Input["type"]), `${type} was reported`);
  }
  assert.deepEqual(
    inputs.find((input) => input.type === "factsGathered"),
    { type: "factsGathered", request: 8, facts: [{ kind: "env", name: "DAPPER_HOST_TEST_UNSET", value: null }] },
  );
  const output = inputs.find((input) => input.type === "processOutput");
  assert.equal(output && "data" in output ? unb64(output.data) : "", "out");
  host.dispose();
});

test("an engine panic ends every session, kills its processes and a fresh engine serves the next client", { skip: process.platform === "win32" }, async () => {
  const { host, engines, sink } = makeHost((input) => {
    if (input.type === "clientOpened" && input.client === 1) {
      return [{ type: "spawn", process: 1, argv: ["/bin/sh", "-c", "sleep 60 & echo $!; wait"], cwd: process.cwd(), env: {} }];
    }
    if (input.type === "clientMessage" && input.message.command === "explode") {
      console.error("panicked at core/src/router.rs:12:5:\nno such session");
      throw new Error("RuntimeError: unreachable executed");
    }
    if (input.type === "clientMessage") return [{ type: "sendToClient", client: input.client, message: { seq: 5, type: "event", event: "ok" } }];
    return [];
  });
  const inline = messagesClient(host);
  const stream = streamClient(host);
  inline.client.message({ seq: 1, type: "request", command: "ping" });
  const first = engines[0];
  const sleeperPid = await waitFor(() => {
    const output = first.inputs.find((input) => input.type === "processOutput");
    return output && "data" in output ? Number(unb64(output.data).trim()) : undefined;
  }, "the sleeper's pid");
  const shellPid = (first.inputs.find((input) => input.type === "processSpawned") as { pid: number }).pid;

  inline.client.message({ seq: 2, type: "request", command: "explode" });

  assert.ok(sink.lines.some((line) => line.level === "error" && /engine failed.*router\.rs:12:5.*no such session.*unreachable/s.test(line.line)));
  // The inline client hears an important output event then terminated, continuing its seq.
  assert.deepEqual(inline.received.slice(1).map((message) => [message.seq, message.event]), [[6, "output"], [7, "terminated"]]);
  assert.equal((inline.received[1].body as { category: string }).category, "important");
  assert.match(String((inline.received[1].body as { output: string }).output), /engine failed/);
  // The byte-stream client gets the same events framed by the host, then its stream ends.
  const written = Buffer.concat(stream.state.written).toString();
  assert.match(written, /^Content-Length: \d+\r\n\r\n\{.*"event":"output".*\}Content-Length: \d+\r\n\r\n\{.*"event":"terminated".*\}$/s);
  assert.equal(stream.state.ended, true);
  await waitFor(() => (isAlive(shellPid) || isAlive(sleeperPid) ? undefined : true), "the engine's processes to be killed");
  assert.equal(first.freed, true);

  // The orphaned inline client's requests are answered by the host, never by an engine.
  inline.client.message({ seq: 3, type: "request", command: "threads" });
  inline.client.message({ seq: 4, type: "request", command: "disconnect" });
  assert.deepEqual(
    inline.received.slice(3).map((message) => [message.seq, message.request_seq, message.command, message.success]),
    [[8, 3, "threads", false], [9, 4, "disconnect", true]],
  );
  await delay(50);
  assert.equal(first.inputs.filter((input) => input.type === "processExited").length, 0, "nothing reaches the dead engine");

  // A new client gets a new engine, which never hears of the old clients.
  const next = messagesClient(host);
  inline.client.closed();
  next.client.message({ seq: 1, type: "request", command: "ping" });
  assert.equal(engines.length, 2);
  assert.deepEqual(types(engines[1].inputs), ["clientOpened", "clientMessage"]);
  assert.equal((engines[1].inputs[0] as { client: number }).client, 3);
  assert.deepEqual(next.received, [{ seq: 5, type: "event", event: "ok" }]);
  host.dispose();
});

test("an engine that cannot be created fails its clients with a clear message", () => {
  const { logger, sink } = testLogger("info");
  const host = new EngineHost({
    createEngine: () => {
      throw new Error("wasm-pkg missing");
    },
    logger,
    pythonPackageDir: "/x",
    adapterVersion: "0",
  });
  const inline = messagesClient(host);
  assert.deepEqual(inline.received.map((message) => message.event), ["output", "terminated"]);
  assert.ok(sink.lines.some((line) => line.level === "error" && /could not be created.*wasm-pkg missing/s.test(line.line)));
  host.dispose();
});

test("dispose kills spawned processes and stops every report", { skip: process.platform === "win32" }, async () => {
  const { host, engines } = makeHost((input) =>
    input.type === "clientOpened"
      ? [
          { type: "spawn", process: 1, argv: ["/bin/sh", "-c", "sleep 60"], cwd: process.cwd(), env: {} },
          { type: "setTimer", timer: 1, afterMs: 20 },
        ]
      : [],
  );
  messagesClient(host);
  const pid = await waitFor(() => (engines[0].inputs.find((input) => input.type === "processSpawned") as { pid: number } | undefined)?.pid, "the spawn");
  assert.equal(host.liveProcessCount, 1);
  host.dispose();
  await waitFor(() => (isAlive(pid) ? undefined : true), "the process to be killed");
  await delay(50);
  assert.deepEqual(types(engines[0].inputs), ["clientOpened", "processSpawned"]);
});

test("without an acceptor, a connection to a listener opened for clients is closed", async () => {
  const { host, engines } = makeHost((input) =>
    input.type === "clientOpened" ? [{ type: "openListener", listener: 5, transport: "tcp", purpose: "clients" }] : [],
  );
  host.openClient({ framing: "contentLength", transport: "stdio", write: () => undefined, end: () => undefined, pause: () => undefined, resume: () => undefined });
  const opened = await waitFor(() => engines[0].inputs.find((input) => input.type === "listenerOpened"), "the client listener");
  const port = opened.type === "listenerOpened" && opened.address.transport === "tcp" ? opened.address.port : 0;
  const net = await import("net");
  const socket = net.connect({ host: "127.0.0.1", port });
  socket.on("error", () => undefined);
  await new Promise<void>((resolve) => socket.on("close", () => resolve()));
  assert.deepEqual(types(engines[0].inputs), ["clientOpened", "listenerOpened"], "neither a client nor a debuggee connection");
  host.dispose();
});

test("a client's bytes beside the outputs' JSON (dataRange) are copied out and written; a bad range is logged", () => {
  // The engine's output memory: the bytes of each call, which the next call overwrites.
  const memory = Buffer.alloc(16);
  let used = 0;
  const { logger, sink: logSink } = testLogger("trace");
  const host = new EngineHost({
    createEngine: () => ({
      handle: (inputJson) => {
        const input = JSON.parse(inputJson) as contract.Input;
        if (input.type !== "clientBytes") return "[]";
        const text = Buffer.from(input.data, "base64").toString("utf8");
        memory.fill(0);
        used = memory.write(`..${text}..`);
        const end = text === "bad" ? 99 : 2 + text.length;
        return JSON.stringify([{ type: "writeToClient", client: input.client, dataRange: [2, end] }, { type: "log", level: "info", message: "after" }]);
      },
      outputBytes: () => memory.subarray(0, used),
      free: () => undefined,
    }),
    logger,
    pythonPackageDir: "/opt/dapper/extension/python",
    adapterVersion: "9.9.9",
    platform: "linux",
  });
  const stream = streamClient(host);
  stream.client.bytes(Buffer.from("one"));
  stream.client.bytes(Buffer.from("two"));
  stream.client.bytes(Buffer.from("bad"));
  // Copies: what the sink kept is not what the engine's memory holds now.
  assert.deepEqual(stream.state.written.map((chunk) => chunk.toString("utf8")), ["one", "two"]);
  const lines = logSink.lines.map((line) => line.line);
  assert.ok(lines.includes('< {"type":"writeToClient","client":1,"text":"one"}'), lines.join("\n"));
  assert.ok(lines.some((line) => line.includes("dataRange [2, 99] outside its 7 output bytes")), lines.join("\n"));
  // The outputs after a failed one still run.
  assert.equal(lines.filter((line) => line === "after").length, 3);
  host.dispose();
});
