// pytest with pytest-xdist's workers (`pytest -n 2`), as test suites are run: execnet
// starts each worker as a Python child (`python -c …` over pipes), and each worker is a
// child session that stops at a breakpoint in the code its tests call; the run's result
// is the one it has without the debugger. pytest-xdist comes from PyPI into a venv of its
// own under .cache/e2e-xdist; without the network the test is skipped, saying why.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, test } from "node:test";
import { SessionTree } from "./children-support";
import { fixtures, marker, pythons, startServer, fixtureVenv, waitUntil } from "./support";

const dir = path.join(fixtures, "xdist");
const tests = path.join(dir, "test_squares.py");
const args = ["-q", "-n", "2", "-p", "no:cacheprovider", "test_squares.py"];

for (const python of pythons()) {
  describe(`Python ${python.version}: pytest -n 2 (pytest-xdist)`, () => {
    test("each worker is a child session that stops in the tested code; the run passes as it does plain", async (context) => {
      const venv = fixtureVenv(python, "xdist");
      if (!venv.executable) return context.skip(venv.reason);
      const plain = execFileSync(venv.executable, ["-m", "pytest", ...args], { cwd: dir, encoding: "utf8", timeout: 120000 });
      assert.match(plain, /3 passed/);
      const server = await startServer();
      const line = marker(path.join("xdist", "test_squares.py"), "square");
      const tree = new SessionTree(server.port, { [tests]: [line] }, true);
      try {
        await tree.root.start(tree.port);
        await tree.root.launchWith({ module: "pytest", args, cwd: dir, python: venv.executable, console: "internalConsole" }, {}, { supportsStartDebuggingRequest: true });
        const exited = await tree.root.next("exited", 120000);
        assert.equal(exited.body.exitCode, 0, tree.root.output("stdout") + tree.root.output("stderr"));
        await waitUntil(() => tree.children.every((child) => child.ended) || tree.failures.length > 0, 20000, "every worker's session to end");
        if (tree.failures.length > 0) throw tree.failures[0];
        assert.equal(tree.children.length, 2, "one child session per worker");
        // square() runs twice, in whichever workers got its tests: two stops in all.
        assert.deepEqual(tree.children.flatMap((child) => child.stops), [`test_squares.py:${line}`, `test_squares.py:${line}`]);
        assert.equal(tree.root.events.filter((e) => e.event === "stopped").length, 0);
        assert.match(tree.root.output("stdout"), /3 passed/);
      } finally {
        await tree.stop();
        server.stop();
      }
    });
  });
}
