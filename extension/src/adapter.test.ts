// The standalone adapter as a real process: bundled with esbuild as the build does, with
// a scripted stand-in in place of the wasm engine (the real one is tested in core/).

import assert from "assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "child_process";
import * as esbuild from "esbuild";
import * as fs from "fs";
import * as net from "net";
import { test } from "node:test";
import * as os from "os";
import * as path from "path";
import { delay, isAlive, waitFor } from "./testing/standIns";

// The stand-in engine answers a few words a client writes, so tests can drive the host.
const FAKE_ENGINE = String.raw`
let spawned = false;
const b64 = (text) => Buffer.from(text, "utf8").toString("base64");
class WasmEngine {
  constructor(optionsJson) { this.options = JSON.parse(optionsJson); }
  handle(inputJson) {
    const input = JSON.parse(inputJson);
    const out = [{ type: "log", level: "info", message: "engine saw " + input.type }];
    if (input.type === "clientBytes") {
      const text = Buffer.from(input.data, "base64").toString("utf8");
      if (text === "panic") throw new Error("RuntimeError: unreachable");
      if (text === "options") out.push({ type: "writeToClient", client: input.client, data: b64(JSON.stringify(this.options)) });
      else if (text === "close") out.push({ type: "writeToClient", client: input.client, data: b64("bye") }, { type: "closeClient", client: input.client });
      else if (text === "spawn") {
        spawned = true;
        out.push({ type: "spawn", process: 1, argv: [process.execPath, "-e", "setInterval(() => {}, 1000)"], cwd: process.cwd(), env: {} });
      } else out.push({ type: "writeToClient", client: input.client, data: input.data });
    }
    if (input.type === "processSpawned") out.push({ type: "writeToClient", client: 1, data: b64("pid " + input.pid) });
    if (input.type === "clientClosed" && spawned) out.push({ type: "kill", target: { process: 1 }, signal: "SIGTERM", tree: true });
    return JSON.stringify(out);
  }
  free() {}
}
module.exports = { WasmEngine };
`;

let root: string | undefined;

