// Child processes that run on their parent's configuration, end to end: once the first
// child's client gives it its parent's breakpoints, later children run at once, without
// the debugger while nothing asks for it (dormant), and have a session of their own only
// when they stop, print or run past 100 ms (docs/architecture.md, *Child processes*).
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { at, dir, file, launchRoot, line, treeFor } from "./children-support";
import { pythons, startServer, waitUntil } from "./support";

for (const python of pythons()) {
  describe(`Python ${python.version}: children that run on their parent's configuration`, () => {
    let server: Awaited<ReturnType<typeof startServer>>;
    before(async () => (server = await startServer()));
    after(() => server.stop());

    test("children configured to stop at nothing run without the debugger until their sessions ask for more (a pause, a breakpoint, a hot reload and Restart Frame; `threads` is answered without it)", async () => {
      // The first child is configured by its client's session; the engine then trusts
      // the client to give children their parent's breakpoints, and the second runs on
      // what it inherits. Neither loads the debugger before something needs it. Copies of
      // the fixtures: the test edits the child's source.
      const copies = mkdtempSync(path.join(os.tmpdir(), "dapper-dormant-"));
      for (const name of ["dormant_parent.py", "dormant_child.py"]) copyFileSync(file(name), path.join(copies, name));
      const child_py = path.join(copies, "dormant_child.py");
      const reached = line("dormant_child.py", "reached");
      const tree = treeFor(server.port, [], false);
      try {
        await tree.root.start(tree.port);
        await tree.root.launchWith(
          { program: path.join(copies, "dormant_parent.py"), args: ["first", "second"], cwd: copies, python: python.executable, console: "internalConsole" },
          {},
          { supportsStartDebuggingRequest: true, supportsDapperEvents: true },
        );
        for (const name of ["first", "second"]) {
          const child = await tree.nextChild();
          await waitUntil(() => tree.root.output("stdout").includes(`${name} debugger at start: False\n`), 10000, `${name}'s first line`);
          if (name === "second") {
            const { threads } = (await child.threadsRequest()).body;
            assert.equal(threads.length, 1, JSON.stringify(threads));
            await child.pauseRequest({ threadId: threads[0].id });
            const paused = await child.nextStop();
            assert.equal(paused.event.body.reason, "pause");
            assert.ok(paused.frames.some((frame) => frame.source?.path === child_py), JSON.stringify(paused.frames));
            await child.continueRequest({ threadId: threads[0].id });
          }
          const set = await child.setBreakpointsRequest({ source: { path: child_py }, breakpoints: [{ line: reached }] });
          assert.ok(set.body.breakpoints[0]?.verified, JSON.stringify(set.body));
          const { event, frames } = await child.nextStop();
          assert.deepEqual([event.body.reason, frames[0].line], ["breakpoint", reached]);
          await child.setBreakpointsRequest({ source: { path: child_py }, breakpoints: [] });
          if (name === "first") {
            // Its code was loaded before the debugger, restartable all the same: the frame
            // restarted after a reload runs the new code.
            writeFileSync(child_py, readFileSync(child_py, "utf8").replace("return 7  # BP:reached", "return 8  # BP:reached"));
            await child.customRequest("dapper/hotReload", { source: { path: child_py } });
          }
          await child.restartFrameRequest({ frameId: frames[0].id });
          const restarted = await child.nextStop();
          assert.deepEqual([restarted.event.body.reason, restarted.frames[0].line], ["restart", reached]);
          await child.evaluateRequest({ expression: "release()", frameId: restarted.frames[0].id, context: "repl" });
          await child.continueRequest({ threadId: event.body.threadId ?? 0 });
          await waitUntil(() => child.ended, 10000, `${name}'s session to end`);
          assert.deepEqual(child.all("exited"), [{ exitCode: 8 }]);
        }
        assert.equal(await tree.root.finished(), 0);
        const stdout = tree.root.output("stdout");
        for (const name of ["first", "second"]) assert.ok(stdout.includes(`${name} debugger later: True\n`), stdout);
        assert.equal(stdout.split("parent saw 8\n").length, 3, stdout);
      } finally {
        await tree.stop();
        rmSync(copies, { recursive: true, force: true });
      }
    });

    test("children that run on their parent's breakpoints and end within a moment with nothing to show have no session; one that runs on, and one that stops, have theirs", async () => {
      // The first child's client gives it its parent's breakpoints (none), so the rest run
      // on their inheritance and the client is asked for a session only for a child that
      // runs past 100 ms or has something to show (the stop at breakpoint()).
      const tree = treeFor(server.port, [], true);
      try {
        await launchRoot(tree, python.executable, "short_children_parent.py", []);
        assert.equal(await tree.root.finished(), 0);
        const announced = tree.root.all("dapper/childProcess").map((body) => Number(body.pid));
        assert.equal(announced.length, 8, JSON.stringify(announced));
        await waitUntil(() => tree.failures.length > 0 || (tree.children.length >= 3 && tree.children.every((c) => c.ended)), 20000, "the child sessions to end");
        if (tree.failures.length > 0) throw tree.failures[0];
        const sessionOf = (pid: number) => tree.children.find((child) => child.configuration?.processId === pid);
        const [first, ...rest] = announced;
        const shorts = rest.slice(0, 5);
        const [long, stopping] = rest.slice(5);
        assert.ok(sessionOf(first) && sessionOf(long) && sessionOf(stopping), JSON.stringify(tree.children.map((c) => c.configuration?.processId)));
        assert.deepEqual(sessionOf(stopping)?.stops, [at("builtin_breakpoint.py", "builtin")]);
        assert.deepEqual(sessionOf(stopping)?.all("exited"), [{ exitCode: 5 }]);
        assert.deepEqual(sessionOf(long)?.all("exited"), [{ exitCode: 0 }]);
        // A machine under load (the suites run three files at once on two cores) may keep
        // a short child past 100 ms, which then has a session; one at least ends within it.
        const shortSessions = shorts.filter((pid) => sessionOf(pid) !== undefined).length;
        assert.ok(shortSessions < shorts.length, `all ${shorts.length} short children had a session`);
        const stdout = tree.root.output("stdout");
        for (const text of ["first ran\n", "long ran\n", "child answer 42\n", "parent saw 5\n", ...[0, 1, 2, 3, 4].map((index) => `short ${index} ran\n`)]) {
          assert.ok(stdout.includes(text), `${JSON.stringify(stdout)} lacks ${JSON.stringify(text)}`);
        }
        assert.equal(stdout.split("parent saw 0\n").length, 8, stdout);
        assert.deepEqual(tree.root.all("dapper/childProcessCandidate"), []);
      } finally {
        await tree.stop();
      }
    });

    test("the first child of a later tree runs on its parent's breakpoints at once when a client of the same kind gave an earlier tree's first child its parent's", async () => {
      // Both roots' clients say the same clientID. The first tree's first child waits for
      // its session, whose client gives it its parent's breakpoints (none). The second
      // tree's client answers startDebugging but never attaches a session: a first child
      // that waited for its session would wait for the engine's 30 s attach time-out, so
      // the second program ends within finished()'s 20 s only if its first child ran on
      // its parent's breakpoints without one.
      const launch = { program: file("quick_children_parent.py"), args: [], cwd: dir, python: python.executable, console: "internalConsole" };
      const kind = { supportsStartDebuggingRequest: true, supportsDapperEvents: true, clientID: `e2e-same-kind-${python.version}` };
      const earlier = treeFor(server.port, [], true);
      const later = treeFor(server.port, [], true);
      later.attachChildren = false;
      try {
        await earlier.root.start(earlier.port);
        await earlier.root.launchWith(launch, {}, kind);
        assert.equal(await earlier.root.finished(), 0);
        const [firstPid] = earlier.root.all("dapper/childProcess").map((body) => Number(body.pid));
        await waitUntil(() => earlier.failures.length > 0 || earlier.children.some((child) => child.configuration?.processId === firstPid), 10000, "the first child's session");
        if (earlier.failures.length > 0) throw earlier.failures[0];

        await later.root.start(later.port);
        await later.root.launchWith(launch, {}, kind);
        assert.equal(await later.root.finished(), 0);
        const stdout = later.root.output("stdout");
        for (const index of [0, 1, 2]) assert.ok(stdout.includes(`quick ${index} ran\n`), stdout);
        assert.equal(stdout.split("parent saw 0\n").length, 4, stdout);
        assert.equal(later.root.all("dapper/childProcess").length, 3);
        assert.deepEqual(later.root.all("dapper/childProcessCandidate"), []);
      } finally {
        await later.stop();
        await earlier.stop();
      }
    });

    test("a child that runs without the debugger in a terminal: its session hears each line it prints once, before it wakes and after (redirectOutput)", async () => {
      const tree = treeFor(server.port, [], false);
      const reached = line("dormant_child.py", "reached");
      try {
        await tree.root.start(tree.port);
        await tree.root.launchWith(
          { program: file("dormant_parent.py"), args: ["first"], cwd: dir, python: python.executable, console: "integratedTerminal", redirectOutput: true },
          {},
          { supportsStartDebuggingRequest: true, supportsDapperEvents: true, supportsRunInTerminalRequest: true },
        );
        const child = await tree.nextChild();
        await waitUntil(() => tree.root.terminalOutput.includes("first debugger at start: False\n"), 10000, "the child's first line");
        await child.setBreakpointsRequest({ source: { path: file("dormant_child.py") }, breakpoints: [{ line: reached }] });
        const { event, frames } = await child.nextStop();
        await child.evaluateRequest({ expression: "release()", frameId: frames[0].id, context: "repl" });
        await child.setBreakpointsRequest({ source: { path: file("dormant_child.py") }, breakpoints: [] });
        await child.continueRequest({ threadId: event.body.threadId ?? 0 });
        await waitUntil(() => child.ended, 10000, "the child session to end");
        assert.equal(await tree.root.finished(), 0);
        assert.equal(child.output("stdout"), "first debugger at start: False\nfirst debugger later: True\n");
        assert.ok(tree.root.terminalOutput.includes("first debugger later: True\nparent saw 7\n"), tree.root.terminalOutput);
      } finally {
        await tree.stop();
      }
    });

    test("an uncaught exception stops a child that runs without the debugger, where it was raised (uncaught filter)", async () => {
      const tree = treeFor(server.port, [], false);
      tree.exceptionFilters = ["uncaught"];
      try {
        await launchRoot(tree, python.executable, "dormant_parent.py", ["raise"]);
        const child = await tree.nextChild();
        const { event, frames } = await child.nextStop();
        assert.deepEqual([event.body.reason, frames[0].line], ["exception", line("dormant_child.py", "raise")]);
        await child.continueRequest({ threadId: event.body.threadId ?? 0 });
        assert.equal(await tree.root.finished(), 0);
        await waitUntil(() => child.ended, 10000, "the child session to end");
        assert.deepEqual(child.all("exited"), [{ exitCode: 1 }]);
        const stdout = tree.root.output("stdout");
        assert.ok(stdout.includes("only debugger at start: False\n") && stdout.includes("parent saw 1\n"), stdout);
        assert.ok(tree.root.output("stderr").includes("ValueError: only raised"));
      } finally {
        await tree.stop();
      }
    });
  });
}
