// The MCP server (`node dist/adapter.js --mcp`) driven by the official MCP SDK's client,
// a client nobody here wrote, against real Python programs: an agent's whole debugging
// of a buggy program to its fix (break, inspect, evaluate, edit, hot reload, restart the
// frame, confirm the output), bounded answers on a 100,000-key dict, waits that time out
// instead of hanging, and bad calls that come back as one clear sentence.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { connect, ok } from "./mcp-support";
import { fixtures, marker, pythons, root } from "./support";

const EXPECTED_TOOLS = ["sessions", "start", "set_breakpoint", "remove_breakpoint", "control", "wait", "stack", "variables", "evaluate", "output", "hot_reload", "restart_frame", "stop"];

for (const python of pythons()) {
  test(`MCP, Python ${python.version}: an agent debugs a buggy program to its fix`, { timeout: 120_000 }, async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "dapper-mcp-"));
    const program = path.join(work, "buggy.py");
    fs.copyFileSync(path.join(fixtures, "agent", "buggy.py"), program);
    const line = marker("agent/buggy.py", "average");
    const mcp = await connect(work);
    try {
      const tools = await mcp.client.listTools();
      assert.deepEqual(tools.tools.map((t) => t.name), EXPECTED_TOOLS);
      assert.ok(tools.tools.every((t) => t.description && t.inputSchema.type === "object"));

      // A breakpoint by the line's text, then the program, relative to the server's directory.
      assert.match(ok(await mcp.call("set_breakpoint", { file: "buggy.py", text: "return total / len(values)" })), new RegExp(`buggy.py:${line}`));
      let text = ok(await mcp.call("start", { program: "buggy.py", python: python.executable, wait: 60 }));
      assert.match(text, /stopped \(breakpoint\)/);
      assert.match(text, new RegExp(`At average in buggy.py:${line}\\n  ${line} \\| return total / len\\(values\\)`));

      text = ok(await mcp.call("stack"));
      assert.match(text, /#0 average {2}buggy.py:\d+/);
      assert.match(text, /#1 main {2}buggy.py:\d+\n {5}\| result = average\(scores\)/);

      text = ok(await mcp.call("variables"));
      assert.match(text, /total \(int\) = 8/);
      assert.match(text, /values \(list, 3 items/);
      assert.equal(ok(await mcp.call("evaluate", { expression: "sum(values)" })), "18");

      // The caller's frame: a secret-looking name is masked, a huge dict is one line.
      text = ok(await mcp.call("variables", { frame: 1 }));
      assert.match(text, /api_token \(str\) = <masked/);
      assert.doesNotMatch(text, /hunter2/);
      assert.match(text, /big \(dict, 100000 items; open with path="big"\)/);
      assert.ok(text.length < 2000, `the frame's variables are short: ${text.length} characters`);

      // The fix, hot reloaded into the running program; the frame restarted runs the new code.
      fs.writeFileSync(program, fs.readFileSync(program, "utf8").replace("range(len(values) - 1)", "range(len(values))"));
      text = ok(await mcp.call("hot_reload", { file: "buggy.py" }));
      assert.match(text, /^Reloaded buggy.py/);
      text = ok(await mcp.call("restart_frame", { frame: 0 }));
      assert.match(text, /stopped/);
      text = ok(await mcp.call("control", { action: "continue" }));
      assert.match(text, new RegExp(`stopped \\(breakpoint\\)[^]*buggy.py:${line}`));
      assert.equal(ok(await mcp.call("evaluate", { expression: "total" })), "18");
      // Stepping over the return lands back in main.
      text = ok(await mcp.call("control", { action: "stepOut" }));
      assert.match(text, /At main in buggy.py/);

      ok(await mcp.call("remove_breakpoint", { all: true }));
      text = ok(await mcp.call("control", { action: "continue", wait: 60 }));
      assert.match(text, /ended with exit code 0/);
      text = ok(await mcp.call("output"));
      assert.match(text, /average=6\.0/);
      assert.match(text, /done 100000 22/);
      assert.match(ok(await mcp.call("sessions")), /"buggy.py": ended with exit code 0/);
    } finally {
      await mcp.close();
      fs.rmSync(work, { recursive: true, force: true });
    }
  });

  test(`MCP, Python ${python.version}: answers stay within their stated limits`, { timeout: 120_000 }, async () => {
    const mcp = await connect(path.join(fixtures, "agent"));
    try {
      ok(await mcp.call("set_breakpoint", { file: "buggy.py", line: marker("agent/buggy.py", "average") }));
      ok(await mcp.call("start", { command: `${python.executable} buggy.py`, wait: 60 }));
      // 100,000 keys: a page of 5, saying where the next page starts.
      let text = ok(await mcp.call("variables", { frame: 1, path: "big", count: 5 }));
      assert.match(text, /^big \(dict\), items 0–4 of 100000 \(more with start=5\):/);
      assert.equal(text.split("\n").length, 6);
      text = ok(await mcp.call("variables", { frame: 1, path: "big", start: 99_998, count: 5 }));
      assert.match(text, /'key99999' \(int\) = 99999/);
      // The whole dict's repr is cut at maxChars, and says so.
      text = ok(await mcp.call("evaluate", { expression: "big", frame: 1 }));
      assert.ok(text.length < 2300, `evaluate is cut: ${text.length}`);
      assert.match(text, /more chars cut; raise maxChars to see more\]/);
      assert.match(text, /list them with variables, path="big"/);
      text = ok(await mcp.call("evaluate", { expression: "'x' * 50000", maxChars: 100 }));
      assert.ok(text.length < 200);
      // Nested values to a depth, ten items a level.
      text = ok(await mcp.call("variables", { frame: 1, depth: 2, maxChars: 40 }));
      assert.ok(text.split("\n").length < 60, text);
      assert.match(text, /\.\.\.|…/);
      ok(await mcp.call("stop"));
    } finally {
      await mcp.close();
    }
  });

  test(`MCP, Python ${python.version}: run to a line leaves the breakpoints as they were; the environment is masked`, { timeout: 120_000 }, async () => {
    const secret = "s3cr3t-value-from-the-environment";
    const mcp = await connect(path.join(fixtures, "agent"), { AGENT_E2E_ENVIRONMENT_VALUE: secret });
    try {
      const source = fs.readFileSync(path.join(fixtures, "agent", "buggy.py"), "utf8").split("\n");
      const lineOf = (text: string) => source.findIndex((l) => l.includes(text)) + 1;
      // The user's own breakpoint on the line to run to, one that would never stop, set
      // before the start; runTo makes it a plain one for the run, on that same line.
      ok(await mcp.call("set_breakpoint", { file: "buggy.py", text: "result = average(scores)", condition: "False" }));
      let text = ok(await mcp.call("start", { program: "buggy.py", python: python.executable, stopOnEntry: true, wait: 60 }));
      assert.match(text, /stopped \(entry\)/);
      text = ok(await mcp.call("control", { action: "runTo", file: "buggy.py", text: "result = average(scores)", wait: 60 }));
      assert.match(text, new RegExp(`^Ran to buggy.py:${lineOf("result = average(scores)")}\\.`));
      assert.match(text, /At main in buggy.py/);
      text = ok(await mcp.call("control", { action: "runTo", file: "buggy.py", line: lineOf('print(f"average={result}")'), wait: 60 }));
      assert.match(text, new RegExp(`^Ran to buggy.py:${lineOf('print(f"average={result}")')}\\.`));
      // Neither run left a breakpoint of its own, and the user's kept its condition.
      text = ok(await mcp.call("sessions"));
      assert.match(text, new RegExp(`Breakpoints \\(1\\):\\n  buggy.py:${lineOf("result = average(scores)")} .*\\(if False\\)`));
      assert.equal(ok(await mcp.call("evaluate", { expression: "result" })), "2.6666666666666665");

      // The environment the program was given: names listed, values masked, however read.
      text = ok(await mcp.call("evaluate", { expression: "__import__('os').environ" }));
      assert.match(text, /^<masked: environment variables/);
      text = ok(await mcp.call("evaluate", { expression: "__import__('os').getenv('AGENT_E2E_ENVIRONMENT_VALUE')" }));
      assert.match(text, /^<masked: environment variables/);
      text = ok(await mcp.call("variables", { path: "__import__('os').environ", count: 200 }));
      assert.match(text, /'AGENT_E2E_ENVIRONMENT_VALUE' \(str\) = <masked: environment variables/);
      for (const answer of [text, ok(await mcp.call("variables", { scope: "Globals", depth: 2 }))]) assert.ok(!answer.includes(secret), answer);
      ok(await mcp.call("stop"));
    } finally {
      await mcp.close();
    }
  });

  test(`MCP, Python ${python.version}: waits end at their time limit and a running program can be paused`, { timeout: 120_000 }, async () => {
    const mcp = await connect(path.join(fixtures, "agent"));
    try {
      let text = ok(await mcp.call("start", { program: "spin.py", python: python.executable, wait: 1 }));
      assert.match(text, /still running after 1 s/);
      const started = Date.now();
      text = ok(await mcp.call("wait", { timeout: 1 }));
      assert.match(text, /still running after 1 s/);
      assert.ok(Date.now() - started < 10_000);
      const refused = await mcp.call("stack");
      assert.equal(refused.isError, true);
      assert.match(refused.text, /is running, not stopped. Call wait/);
      text = ok(await mcp.call("control", { action: "pause" }));
      assert.match(text, /stopped \(pause\)/);
      assert.match(ok(await mcp.call("evaluate", { expression: "ticks > 0" })), /True/);
      text = ok(await mcp.call("stop"));
      assert.match(text, /ended/);
    } finally {
      await mcp.close();
    }
  });
}

