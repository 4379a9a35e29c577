// torch.compile under the debugger: TorchDynamo reads the bytecode of every function it
// compiles or inlines, a breakpoint's probe included, and with fullgraph=True fails on
// anything it cannot put in its graph. With breakpoints in a compiled function and in a
// compiled module's forward, the program gives its plain output, and the one stop is
// where the function runs as Python (called without torch.compile), as under debugpy.
// torch comes from PyPI into .cache/e2e-torch, for one Python: its wheel and the CUDA
// libraries it needs to import are about 5.6 GB installed, two to three minutes on this
// machine (skipped, saying why, without the network).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, test } from "node:test";
import { SessionTree } from "./children-support";
import { fixtures, marker, pythons, startServer, venvWith, waitUntil } from "./support";

const dir = path.join(fixtures, "torch");
const program = path.join(dir, "program.py");
// One Python is enough for what torch does with bytecode; 3.13 has torch's wheels.
const python = pythons().find((candidate) => candidate.version === "3.13");

describe("torch.compile (TorchDynamo)", () => {
  // Its own time limit: the first run installs torch.
  test("breakpoints in compiled code leave the program as it is plain; the function stops where it runs as Python", { timeout: 900000 }, async (context) => {
    if (python === undefined) return context.skip("runs with Python 3.13 only, which this run does not have");
    const venv = venvWith(python, "torch", path.join(dir, "requirements.txt"), 600000);
    if (!venv.executable) return context.skip(venv.reason);
    const plain = execFileSync(venv.executable, [program], { cwd: dir, encoding: "utf8", timeout: 300000 });
    assert.match(plain, /^compiled .*\nnet .*\neager .*\n$/);
    const server = await startServer();
    const lines = [marker(path.join("torch", "program.py"), "scaled"), marker(path.join("torch", "program.py"), "forward")];
    const tree = new SessionTree(server.port, {});
    tree.root.continueEveryStop();
    try {
      await tree.root.start(tree.port);
      await tree.root.launchWith({ program, cwd: dir, python: venv.executable, console: "internalConsole" }, { [path.join("torch", "program.py")]: lines });
      const exited = await tree.root.next("exited", 300000);
      assert.equal(exited.body.exitCode, 0, tree.root.output("stdout") + tree.root.output("stderr"));
      await waitUntil(() => tree.root.ended || tree.failures.length > 0, 20000, "the session's end");
      if (tree.failures.length > 0) throw tree.failures[0];
      assert.equal(tree.root.output("stdout"), plain);
      assert.deepEqual(tree.root.stops, [`program.py:${lines[0]}`]);
    } finally {
      await tree.stop();
      server.stop();
    }
  });
});
