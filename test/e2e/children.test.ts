// Child processes, end to end: each Python child of the debuggee becomes its own session
// (the client answers `startDebugging` as VS Code does), stops at its breakpoints, and
// the tree is torn down with its root. One helper runs a scenario; the cases are a table.
import assert from "node:assert/strict";
import os from "node:os";
import { after, before, describe, test } from "node:test";
import { at, dir, file, launchRoot, line, type SessionTree, treeFor } from "./children-support";
import { isAlive, pythons, startServer, waitUntil } from "./support";


interface Scenario {
  name: string;
  program: string;
  args?: string[];
  /** Breakpoints every child session sets. */
  breakpoints: Array<[file: string, marker: string]>;
  /** How many child sessions start (grandchildren included), or the range when racy. */
  sessions: number | [min: number, max: number];
  /** Where the child sessions stop, over all of them (order does not matter). */
  stops: string[] | "any";
  /** The exit codes the child sessions report (order does not matter); unchecked if absent. */
  childExitCodes?: number[];
  /** Text the root's output must contain (the children write to the same pipes). */
  stdout: string[];
  exitCode: number;
  /** A child may die while its session starts (its attach then fails, as it should). */
  attachMayFail?: boolean;
  /** The `name` of each dapper/childProcess announcement of the root. */
  childNames?: RegExp[];
  /** Every line of the root's stdout matches this (no process cut another's line). */
  wholeLines?: RegExp;
  /** The launch configuration's `env`. */
  env?: Record<string, string | null>;
}