// Bad calls need no Python: each answer is an error that says what to send instead.
const badCalls: { tool: string; args: Record<string, unknown>; says: RegExp }[] = [
  { tool: "set_breakpoint", args: { file: "buggy.py", line: "ten" }, says: /"line" must be a number, not the string "ten"/ },
  { tool: "set_breakpoint", args: { file: "buggy.py", line: 1.5 }, says: /"line" must be a whole number/ },
  { tool: "set_breakpoint", args: { file: "buggy.py", text: "total" }, says: /3 lines of buggy.py contain "total": 7: total = 0; 9: total \+= values\[i\]; 10: return/ },
  { tool: "set_breakpoint", args: { file: "nowhere.py", line: 1 }, says: /Cannot read .*nowhere.py/ },
  { tool: "set_breakpoint", args: { file: "buggy.py", line: 1, colour: "red" }, says: /Unknown argument "colour"\. This tool takes: file, line, text, function/ },
  { tool: "control", args: {}, says: /"action" is required/ },
  { tool: "control", args: { action: "jump" }, says: /"action" must be one of "continue", "next", "stepIn", "stepOut", "runTo", "pause", not "jump"/ },
  { tool: "control", args: { action: "next" }, says: /No debug session\. Start one with start\./ },
  { tool: "stack", args: { session: "nope" }, says: /No session named "nope"/ },
  { tool: "start", args: { program: "buggy.py", module: "buggy" }, says: /exactly one of program, module, pytest, command or pid, not program and module/ },
  { tool: "start", args: { command: "ls -l" }, says: /"ls" is not a Python interpreter/ },
  { tool: "start", args: { program: "missing.py" }, says: /There is no file .*missing\.py/ },
  { tool: "wait", args: { timeout: 100_000 }, says: /"timeout" must be at most 300/ },
  { tool: "no_such_tool", args: {}, says: /There is no tool no_such_tool/ },
];

test("MCP: bad calls come back as errors that say what to do", { timeout: 60_000 }, async () => {
  const mcp = await connect(path.join(fixtures, "agent"));
  try {
    for (const { tool, args, says } of badCalls) {
      const answer = await mcp.call(tool, args);
      assert.equal(answer.isError, true, `${tool} ${JSON.stringify(args)} should fail: ${answer.text}`);
      assert.match(answer.text, says, `${tool} ${JSON.stringify(args)}`);
    }
    // A session that cannot start says why, and leaves nothing behind.
    const failed = await mcp.call("start", { program: "buggy.py", python: path.join(root, "no-such-python") });
    assert.equal(failed.isError, true);
    assert.match(failed.text, /did not start/);
  } finally {
    await mcp.close();
  }
});
