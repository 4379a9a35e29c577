// Inspecting a stopped program, end to end on every CPython of the machine: variables of
// every shape, paging, groups, evaluate in every context, setVariable/setExpression,
// completions, stack paging, sources without a file, modules and loadedSources.
// One helper stops the fixture and hands the stop to a case; the cases are a table.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import path from "node:path";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { fixtures, marker, pythons, RecordingClient, waitUntil } from "./support";

const shapes = path.join(fixtures, "inspection", "shapes.py");

interface Stop {
  client: RecordingClient;
  threadId: number;
  frames: DebugProtocol.StackFrame[];
  frameId: number;
  locals: Map<string, DebugProtocol.Variable>;
}

interface Case {
  name: string;
  /** Launch configuration (default: the shapes fixture, stopping at BP:inspect). */
  launch?: Record<string, unknown>;
  markers?: string[];
  check: (stop: Stop) => Promise<void>;
  /** Text the program prints after the stop (proof that changes reached it). */
  stdout?: string;
}

async function evaluate(stop: Stop, expression: string, context: string, extra: Partial<DebugProtocol.EvaluateArguments> = {}) {
  return (await stop.client.evaluateRequest({ expression, context, frameId: stop.frameId, ...extra })).body;
}

async function evaluateFails(stop: Stop, expression: string, context: string): Promise<string> {
  try {
    await stop.client.evaluateRequest({ expression, context, frameId: stop.frameId });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`evaluating ${expression} in ${context} should have failed`);
}

async function children(stop: Stop, reference: number, extra: Partial<DebugProtocol.VariablesArguments> = {}) {
  const response = await stop.client.variablesRequest({ variablesReference: reference, ...extra });
  return new Map(response.body.variables.map((v) => [v.name, v]));
}

function local(stop: Stop, name: string): DebugProtocol.Variable {
  const variable = stop.locals.get(name);
  assert.ok(variable, `no local ${name}; locals: ${[...stop.locals.keys()].join(", ")}`);
  return variable;
}

