// A small Debug Adapter Protocol client for the benchmark: Content-Length framing over a
// child process's stdio or a TCP socket, requests as promises with deadlines, and every
// event kept in order so that a wait never misses one that arrived before it.
//
// It is the benchmark's own client rather than DebugClient because the figures need
// exact send and arrival times, and because both adapters (Dapper's and debugpy's) must
// be driven identically, including their reverse requests.
import { spawn } from "node:child_process";
import net from "node:net";
import { performance } from "node:perf_hooks";
import { killGroup, killPid, trackGroup } from "./cleanup.mjs";

const HEADER_END = Buffer.from("\r\n\r\n");

/** Splits a Content-Length framed byte stream into JSON messages; tolerant of any chunking. */
export class ContentLengthDecoder {
  constructor() {
    this.buffer = Buffer.alloc(0);
  }

  /** Adds a chunk and returns the messages it completed (parsed JSON objects). */
  push(chunk) {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const messages = [];
    for (;;) {
      const headerEnd = this.buffer.indexOf(HEADER_END);
      if (headerEnd < 0) break;
      const header = this.buffer.subarray(0, headerEnd).toString("ascii");
      const match = /Content-Length:\s*(\d+)/i.exec(header);
      if (!match) throw new Error(`a DAP header without Content-Length: ${JSON.stringify(header)}`);
      const length = Number(match[1]);
      const bodyStart = headerEnd + HEADER_END.length;
      if (this.buffer.length < bodyStart + length) break;
      const body = this.buffer.subarray(bodyStart, bodyStart + length).toString("utf8");
      this.buffer = this.buffer.subarray(bodyStart + length);
      messages.push(JSON.parse(body));
    }
    return messages;
  }
}