/** Bundles the adapter once into a scratch extension root: package.json, dist/, extension/python. */
async function bundledAdapter(): Promise<string> {
  if (root !== undefined) return path.join(root, "dist", "adapter.js");
  root = fs.mkdtempSync(path.join(os.tmpdir(), "dapper-adapter-test-"));
  fs.writeFileSync(path.join(root, "package.json"), JSON.stringify({ name: "dapper", version: "1.2.3" }));
  fs.mkdirSync(path.join(root, "extension", "python"), { recursive: true });
  const fake = path.join(root, "fake_engine.js");
  fs.writeFileSync(fake, FAKE_ENGINE);
  await esbuild.build({
    entryPoints: [path.join(sourceDirectory(), "adapter.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    outfile: path.join(root, "dist", "adapter.js"),
    logLevel: "error",
    plugins: [
      {
        name: "fake-engine",
        setup(build) {
          build.onResolve({ filter: /wasm-pkg\/dapper_core$/ }, () => ({ path: fake }));
        },
      },
    ],
  });
  return path.join(root, "dist", "adapter.js");
}

/** The TypeScript sources, found from the compiled test in out/ or the source tree. */
function sourceDirectory(): string {
  const compiled = path.resolve(__dirname);
  const fromOut = compiled.replace(`${path.sep}out${path.sep}`, path.sep);
  return fs.existsSync(path.join(fromOut, "adapter.ts")) ? fromOut : compiled;
}

test.after(() => {
  if (root !== undefined) fs.rmSync(root, { recursive: true, force: true });
});

interface Running {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

async function startAdapter(args: string[] = []): Promise<Running> {
  const child = spawn(process.execPath, [await bundledAdapter(), ...args], { stdio: "pipe" });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function exitsWithin(running: Running, ms: number): Promise<number | null> {
  const timeout = delay(ms).then(() => "timeout" as const);
  const result = await Promise.race([running.exited, timeout]);
  if (result === "timeout") {
    running.child.kill("SIGKILL");
    assert.fail(`the adapter did not exit within ${ms} ms; stderr:\n${running.stderr()}`);
  }
  return result;
}

test("stdio: bytes pass both ways, only DAP reaches stdout, and closeClient ends the process", async () => {
  const running = await startAdapter(["--log-level", "debug"]);
  running.child.stdin.write("hello");
  await waitFor(() => (running.stdout() === "hello" ? true : undefined), "the echo");
  running.child.stdin.write("options");
  const options = JSON.parse(await waitFor(() => (running.stdout().endsWith("}") ? running.stdout().slice(5) : undefined), "the options"));
  assert.equal(options.adapterVersion, "1.2.3");
  assert.equal(options.pythonPackageDir, path.join(root as string, "extension", "python"));
  assert.equal(options.platform, process.platform);
  running.child.stdin.write("close");
  assert.equal(await exitsWithin(running, 5000), 0);
  assert.match(running.stdout(), /bye$/);
  assert.match(running.stderr(), /engine saw clientOpened/, "engine logs go to stderr");
});

test("stdio: the end of stdin ends the session, the debuggee is stopped, and the adapter exits", { skip: process.platform === "win32" }, async () => {
  const running = await startAdapter();
  running.child.stdin.write("spawn");
  const pid = Number(await waitFor(() => /pid (\d+)/.exec(running.stdout())?.[1], "the debuggee's pid"));
  assert.ok(isAlive(pid));
  running.child.stdin.end();
  assert.equal(await exitsWithin(running, 5000), 0);
  await waitFor(() => (isAlive(pid) ? undefined : true), "the debuggee to be gone");
});

test("stdio: an engine panic tells the client, ends the session and the adapter exits", async () => {
  const running = await startAdapter();
  running.child.stdin.write("panic");
  assert.equal(await exitsWithin(running, 5000), 0);
  assert.match(running.stdout(), /^Content-Length: \d+\r\n\r\n.*"category":"important".*Content-Length: \d+\r\n\r\n.*"event":"terminated"/s);
  assert.match(running.stderr(), /engine failed/);
});

test("--port serves one engine to many clients and announces its address on stderr", async () => {
  const running = await startAdapter(["--port", "0"]);
  const port = Number(await waitFor(() => /^Dapper listening on 127\.0\.0\.1:(\d+)$/m.exec(running.stderr())?.[1], "the listening line"));
  assert.ok(port > 0);
  const talk = async (text: string) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("utf8")));
    socket.write(text);
    await waitFor(() => (received === text ? true : undefined), `the echo of ${text}`);
    return socket;
  };
  const sockets = [await talk("first"), await talk("second")];
  sockets.forEach((socket) => socket.destroy());
  assert.equal(running.stdout(), "", "the TCP server writes nothing to stdout");
  running.child.kill("SIGTERM");
  await exitsWithin(running, 5000);
});

// Each case: arguments, the exit code and what stdout or stderr must say.
const commandLines: [string[], number, "stdout" | "stderr", RegExp][] = [
  [["--help"], 0, "stdout", /^Usage: node dist\/adapter\.js/],
  [["--port", "x"], 2, "stderr", /--port must be a port number[\s\S]*Usage:/],
  [["--bogus"], 2, "stderr", /unknown argument "--bogus"/],
];

for (const [args, code, stream, pattern] of commandLines) {
  test(`adapter ${args.join(" ")} exits with ${code}`, async () => {
    const running = await startAdapter(args);
    running.child.stdin.end();
    assert.equal(await exitsWithin(running, 5000), code);
    assert.match(stream === "stdout" ? running.stdout() : running.stderr(), pattern);
  });
}

test("--log-file receives the log and stderr stays quiet", async () => {
  const logFile = path.join(os.tmpdir(), `dapper-adapter-test-${process.pid}.log`);
  const running = await startAdapter(["--log-file", logFile, "--log-level", "trace"]);
  running.child.stdin.write("close");
  assert.equal(await exitsWithin(running, 5000), 0);
  const log = fs.readFileSync(logFile, "utf8");
  fs.rmSync(logFile, { force: true });
  assert.match(log, /> \{"type":"clientBytes","client":1,"text":"close"\}/);
  assert.match(log, /< \{"type":"closeClient","client":1\}/);
  assert.equal(running.stderr(), "");
});
