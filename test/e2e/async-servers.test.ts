// asyncio servers as their users run them, through the real adapter: a FastAPI app under
// uvicorn (`python -m uvicorn app:app`, and with `--reload`, whose server is a child
// process of the reloader, a child session), and an aiohttp server (`python app.py`). An
// HTTP request from the test stops at a breakpoint in the route's handler, then in the
// coroutine it awaits; at each stop:
// - the stopped event names the request's task, which dapper/tasks lists as running at
//   that frame, beside the server's own tasks (uvicorn's main loop and lifespan,
//   aiohttp's run_app and the connection's task);
// - the call stack is the handler's frames, the server's frames de-emphasised, then the
//   labels of who awaits the request's task as far as the server links them (aiohttp's
//   connection task awaits it, or on 3.12+ starts it eagerly: the handler's first line
//   runs inside that task's step; uvicorn's request task is awaited by no task), then
//   the frames that started the loop; under justMyCode none of asyncio's own;
// - evaluate works in the handler's frame;
// then continuing lets the response arrive with its body.
// The packages come from PyPI into the venv the uvicorn fixture shares with
// devservers.test.ts (wheels only); without them a test is skipped, saying why. Each test
// is one server start and one request (2-4 s).
import path from "node:path";
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { freePort } from "./attach-support";
import { SessionTree, type TreeClient } from "./children-support";
import { fixtures, getWhenServing, marker, pythons, startServer, fixtureVenv, waitUntil } from "./support";

const fixture = "uvicorn";
const dir = path.join(fixtures, fixture);

interface TaskBody {
  id: number;
  name: string;
  state: string;
  description: string;
  awaitedBy?: { id: number; name: string; via?: string }[];
  location?: { name: string; line: number; source?: { path?: string } };
}

interface TasksBody {
  loops: { threadId: number; threadName: string; tasks: TaskBody[] }[];
}

/** What one stop must show under the app's frames, given the task dapper/tasks listed as the connection's. */
interface Expected {
  /** The labels, in order. */
  labels: (string | RegExp)[];
  /** The first frame under each label but the last (the awaiting or starting task's). */
  underLabels: string[];
}

interface AsyncServer {
  name: string;
  /** The app's file in the fixture. */
  file: string;
  launch: (port: number) => Record<string, unknown>;
  /** The server runs in a child session (a reloader's child process). */
  child: boolean;
  /** The server's own tasks, as name of the function each waits in. */
  serverTasks: string[];
  /** An expression for the handler's frame, and its value. */
  evaluate: [string, string];
  /** What the stop at `at` ("handler" or "lookup") shows. */
  expected: (at: "handler" | "lookup", version: string, connection: string) => Expected;
}

const line = (file: string, name: string) => marker(path.join(fixture, file), name);

/** The app's frames on top of the stack at each stop, as name:line (every app has the same). */
const appFrames = (file: string, at: "handler" | "lookup") =>
  at === "handler" ? [`read_item:${line(file, "handler")}`] : [`lookup:${line(file, "lookup")}`, `read_item:${line(file, "handler")}`];

/** 3.12+ (and a version like "3.15"): aiohttp starts a request's task eagerly. */
const eager = (version: string) => Number(version.split(".")[1]) >= 12;

/** FastAPI under uvicorn; with its reloader, the server is the reloader's child process. */
const fastapi = (reload: boolean): AsyncServer => ({
  name: reload ? "FastAPI under uvicorn --reload (the server is the reloader's child)" : "FastAPI under uvicorn",
  file: "fastapi_app.py",
  launch: (port) => ({ module: "uvicorn", args: ["fastapi_app:app", ...(reload ? ["--reload"] : []), "--host", "127.0.0.1", "--port", String(port)] }),
  child: reload,
  serverTasks: ["Server.main_loop", "LifespanOn.receive"],
  evaluate: ["item_id * 3", "63"],
  // uvicorn runs its loop with asyncio.run on 3.12+, asyncio.Runner on 3.11, and
  // run_until_complete before; no task awaits a request's.
  expected: () => ({ labels: [/^event loop \((asyncio\.run|asyncio\.Runner\.run|run_until_complete)\)$/], underLabels: [] }),
});

const servers: AsyncServer[] = [
  fastapi(false),
  fastapi(true),
  {
    name: "aiohttp's web.run_app",
    file: "aiohttp_app.py",
    launch: (port) => ({ program: path.join(dir, "aiohttp_app.py"), args: [String(port)] }),
    child: false,
    serverTasks: ["_run_app"],
    evaluate: ['request.match_info["item_id"]', "'21'"],
    expected: (at, version, connection) => ({
      labels: [
        at === "handler" && eager(version) ? `started eagerly by Task '${connection}'` : `awaited by Task '${connection}'`,
        "event loop (run_until_complete)",
      ],
      underLabels: ["RequestHandler.start"],
    }),
  },
];

/** Whether a frame's or location's name is `qualified` (3.11+) or its last part (before). */
const named = (name: string | undefined, qualified: string) => name === qualified || name === qualified.split(".").pop();

/** The next stop of `session` (taken from its events), within 30 s. */
async function nextStop(session: TreeClient, tree: SessionTree): Promise<DebugProtocol.StoppedEvent["body"]> {
  await waitUntil(() => session.events.some((e) => e.event === "stopped") || tree.failures.length > 0, 30000, "a stop in the app");
  if (tree.failures.length > 0) throw tree.failures[0];
  const index = session.events.findIndex((e) => e.event === "stopped");
  return session.events.splice(index, 1)[0].body as DebugProtocol.StoppedEvent["body"];
}