export function encodeMessage(message) {
  const json = Buffer.from(JSON.stringify(message), "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${json.length}\r\n\r\n`, "ascii"), json]);
}

/** The error of a request that the adapter answered with success: false. */
export class DapRequestError extends Error {
  constructor(command, response) {
    super(`${command} failed: ${response.message ?? "no message"}${response.body?.error?.format ? ` (${response.body.error.format})` : ""}`);
    this.response = response;
  }
}

export class DapClient {
  /**
   * @param {import("node:stream").Readable} input what the adapter writes
   * @param {import("node:stream").Writable} output what the adapter reads
   * @param {string} name for error messages
   */
  constructor(input, output, name) {
    this.name = name;
    this.output = output;
    this.decoder = new ContentLengthDecoder();
    this.seq = 1;
    this.pending = new Map();
    /** Every event, in order, with its arrival time (performance.now()). */
    this.events = [];
    this.consumed = new Map();
    this.waiters = [];
    this.closed = false;
    this.closeReason = "";
    /** Answers reverse requests: (request) => body, or throws to refuse. */
    this.reverseRequestHandler = (request) => {
      throw new Error(`the benchmark does not answer ${request.command}`);
    };
    input.on("data", (chunk) => this.receive(chunk));
    input.on("close", () => this.shutDown(`${name} closed its stream`));
    input.on("error", (error) => this.shutDown(`${name}: ${error.message}`));
    output.on("error", (error) => this.shutDown(`${name}: ${error.message}`));
  }

  /** Starts an adapter process that speaks DAP on its stdio. */
  static spawnAdapter(command, args, { env, cwd, name }) {
    // Its own process group, so that a run that goes wrong can be ended with all it started.
    const child = spawn(command, args, { env, cwd, stdio: ["pipe", "pipe", "pipe"], detached: true });
    trackGroup(child.pid);
    const client = new DapClient(child.stdout, child.stdin, name);
    client.process = child;
    client.stderr = "";
    child.stderr.on("data", (chunk) => {
      // Only the tail matters for error messages; keep memory bounded.
      client.stderr = (client.stderr + chunk.toString()).slice(-8000);
    });
    child.on("error", (error) => client.shutDown(`${name} could not start: ${error.message}`));
    child.on("exit", (code, signal) => client.shutDown(`${name} exited (${signal ?? code})`));
    return client;
  }

  /** Connects to an adapter serving DAP over TCP. */
  static connect(port, name) {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: "127.0.0.1", port });
      socket.setNoDelay(true);
      socket.once("connect", () => {
        const client = new DapClient(socket, socket, name);
        client.socket = socket;
        resolve(client);
      });
      socket.once("error", reject);
    });
  }

  receive(chunk) {
    let messages;
    try {
      messages = this.decoder.push(chunk);
    } catch (error) {
      this.shutDown(`${this.name} sent bad DAP: ${error.message}`);
      return;
    }
    const now = performance.now();
    for (const message of messages) {
      if (message.type === "response") {
        const pending = this.pending.get(message.request_seq);
        if (!pending) continue;
        this.pending.delete(message.request_seq);
        clearTimeout(pending.timer);
        message.receivedAt = now;
        if (message.success) pending.resolve(message);
        else pending.reject(new DapRequestError(pending.command, message));
      } else if (message.type === "event") {
        message.receivedAt = now;
        this.events.push(message);
        this.wake();
      } else if (message.type === "request") {
        this.answerReverseRequest(message);
      }
    }
  }

  async answerReverseRequest(request) {
    let response;
    try {
      const body = await this.reverseRequestHandler(request);
      response = { type: "response", seq: this.seq++, request_seq: request.seq, command: request.command, success: true, body: body ?? {} };
    } catch (error) {
      response = { type: "response", seq: this.seq++, request_seq: request.seq, command: request.command, success: false, message: error.message };
    }
    this.write(response);
  }

  write(message) {
    if (this.closed) return;
    this.output.write(encodeMessage(message));
  }

  /**
   * Sends a request; resolves with the response (its `receivedAt` set), rejects on an
   * error response, on the deadline, or when the adapter goes away.
   */
  request(command, args, timeoutMs = 30000) {
    if (this.closed) return Promise.reject(new Error(`${this.name} is gone (${this.closeReason}); cannot send ${command}`));
    const seq = this.seq++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(seq);
        reject(new Error(`${this.name} did not answer ${command} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(seq, { command, resolve, reject, timer });
      this.write({ type: "request", seq, command, arguments: args });
    });
  }

  /**
   * The next `name` event (matching `predicate`) not yet taken by an earlier call,
   * whether it already arrived or arrives before the deadline.
   */
  nextEvent(name, timeoutMs = 30000, predicate = () => true) {
    return new Promise((resolve, reject) => {
      const waiter = { name, predicate, resolve, reject };
      waiter.timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`${this.name}: no '${name}' event within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
      this.wake();
    });
  }

  wake() {
    for (const waiter of [...this.waiters]) {
      // Each waiter looks at an event once: a run that logs 100,000 lines must not cost
      // the client (on the debuggee's cores) a scan of every event for every new one.
      const from = Math.max(this.consumed.get(waiter.name) ?? 0, waiter.scanned ?? 0);
      let index = -1;
      waiter.scanned = this.events.length;
      for (let i = from; i < this.events.length; i++) {
        if (this.events[i].event === waiter.name && waiter.predicate(this.events[i])) {
          index = i;
          break;
        }
      }
      if (index >= 0) {
        // Everything of this name before the match is taken too, so waits move forward.
        this.consumed.set(waiter.name, index + 1);
        clearTimeout(waiter.timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
        waiter.resolve(this.events[index]);
      } else if (this.closed) {
        clearTimeout(waiter.timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
        waiter.reject(new Error(`${this.name} is gone (${this.closeReason}) before a '${waiter.name}' event`));
      }
    }
  }

  /** What the debuggee printed on a stream (output events of that category), in order. */
  outputOf(category) {
    return this.events
      .filter((e) => e.event === "output" && (e.body?.category ?? "console") === category)
      .map((e) => e.body.output)
      .join("");
  }

  shutDown(reason) {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = reason;
    for (const [, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(new Error(`${this.name} is gone (${reason}) before answering ${pending.command}`));
    }
    this.pending.clear();
    this.wake();
  }

  /**
   * Ends the session without hanging: a disconnect that terminates the debuggee (given a
   * short deadline), then the adapter's process group and the debuggee are killed if
   * they are still there.
   */
  async dispose({ debuggeePid } = {}) {
    if (!this.closed) {
      await this.request("disconnect", { terminateDebuggee: true }, 3000).catch(() => undefined);
    }
    if (this.socket) this.socket.destroy();
    if (this.process) {
      const child = this.process;
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin.end();
        const exited = new Promise((resolve) => child.once("exit", resolve));
        const grace = new Promise((resolve) => setTimeout(resolve, 3000));
        await Promise.race([exited, grace]);
      }
      killGroup(child.pid);
    }
    if (debuggeePid) killPid(debuggeePid);
  }
}