const scenarios: Scenario[] = [
  {
    name: "subprocess.run of a script: the child stops at its breakpoint and reports its exit code",
    program: "popen_parent.py",
    breakpoints: [["worker.py", "worker"]],
    sessions: 1,
    stops: [at("worker.py", "worker")],
    childExitCodes: [3],
    stdout: ["worker 21 -> 42\n", "parent saw 3\n"],
    exitCode: 0,
    childNames: [/^worker\.py$/],
  },
  {
    name: "a multiprocessing spawn child",
    program: "mp_parent.py",
    args: ["spawn"],
    breakpoints: [["tasks.py", "task"]],
    sessions: 1,
    stops: [at("tasks.py", "task")],
    childExitCodes: [4],
    stdout: ["task 6 -> 36", "parent saw 4\n"],
    exitCode: 0,
    childNames: [/^SpawnProcess-1$/],
  },
  {
    name: "a multiprocessing fork child",
    program: "mp_parent.py",
    args: ["fork"],
    breakpoints: [["tasks.py", "task"]],
    sessions: 1,
    stops: [at("tasks.py", "task")],
    childExitCodes: [4],
    stdout: ["task 6 -> 36", "parent saw 4\n"],
    exitCode: 0,
    childNames: [/^ForkProcess-1$/],
  },
  {
    name: "an os.fork child that ends with os._exit",
    program: "fork_parent.py",
    breakpoints: [["tasks.py", "task"]],
    sessions: 1,
    stops: [at("tasks.py", "task")],
    childExitCodes: [7],
    stdout: ["fork child got 25\n", "parent saw 7\n"],
    exitCode: 0,
    childNames: [/fork_parent\.py \(fork\)/],
  },
  {
    name: "Pool workers (fork)",
    program: "pool_parent.py",
    args: ["fork"],
    breakpoints: [["tasks.py", "task"]],
    sessions: 2,
    stops: [at("tasks.py", "task"), at("tasks.py", "task"), at("tasks.py", "task")],
    childExitCodes: [0, 0],
    stdout: ["pool results [1, 4, 9]\n"],
    exitCode: 0,
  },
  {
    name: "Pool workers (spawn)",
    program: "pool_parent.py",
    args: ["spawn"],
    breakpoints: [["tasks.py", "task"]],
    sessions: 2,
    stops: [at("tasks.py", "task"), at("tasks.py", "task"), at("tasks.py", "task")],
    childExitCodes: [0, 0],
    stdout: ["pool results [1, 4, 9]\n"],
    exitCode: 0,
  },
  {
    name: "a multiprocessing forkserver child (the server is a session too; the child is its fork)",
    program: "mp_parent.py",
    args: ["forkserver"],
    breakpoints: [["tasks.py", "task"]],
    sessions: 2,
    stops: [at("tasks.py", "task")],
    stdout: ["task 6 -> 36", "parent saw 4\n"],
    exitCode: 0,
    childNames: [/^multiprocessing forkserver$/],
  },
  ...["fork", "spawn"].map(
    (method): Scenario => ({
      name: `a ProcessPoolExecutor worker (${method})`,
      program: "executor_parent.py",
      args: [method],
      breakpoints: [["tasks.py", "task"]],
      sessions: 1,
      stops: [at("tasks.py", "task"), at("tasks.py", "task")],
      stdout: ["executor results [4, 9]\n"],
      exitCode: 0,
    }),
  ),
  ...["fork", "spawn"].map(
    (method): Scenario => ({
      name: `a Pool (${method}) whose exit terminates workers, one maybe still starting`,
      program: "pool_terminate_parent.py",
      args: [method],
      breakpoints: [["tasks.py", "task"]],
      sessions: [1, 2],
      attachMayFail: true,
      stops: "any",
      stdout: ["pool results [1, 4, 9]\n"],
      exitCode: 0,
    }),
  ),
  ...[0, 0.2, 0.4, 0.8].map(
    (delay): Scenario => ({
      name: `a child killed ${delay} s after it started: its session ends, the parent goes on`,
      program: "kill_parent.py",
      args: [String(delay)],
      breakpoints: [],
      // Whether the child said hello before it was killed depends on the machine's load.
      sessions: [0, 1],
      attachMayFail: true,
      stops: [],
      stdout: ["parent saw -9\n"],
      exitCode: 0,
    }),
  ),
  {
    name: "a grandchild: a child's own child is a session too",
    program: "grand_parent.py",
    breakpoints: [["worker.py", "worker"]],
    sessions: 2,
    stops: [at("worker.py", "worker")],
    childExitCodes: [0, 3],
    stdout: ["worker 21 -> 42\n", "parent saw 3\n", "grandparent saw 0\n"],
    exitCode: 0,
    childNames: [/^popen_parent\.py$/],
  },
  ...(
    [
      ["module", "-m module", 2],
      ["code", "-c code", 2],
      ["shell", "shell=True", 2],
      ["check_output", "check_output with python3 from PATH", 0],
      ["spawnv", "os.spawnv P_WAIT", 2],
      ["posix_spawn", "os.posix_spawn", 2],
      ["system", "os.system", 2],
      ["isolated", "-I (isolated mode, which ignores PYTHONPATH)", 2],
      ["shebang", "an executable script whose #! line runs Python", 2],
    ] as const
  ).map(([form, label, code]): Scenario => ({
    name: `a child started with ${label}`,
    program: "forms_parent.py",
    args: [form],
    breakpoints: [["worker.py", "worker"]],
    sessions: 1,
    stops: [at("worker.py", "worker")],
    childExitCodes: [code],
    stdout: ["parent saw 2\n"],
    exitCode: 0,
  })),
  {
    name: "a program that restarts itself from its own command line (a reloader): the restart is a child session",
    program: "reloader_parent.py",
    args: ["41"],
    breakpoints: [["reloader_parent.py", "serve"]],
    sessions: 1,
    stops: [at("reloader_parent.py", "serve")],
    childExitCodes: [3],
    stdout: ["serving 42\n", "reloader saw 3\n"],
    exitCode: 0,
    childNames: [/^reloader_parent\.py$/],
  },
  {
    name: "breakpoint() in a child stops its session there",
    program: "builtin_breakpoint_parent.py",
    breakpoints: [],
    sessions: 1,
    stops: [at("builtin_breakpoint.py", "builtin")],
    childExitCodes: [5],
    stdout: ["child answer 42\n", "parent saw 5\n"],
    exitCode: 0,
  },
  {
    name: "a parent and its child writing lines in pieces on the captured pipe: every line arrives whole",
    program: "lines_parent.py",
    args: [os.tmpdir()],
    breakpoints: [],
    sessions: 1,
    stops: [],
    childExitCodes: [0],
    stdout: ["parent 2999 end\n", "child 2999 end\n", "parent saw 0\n"],
    exitCode: 0,
    wholeLines: /^((parent|child) \d+ end|parent saw 0)$/,
    // Python's own buffering, whatever the machine running the tests sets.
    env: { PYTHONUNBUFFERED: null },
  },
  {
    name: "a child session whose process execs Python: the new image is the child's child",
    program: "exec_child_parent.py",
    breakpoints: [["worker.py", "worker"]],
    sessions: 2,
    stops: [at("worker.py", "worker")],
    stdout: ["worker 5 -> 10\n", "grandparent saw 2\n"],
    exitCode: 0,
  },
  {
    name: "os.execv of a Python program: the new image is a child session, with the same pid",
    program: "forms_parent.py",
    args: ["execv"],
    breakpoints: [["worker.py", "worker"]],
    sessions: 1,
    stops: [at("worker.py", "worker")],
    childExitCodes: [2],
    stdout: ["worker 5 -> 10\n"],
    exitCode: 2,
    childNames: [/^worker\.py$/],
  },
];