async function checkStop(tree: SessionTree, session: TreeClient, server: AsyncServer, version: string, at: "handler" | "lookup"): Promise<number> {
  const stop = await nextStop(session, tree);
  const threadId = stop.threadId ?? 0;
  assert.equal(stop.reason, "breakpoint");

  // The tasks: the server's, and the request's, running at the stop.
  const tasks = (await session.customRequest("dapper/tasks")).body as TasksBody;
  assert.deepEqual(
    tasks.loops.map((loop) => [loop.threadId, loop.threadName]),
    [[threadId, "MainThread"]],
  );
  const listed = tasks.loops[0].tasks;
  const running = listed.filter((task) => task.state === "running" && task.description === "running");
  assert.equal(running.length, 1, JSON.stringify(listed));
  const request = running[0];
  assert.equal(stop.description, `Paused on breakpoint in Task '${request.name}'`);
  const appFile = path.join(dir, server.file);
  assert.deepEqual([request.location?.name, request.location?.line, request.location?.source?.path], at === "handler" ? ["read_item", line(server.file, "handler"), appFile] : ["lookup", line(server.file, "lookup"), appFile]);
  for (const waitsIn of server.serverTasks) {
    assert.ok(
      listed.some((task) => task.state === "waiting" && named(task.location?.name, waitsIn)),
      `a server task waiting in ${waitsIn}: ${JSON.stringify(listed)}`,
    );
  }
  // aiohttp's connection task, which awaits (or is starting) the request's.
  const connection = listed.find((task) => named(task.location?.name, "RequestHandler.start"));

  const stack = (await session.stackTraceRequest({ threadId })).body.stackFrames;
  const expected = server.expected(at, version, connection?.name ?? "?");
  const top = appFrames(server.file, at);
  const shown = stack.map((frame) => (frame.presentationHint === "label" ? frame.name : `${frame.name}:${frame.line}`));
  assert.deepEqual(shown.slice(0, top.length), top, shown.join(" | "));
  const labels = stack.map((frame, index) => [frame, index] as const).filter(([frame]) => frame.presentationHint === "label");
  const isLabel = (text: string, wanted: string | RegExp) => (typeof wanted === "string" ? text === wanted : wanted.test(text));
  assert.ok(
    labels.length === expected.labels.length && labels.every(([frame], index) => isLabel(frame.name, expected.labels[index])),
    `labels ${expected.labels.join(", ")}: ${shown.join(" | ")}`,
  );
  assert.ok(
    labels.slice(0, -1).every(([, index], position) => named(stack[index + 1].name, expected.underLabels[position])),
    `${expected.underLabels.join(", ")} under the labels: ${shown.join(" | ")}`,
  );
  const frames = stack.filter((frame) => frame.presentationHint !== "label");
  // The server's frames are there, de-emphasised; asyncio's are not (justMyCode).
  assert.ok(frames.slice(top.length).every((frame) => frame.presentationHint === "subtle" || frame.name === "<module>"), shown.join(" | "));
  assert.ok(frames.length > top.length + 1, shown.join(" | "));
  assert.deepEqual(frames.filter((frame) => /[\\/]asyncio[\\/]/.test(frame.source?.path ?? "")), []);
  assert.equal(frames[frames.length - 1].name, "<module>");
  if (server.file === "aiohttp_app.py") assert.equal(frames[frames.length - 1].line, line(server.file, "run"));
  if (at === "handler" && connection !== undefined && eager(version)) {
    // The connection's task is in the middle of its step, starting the request's: its
    // frame is on the thread's stack, and cannot be restarted.
    assert.deepEqual([connection.state, connection.description], ["running", `starting Task '${request.name}' eagerly`]);
    assert.equal(stack[labels[0][1] + 1].canRestart, false);
  }

  const handler = frames.find((frame) => frame.name === "read_item");
  const value = await session.evaluateRequest({ expression: server.evaluate[0], frameId: handler?.id ?? 0, context: "repl" });
  assert.equal(value.body.result, server.evaluate[1]);
  return threadId;
}

for (const python of pythons()) {
  describe(`Python ${python.version}: asyncio servers`, () => {
    for (const server of servers) {
      test(`${server.name}: a request stops in its handler, with its task, its awaiters and the server's tasks`, async (context) => {
        const venv = fixtureVenv(python, fixture);
        if (!venv.executable) return context.skip(venv.reason);
        const adapter = await startServer();
        const file = path.join(dir, server.file);
        const breakpoints = [line(server.file, "handler"), line(server.file, "lookup")];
        const tree = new SessionTree(adapter.port, { [file]: breakpoints });
        try {
          const port = await freePort();
          await tree.root.start(tree.port);
          await tree.root.launchWith(
            { ...server.launch(port), cwd: dir, python: venv.executable, console: "internalConsole" },
            server.child ? {} : { [path.join(fixture, server.file)]: breakpoints },
            { supportsStartDebuggingRequest: true },
          );
          const session = server.child ? await tree.nextChild(60000) : tree.root;
          const response = getWhenServing(port, "/items/21");
          response.catch(() => undefined);
          for (const at of ["handler", "lookup"] as const) {
            const threadId = await checkStop(tree, session, server, python.version, at);
            await session.continueRequest({ threadId });
          }
          const { status, body } = await response;
          assert.equal(status, 200);
          assert.deepEqual(JSON.parse(body), { item: 21, double: 42 });
          if (server.child) assert.equal(tree.root.events.filter((e) => e.event === "stopped").length, 0);
          if (tree.failures.length > 0) throw tree.failures[0];
        } finally {
          await tree.stop();
          adapter.stop();
        }
      });
    }
  });
}
