// pathMappings end to end: the program runs from a copy of its sources in another folder
// (as in a container or on a remote host), the client knows only the original folder.
// Breakpoints set by the original paths stop, and every path the client gets back
// (stack frames, loaded sources, breakpoint events, exception tracebacks, the process
// name, hot reload's answer) is the original one.
import type { DebugProtocol } from "@vscode/debugprotocol";
import assert from "node:assert/strict";
import { appendFileSync, cpSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { ensureGone, startListening, type ListeningProgram } from "./attach-support";
import { fixtures, marker, pythons, RecordingClient } from "./support";

const ORIGINAL = path.join(fixtures, "remote");
const greetLine = marker("remote/greeting.py", "greet");
const raiseLine = marker("remote/app.py", "raise");

/** Every path in a JSON value that lies under `root`. */
function pathsUnder(value: unknown, root: string): string[] {
  return JSON.stringify(value)
    .split('"')
    .filter((text) => text.startsWith(root));
}

for (const python of pythons()) {
  describe(`pathMappings on Python ${python.version}`, () => {
    test("a program running from a copy of its sources is debugged by the original paths", async () => {
      let program: ListeningProgram | undefined;
      const client = new RecordingClient();
      const copyParent = realpathSync(mkdtempSync(path.join(os.tmpdir(), "dapper-remote-")));
      const copy = path.join(copyParent, "app");
      try {
        cpSync(ORIGINAL, copy, { recursive: true });
        // The copy differs from the original, so that a `source` request answered from the
        // original file (an unmapped path) would show.
        appendFileSync(path.join(copy, "app.py"), "# the copy\n");
        program = await startListening(python, ["--wait-for-client"], [path.join(copy, "app.py")]);
        await client.start();
        await client.initializeRequest({ adapterID: "dapper", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
        const initialized = client.next("initialized");
        const attached = client.attachRequest({
          type: "dapper",
          request: "attach",
          name: "attach with pathMappings",
          connect: { host: program.host, port: program.port },
          // A trailing separator, and a mapping that matches nothing: neither matters.
          pathMappings: [
            { localRoot: "/nowhere/else", remoteRoot: "/elsewhere" },
            { localRoot: `${ORIGINAL}${path.sep}`, remoteRoot: copy },
          ],
        } as never);
        attached.catch(() => undefined);
        await Promise.race([initialized, attached]);
        await initialized;
        const processEvent = await client.next("process");
        assert.equal(processEvent.body.name, path.join(ORIGINAL, "app.py"));

        const greeting = path.join(ORIGINAL, "greeting.py");
        const app = path.join(ORIGINAL, "app.py");
        const set = await client.setBreakpointsRequest({ source: { path: greeting }, breakpoints: [{ line: greetLine }] });
        assert.equal(set.body.breakpoints.length, 1);
        assert.deepEqual(pathsUnder(set.body, copyParent), [], JSON.stringify(set.body));
        await client.setExceptionBreakpointsRequest({ filters: ["uncaught"] });
        await client.configurationDoneRequest();
        await attached;

        // The breakpoint in the module imported later stops, reported by the original path.
        const stopped = await client.next("stopped");
        assert.equal(stopped.body.reason, "breakpoint");
        const threadId = Number(stopped.body.threadId);
        const stack = await client.stackTraceRequest({ threadId });
        const [top, caller] = stack.body.stackFrames;
        assert.equal(top.source?.path, greeting);
        assert.equal(top.line, greetLine);
        assert.equal(caller.source?.path, app);
        assert.deepEqual(pathsUnder(stack.body, copyParent), []);
        for (const event of client.events.filter((e) => e.event === "breakpoint")) {
          assert.deepEqual(pathsUnder(event.body, copyParent), [], JSON.stringify(event.body));
        }

        const loaded = (await client.customRequest("loadedSources", {})) as DebugProtocol.LoadedSourcesResponse;
        const loadedPaths = loaded.body.sources.map((source) => source.path);
        assert.ok(loadedPaths.includes(app), JSON.stringify(loadedPaths));
        assert.ok(loadedPaths.includes(greeting), JSON.stringify(loadedPaths));
        assert.deepEqual(pathsUnder(loaded.body, copyParent), []);

        // The source is read where the program runs: from the copy.
        const source = await client.sourceRequest({ source: { path: app }, sourceReference: 0 });
        assert.match(source.body.content, /# the copy\n$/);

        // Hot reload names the file by its original path and reloads the copy.
        const reloaded = (await client.customRequest("dapper/hotReload", { source: { path: greeting } })) as DebugProtocol.Response;
        assert.equal((reloaded.body as { path: string }).path, greeting);

        // The uncaught exception stops with the original paths, its traceback too.
        await client.continueRequest({ threadId });
        const thrown = await client.next("stopped");
        assert.equal(thrown.body.reason, "exception");
        const thrownStack = await client.stackTraceRequest({ threadId: Number(thrown.body.threadId) });
        assert.equal(thrownStack.body.stackFrames[0].source?.path, app);
        assert.equal(thrownStack.body.stackFrames[0].line, raiseLine);
        const info = await client.exceptionInfoRequest({ threadId: Number(thrown.body.threadId) });
        const traceback = info.body.details?.stackTrace ?? "";
        assert.ok(traceback.includes(`File "${app}", line ${raiseLine}`), traceback);
        assert.ok(!traceback.includes(copyParent), traceback);

        await client.continueRequest({ threadId: Number(thrown.body.threadId) });
        await client.next("terminated");
        const { code } = await program.exited;
        assert.equal(code, 1, program.stderr());
      } finally {
        await client.stop();
        ensureGone(program);
        rmSync(copyParent, { recursive: true, force: true });
      }
    });
  });
}