const sorted = (values: unknown[]) => [...values].map(String).sort();

/** Runs one scenario: child sessions continue every stop; then everything must end. */
async function runScenario(tree: SessionTree, python: string, scenario: Scenario): Promise<void> {
  await launchRoot(tree, python, scenario.program, scenario.args ?? [], scenario.env ? { env: scenario.env } : {});
  assert.equal(await tree.root.finished(), scenario.exitCode);
  const [least, most] = typeof scenario.sessions === "number" ? [scenario.sessions, scenario.sessions] : scenario.sessions;
  await waitUntil(() => tree.failures.length > 0 || (tree.children.length >= least && tree.children.every((c) => c.ended)), 20000, "every child session to end").catch((error: Error) => {
    throw new Error(`${error.message}: ${JSON.stringify(tree.children.map((c) => ({ ready: c.ready, events: c.events.map((e) => e.event) })))}`);
  });
  if (tree.failures.length > 0) throw tree.failures[0];
  const failed = tree.children.find((c) => c.attachError !== undefined);
  if (failed && !scenario.attachMayFail) throw failed.attachError;
  assert.ok(tree.children.length >= least && tree.children.length <= most, `${tree.children.length} child sessions`);
  if (scenario.stops !== "any") assert.deepEqual(sorted(tree.children.flatMap((c) => c.stops)), sorted(scenario.stops));
  // A breakpoint that waited for its file's code was verified before it stopped a child.
  for (const child of tree.children) child.assertVerifiedLater({ hitOnly: true, eventOptional: true });
  if (scenario.childExitCodes) {
    const codes = tree.children.flatMap((c) => c.all("exited").map((body) => body.exitCode));
    assert.deepEqual(sorted(codes), sorted(scenario.childExitCodes));
  }
  const stdout = tree.root.output("stdout");
  for (const text of scenario.stdout) assert.ok(stdout.includes(text), `stdout ${JSON.stringify(stdout)} lacks ${JSON.stringify(text)}`);
  const cut = stdout.split("\n").filter((text) => text !== "" && !(scenario.wholeLines?.test(text) ?? true));
  assert.deepEqual(cut.slice(0, 5), [], "lines cut by another process's output");
  const names = tree.root.all("dapper/childProcess").map((body) => String(body.name));
  for (const [index, pattern] of (scenario.childNames ?? []).entries()) assert.match(names[index] ?? "", pattern, JSON.stringify(names));
  // A child killed while its session is still being set up is reported as a candidate with
  // one of these reasons; scenarios where that race is allowed (attachMayFail) accept it.
  const raceReasons = /closed before its session started|did not connect|no debug session attached/;
  const candidates = tree.root
    .all("dapper/childProcessCandidate")
    .filter((body) => !(scenario.attachMayFail && raceReasons.test(String(body.reason))));
  assert.equal(candidates.length, 0, `no candidate expected: ${JSON.stringify(candidates)}`);
}