const cases: Case[] = [
  {
    name: "locals of every shape, with counts, types and failing or hanging reprs",
    check: async (stop) => {
      const expected: Array<[string, string, string, number | undefined, number | undefined]> = [
        // name, value, type, indexedVariables, namedVariables
        ["mapping", "{'one': 1, 2: 'two'}", "dict", 2, undefined],
        ["pair", "(1, 2)", "tuple", 2, undefined],
        ["unique", "{3}", "set", 1, undefined],
        ["frozen", "frozenset({4})", "frozenset", 1, undefined],
        ["queue", "deque([5, 6])", "collections.deque", 2, undefined],
        ["number", "255", "int", undefined, undefined],
        ["fails", "<repr raised ValueError: no repr>", "Fails", undefined, undefined],
        ["hangs", "<repr timed out after 1 s>", "Hangs", undefined, undefined],
      ];
      for (const [name, value, type, indexed, named] of expected) {
        const variable = local(stop, name);
        assert.equal(variable.value, value, name);
        assert.equal(variable.type, type, name);
        assert.equal(variable.indexedVariables, indexed, name);
        assert.equal(variable.namedVariables, named, name);
        assert.equal(variable.evaluateName, name);
      }
      assert.match(local(stop, "long_text").value, /^'y{999}… \(truncated\)$/);
      const point = await children(stop, local(stop, "point").variablesReference);
      assert.deepEqual([point.get("x")?.value, point.get("y")?.evaluateName], ["1", "point.y"]);
      const mapping = await children(stop, local(stop, "mapping").variablesReference);
      assert.deepEqual([...mapping.keys()], ["'one'", "2"]);
      assert.equal(mapping.get("2")?.evaluateName, "mapping[2]");
    },
  },
  {
    name: "a page at the end of a million items opens at once",
    check: async (stop) => {
      const big = local(stop, "big");
      assert.equal(big.indexedVariables, 1_000_000);
      const page = await children(stop, big.variablesReference, { filter: "indexed", start: 999_900, count: 100 });
      assert.equal(page.size, 100);
      assert.equal(page.get("999999")?.value, "999999");
      assert.equal(page.get("999999")?.evaluateName, "big[999999]");
    },
  },
  {
    name: "special, function and class members are grouped",
    check: async (stop) => {
      const record = await children(stop, local(stop, "record").variablesReference);
      assert.deepEqual([...record.keys()], ["name", "tags", "special variables", "function variables", "class variables"]);
      const functions = await children(stop, record.get("function variables")!.variablesReference);
      assert.equal(functions.get("describe")?.evaluateName, "record.describe");
      const classMembers = await children(stop, record.get("class variables")!.variablesReference);
      assert.equal(classMembers.get("kind")?.value, "'record'");
      const special = await children(stop, record.get("special variables")!.variablesReference);
      assert.ok(special.has("__class__") && special.has("__dict__"));
      const globalScope = (await stop.client.scopesRequest({ frameId: stop.frameId })).body.scopes[1];
      const globals = await children(stop, globalScope.variablesReference);
      const classes = await children(stop, globals.get("class variables")!.variablesReference);
      assert.ok(classes.has("Record") && classes.has("Point"));
    },
  },
  {
    name: "every child's evaluateName evaluates to the child",
    check: async (stop) => {
      for (const name of ["mapping", "pair", "unique", "queue", "point", "record"]) {
        const items = await children(stop, local(stop, name).variablesReference);
        for (const child of items.values()) {
          if (child.presentationHint?.kind === "virtual") continue;
          assert.ok(child.evaluateName, `${name} → ${child.name} has no evaluateName`);
          const body = await evaluate(stop, child.evaluateName, "watch");
          assert.equal(body.result, child.value, child.evaluateName);
        }
      }
    },
  },
  {
    name: "hex formatting",
    check: async (stop) => {
      const scope = (await stop.client.scopesRequest({ frameId: stop.frameId })).body.scopes[0];
      const hex = await children(stop, scope.variablesReference, { format: { hex: true } });
      assert.equal(hex.get("number")?.value, "0xff");
      assert.equal((await evaluate(stop, "[number, 16]", "watch", { format: { hex: true } })).result, "[0xff, 0x10]");
    },
  },
  {
    name: "evaluate in the repl, watch, hover and clipboard contexts",
    check: async (stop) => {
      assert.equal((await evaluate(stop, "number + 1", "watch")).result, "256");
      assert.equal((await evaluate(stop, "total = 0\nfor i in range(4):\n    total += i\ntotal", "repl")).result, "6");
      assert.equal((await evaluate(stop, "total * 2", "repl")).result, "12");
      assert.equal((await evaluate(stop, "mapping['one']", "hover")).result, "1");
      assert.match(await evaluateFails(stop, "record.describe()", "hover"), /hover does not call functions/);
      assert.match(await evaluateFails(stop, "missing_name", "watch"), /NameError: name 'missing_name' is not defined/);
      assert.equal((await evaluate(stop, "long_text", "clipboard")).result, `'${"y".repeat(5000)}'`);
      assert.equal((await evaluate(stop, "local_data.value", "watch")).result, "'main'");
      // As at Python's prompt, the None a call returns is not echoed after its output.
      const repl = await evaluate(stop, "print('from the console')", "repl");
      assert.equal(repl.result, "");
      assert.equal((await evaluate(stop, "import os", "repl")).result, "");
      await waitUntil(() => stop.client.output("stdout").includes("from the console\n"), 5000, "the console's print");
    },
  },
  {
    name: "setVariable and setExpression change the running program",
    check: async (stop) => {
      const scope = (await stop.client.scopesRequest({ frameId: stop.frameId })).body.scopes[0];
      const set = await stop.client.setVariableRequest({ variablesReference: scope.variablesReference, name: "number", value: "number + 1" });
      assert.equal(set.body.value, "256");
      const record = local(stop, "record");
      await stop.client.setVariableRequest({ variablesReference: record.variablesReference, name: "name", value: "'renamed'" });
      const args: DebugProtocol.SetExpressionArguments = { expression: "mapping['one']", value: "11", frameId: stop.frameId };
      const expression = (await stop.client.customRequest("setExpression", args)) as DebugProtocol.SetExpressionResponse;
      assert.equal(expression.body.value, "11");
      const point = local(stop, "point");
      await stop.client.setVariableRequest({ variablesReference: point.variablesReference, name: "x", value: "-1" });
    },
    stdout: "values 256 11 renamed -1 1000000 5000\n",
  },
  {
    name: "completions of names and of attributes after a dot",
    check: async (stop) => {
      const labels = async (text: string) =>
        (await stop.client.completionsRequest({ text, column: text.length + 1, frameId: stop.frameId })).body.targets.map((t) => t.label);
      assert.deepEqual(await labels("numb"), ["number"]);
      assert.deepEqual(await labels("record.desc"), ["describe"]);
      assert.ok((await labels("print(mapping.")).includes("items"));
      const target = (await stop.client.completionsRequest({ text: "x = reco", column: 9, frameId: stop.frameId })).body.targets[0];
      assert.deepEqual([target.label, target.start, target.length], ["record", 5, 4]);
    },
  },
  {
    name: "stackTrace pages with startFrame and levels",
    check: async (stop) => {
      const all = (await stop.client.stackTraceRequest({ threadId: stop.threadId })).body;
      assert.deepEqual(all.stackFrames.map((f) => f.name), ["inspect_here", "outer", "<module>"]);
      assert.equal(all.totalFrames, 3);
      const page = (await stop.client.stackTraceRequest({ threadId: stop.threadId, startFrame: 1, levels: 1 })).body;
      assert.deepEqual(page.stackFrames.map((f) => f.name), ["outer"]);
      assert.equal(page.totalFrames, 3);
    },
  },
  {
    name: "thread-locals are read on the stopped thread",
    markers: ["worker"],
    check: async (stop) => {
      assert.equal(stop.frames[0].name, "worker");
      assert.equal((await evaluate(stop, "local_data.value", "watch")).result, "'worker'");
    },
  },
  {
    name: "code without a file is shown through a sourceReference",
    launch: { code: "value = 41\nvalue += 1\nprint('code', value)\n", stopOnEntry: true, cwd: fixtures },
    markers: [],
    check: async (stop) => {
      const source = stop.frames[0].source!;
      assert.equal(source.name, "<string>");
      assert.ok(source.sourceReference && source.sourceReference > 0);
      const content = await stop.client.sourceRequest({ source, sourceReference: source.sourceReference });
      assert.equal(content.body.content, "value = 41\nvalue += 1\nprint('code', value)\n");
    },
  },
  {
    name: "redirectOutput in a terminal sends the program's output as output events too",
    launch: { program: shapes, cwd: fixtures, console: "integratedTerminal", redirectOutput: true },
    // The stop is on the first print: everything the program prints comes after it.
    check: async () => undefined,
    stdout: "ready\nvalues 255 1 r 1 1000000 5000\n",
  },
  {
    name: "modules and loadedSources",
    check: async (stop) => {
      const modules = (await stop.client.modulesRequest({ startModule: 0, moduleCount: 0 })).body;
      const names = modules.modules.map((m) => m.name);
      assert.ok(names.includes("collections") && names.includes("threading"));
      assert.ok(!names.some((name) => name.startsWith("dapper")));
      const loaded = (await stop.client.customRequest("loadedSources", {})) as DebugProtocol.LoadedSourcesResponse;
      const sources = loaded.body.sources;
      assert.ok(sources.some((s) => s.path === shapes));
    },
  },
];

async function runCase(python: { executable: string }, item: Case): Promise<void> {
  const client = new RecordingClient();
  await client.start();
  try {
    const markers = item.markers ?? ["inspect"];
    const launch = item.launch ?? { program: shapes, cwd: fixtures };
    const breakpoints = markers.length ? { [path.join("inspection", "shapes.py")]: markers.map((name) => marker("inspection/shapes.py", name)) } : {};
    // The client can run terminals (for the redirectOutput case), so the console is
    // chosen explicitly: the host's pipes unless a case asks for a terminal.
    await client.launchWith({ python: python.executable, console: "internalConsole", ...launch }, breakpoints, { supportsRunInTerminalRequest: true });
    const { event, frames } = await client.nextStop();
    const threadId = event.body.threadId ?? 0;
    const scope = (await client.scopesRequest({ frameId: frames[0].id })).body.scopes[0];
    const locals = await client.values(scope.variablesReference);
    await item.check({ client, threadId, frames, frameId: frames[0].id, locals });
    await client.continueRequest({ threadId });
    assert.equal(await client.finished(), 0);
    if (item.stdout) assert.ok(client.output("stdout").includes(item.stdout), `stdout: ${JSON.stringify(client.output("stdout"))}`);
    if (item.launch?.console === "integratedTerminal") {
      // The terminal's pipe is read on its own: it may still hold text when the session ends.
      await client.terminalsDone();
      assert.ok(client.terminalOutput.includes(item.stdout ?? ""), `the terminal shows it too: ${JSON.stringify(client.terminalOutput)}`);
    }
  } finally {
    await client.stop();
  }
}

for (const python of pythons()) {
  describe(`inspection on Python ${python.version}`, () => {
    for (const item of cases) {
      test(item.name, { timeout: 60000 }, () => runCase(python, item));
    }
  });
}