for (const python of pythons()) {
  describe(`Python ${python.version}: child processes`, () => {
    let server: Awaited<ReturnType<typeof startServer>>;
    before(async () => (server = await startServer()));
    after(() => server.stop());

    for (const [mode, sessions] of [["popen", 1], ["grand", 2], ["spawn", 1], ["fork", 1], ["os.fork", 1]] as const) {
      test(`stopping the root ends every child session first and leaves no process of the tree (${mode})`, async () => {
        const tree = treeFor(server.port, [["tasks.py", "sleep"]], false);
        try {
          await launchRoot(tree, python.executable, "tree_sleeper.py", [mode]);
          const rootPid = Number((await tree.root.next("process")).body.systemProcessId);
          for (let index = 0; index < sessions; index++) await tree.nextChild();
          const leaf = tree.children[sessions - 1];
          const { frames } = await leaf.nextStop();
          assert.equal(frames[0].line, line("tasks.py", "sleep"));
          const pids = [rootPid, ...tree.sessions.flatMap((s) => s.all("dapper/childProcess").map((body) => Number(body.pid)))];
          assert.equal(pids.length, sessions + 1);
          assert.ok(pids.every(isAlive), "every process of the tree runs");
          await tree.root.disconnectRequest({});
          assert.ok(tree.children.every((c) => c.ended), "every child session ended before the root's disconnect was answered");
          await waitUntil(() => !pids.some(isAlive), 5000, `the processes ${pids.join(", ")} to be gone`);
        } finally {
          await tree.stop();
        }
      });
    }

    test("a request sent right behind `continue` (as dape sends `variables`): the child's answers and exit code still arrive", async () => {
      // The child resumes and exits while the request behind `continue` is on its way to
      // it. Its last messages (the answers, the exit code) must reach the engine whatever
      // is left unread on its connection.
      for (let round = 0; round < 5; round++) {
        const tree = treeFor(server.port, [["worker.py", "worker"]], false);
        try {
          await launchRoot(tree, python.executable, "popen_parent.py", []);
          const child = await tree.nextChild();
          const { event, frames } = await child.nextStop();
          const threadId = event.body.threadId ?? 0;
          const [frame] = frames;
          const [scope] = (await child.scopesRequest({ frameId: frame.id })).body.scopes;
          const continued = child.continueRequest({ threadId });
          const behind = Promise.allSettled(
            Array.from({ length: 20 }, () => child.variablesRequest({ variablesReference: scope.variablesReference })),
          );
          await continued;
          await behind;
          assert.equal(await tree.root.finished(), 0);
          await waitUntil(() => child.ended, 5000, "the child session to end");
          assert.deepEqual(child.all("exited"), [{ exitCode: 3 }], `round ${round}: the child's exit code`);
        } finally {
          await tree.stop();
        }
      }
    });

    test("a child session that disconnects detaches: the child runs on to its end untraced", async () => {
      const tree = treeFor(server.port, [["worker.py", "worker"]], false);
      try {
        await launchRoot(tree, python.executable, "popen_parent.py", []);
        const child = await tree.nextChild();
        await child.nextStop();
        await child.disconnectRequest({});
        assert.equal(await tree.root.finished(), 0);
        assert.ok(tree.root.output("stdout").includes("worker 21 -> 42\nparent saw 3\n"));
        assert.equal(child.all("stopped").length, 1);
      } finally {
        await tree.stop();
      }
    });

    test("a client that cannot start sessions: children run undebugged and are reported", async () => {
      const tree = treeFor(server.port, [["worker.py", "worker"]], true);
      try {
        await tree.root.start(tree.port);
        await tree.root.launchWith(
          { program: file("popen_parent.py"), cwd: dir, python: python.executable, console: "internalConsole" },
          {},
          { supportsDapperEvents: true },
        );
        assert.equal(await tree.root.finished(), 0);
        assert.equal(tree.children.length, 0);
        assert.ok(tree.root.output("stdout").includes("worker 21 -> 42\nparent saw 3\n"));
        const [candidate] = tree.root.all("dapper/childProcessCandidate");
        assert.equal(candidate?.reason, "the client does not support the startDebugging request");
        assert.equal(candidate?.name, "worker.py");
      } finally {
        await tree.stop();
      }
    });

    for (const [program, sessions, codes] of [["popen_parent.py", 1, [3]], ["grand_parent.py", 2, [0, 3]]] as const) {
      test(`a client that runs the adapter over stdio: child sessions connect to the adapter (${program})`, async () => {
        const tree = treeFor(undefined, [["worker.py", "worker"]], true);
        try {
          await tree.root.start();
          await tree.root.launchWith(
            { program: file(program), cwd: dir, python: python.executable, console: "internalConsole" },
            {},
            { supportsStartDebuggingRequest: true, supportsDapperEvents: true },
          );
          assert.equal(await tree.root.finished(), 0);
          await waitUntil(() => tree.children.length >= sessions && tree.children.every((c) => c.ended), 20000, "every child session to end");
          assert.ok(tree.children.every((c) => typeof (c.configuration?.connect as { port?: unknown } | undefined)?.port === "number"));
          assert.deepEqual(tree.children.flatMap((c) => c.stops), [at("worker.py", "worker")]);
          assert.deepEqual(sorted(tree.children.flatMap((c) => c.all("exited").map((body) => body.exitCode))), sorted([...codes]));
        } finally {
          await tree.stop();
        }
      });
    }

    test("subprocessAutoAttach false: children run undebugged and nothing is announced", async () => {
      const tree = treeFor(server.port, [["worker.py", "worker"]], true);
      try {
        await launchRoot(tree, python.executable, "popen_parent.py", [], { subprocessAutoAttach: false });
        assert.equal(await tree.root.finished(), 0);
        assert.equal(tree.children.length, 0);
        assert.ok(tree.root.output("stdout").includes("worker 21 -> 42\nparent saw 3\n"));
        assert.deepEqual(tree.root.all("dapper/childProcess"), []);
      } finally {
        await tree.stop();
      }
    });

    test("children that cannot be attached run as written and are reported with the reason", async () => {
      const tree = treeFor(server.port, [["worker.py", "worker"]], true);
      try {
        await launchRoot(tree, python.executable, "candidates_parent.py", []);
        assert.equal(await tree.root.finished(), 0);
        assert.equal(tree.children.length, 0);
        assert.ok(tree.root.output("stdout").includes("not python\nworker 8 -> 16\nparent done\n"));
        const candidates = tree.root.all("dapper/childProcessCandidate");
        assert.deepEqual(candidates.map((c) => [c.name, c.isPython, c.reason]), [
          ["echo", false, "not a Python program"],
          ["run_worker.sh", false, "a shell script (run by sh): the Python programs it starts are not attached"],
          ["true", false, "not a Python program"],
        ]);
        // os.system gives no pid: its candidate has none.
        assert.deepEqual(candidates.map((c) => c.pid === null), [false, false, true]);
        for (const candidate of candidates) assert.equal(typeof candidate.parentSessionId, "string");
      } finally {
        await tree.stop();
      }
    });

    for (const scenario of scenarios) {
      test(scenario.name, async () => {
        const tree = treeFor(server.port, scenario.breakpoints, true);
        try {
          await runScenario(tree, python.executable, scenario);
        } finally {
          await tree.stop();
        }
      });
    }
  });
}

