// Scenario 8 of the real-VS-Code test: the agent's tools on the user's own session. The
// stand-in for agent mode (fake-python-extension/agentTools.js) calls the dapper_* tools
// with vscode.lm.invokeTool, as agent mode does, while the test drives the same session
// through the UI: the agent's breakpoint shows in the editor's gutter, the session the user
// starts is the one the agent finds stopped at it, the agent's run to a line moves the
// editor's paused line and the Variables view, a step the user takes (F10) is the stop the
// agent then reads, and the run to a line leaves the breakpoints as they were
// (screenshot vscode-agent-tools.png: the editor paused where the agent's notification says).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { waitFor } from "./processes.mjs";
import * as workbench from "./workbench.mjs";

const FILE = "inventory.py";
const BREAKPOINT_LINE = 16;
const RUN_TO_LINE = 18;
const COMMAND = "Agent (stand-in): Invoke Tools";

/**
 * Runs the scenario. `context`: begin(name), log(text), workspace, artifacts, stepMs,
 * waitForDebugger(page, what, probe).
 */
export async function scenarioAgentTools(page, context) {
  const { begin, log, workspace, artifacts, stepMs, waitForDebugger } = context;
  const start = (name) => {
    begin(name);
    log(name);
  };
  const answersFile = path.join(workspace, "agent-answers.json");
  /** Calls the tools through the stand-in's command; their answers, each checked for an error. */
  const agent = async (calls) => {
    rmSync(answersFile, { force: true });
    writeFileSync(path.join(workspace, "agent-calls.json"), JSON.stringify(calls));
    await workbench.runPaletteCommand(page, COMMAND);
    // The stand-in writes the file as the answers come: it is read once it parses whole
    // (a read between its creation and the end of the write met a cut-off file).
    const answers = await waitFor(
      "the agent's answers",
      () => {
        try {
          return JSON.parse(readFileSync(answersFile, "utf8"));
        } catch {
          return undefined;
        }
      },
      stepMs,
    );
    for (const answer of answers) {
      if (answer.error !== undefined || answer.text.startsWith("Error:")) throw new Error(`the agent's ${answer.tool ?? "call"} failed: ${answer.error ?? answer.text}`);
      log(`agent ${answer.tool}: ${answer.text.split("\n").slice(0, 3).join(" | ")}`);
    }
    return answers.map((answer) => answer.text);
  };
  const expect = (text, pattern, what) => {
    if (!pattern.test(text)) throw new Error(`${what}: ${JSON.stringify(text)} does not match ${pattern}`);
  };

  start(`open ${FILE}; the agent sets a breakpoint on its line ${BREAKPOINT_LINE} by the line's text: the gutter shows it`);
  await waitFor(`${FILE} to open in the editor`, async () => {
    if (await workbench.editorShows(page, FILE)) return true;
    // Quick Open as a user would, then by its path: a file saved earlier in the run
    // (scenario 1's hot reload) may be missing from Quick Open's index of the workspace,
    // whose watcher can lose it.
    const opened = () => waitFor("the editor", () => workbench.editorShows(page, FILE), 5_000).catch(() => false);
    await workbench.quickOpen(page, FILE).catch(() => undefined);
    if (await opened()) return true;
    await workbench.openFileByPath(page, path.join(workspace, FILE));
    return opened();
  }, stepMs, 1_000);
  const [set] = await agent([{ tool: "dapper_set_breakpoint", input: { file: FILE, text: "count = len(prices)" } }]);
  expect(set, new RegExp(`^Breakpoint set: inventory.py:${BREAKPOINT_LINE}`), "set_breakpoint");
  await waitFor(`a breakpoint glyph on line ${BREAKPOINT_LINE}`, async () => (await workbench.breakpointLines(page)).includes(BREAKPOINT_LINE), stepMs);

  start(`"Dapper: Debug Python File" (the user): the editor pauses on line ${BREAKPOINT_LINE}, and the agent finds the session stopped there`);
  await workbench.runPaletteCommand(page, "Dapper: Debug Python File");
  await waitForDebugger(page, `the editor to show the paused line ${BREAKPOINT_LINE}`, async () => {
    const lines = await workbench.pausedLines(page);
    return lines.length === 1 && lines[0] === BREAKPOINT_LINE;
  });
  const [sessions, stack] = await agent([{ tool: "dapper_wait", input: { timeout: 30 } }, { tool: "dapper_stack", input: {} }]);
  expect(sessions, new RegExp(`stopped \\(breakpoint\\)[^]*At main in inventory.py:${BREAKPOINT_LINE}`), "wait");
  expect(stack, new RegExp(`#0 main {2}inventory.py:${BREAKPOINT_LINE}\\n {5}\\| count = len\\(prices\\)`), "stack");

  start(`the agent runs to line ${RUN_TO_LINE}: the editor's paused line and the Variables view follow`);
  const [ran] = await agent([{ tool: "dapper_control", input: { action: "runTo", file: FILE, line: RUN_TO_LINE, wait: 30 } }]);
  expect(ran, new RegExp(`^Ran to inventory.py:${RUN_TO_LINE}\\.`), "runTo");
  await waitForDebugger(page, `the editor to show the paused line ${RUN_TO_LINE}`, async () => {
    const lines = await workbench.pausedLines(page);
    return lines.length === 1 && lines[0] === RUN_TO_LINE;
  });
  // In a full run scenario 1 has hot reloaded the loop to count each price twice, and saved
  // it: the amount is what the file says now.
  const amount = readFileSync(path.join(workspace, FILE), "utf8").includes("result += 2 * price") ? 24 : 12;
  await waitForDebugger(page, `the Variables view to show amount = ${amount}`, async () => (await workbench.variableRows(page)).includes(`amount = ${amount}`));
  const gutter = await workbench.breakpointLines(page);
  if (gutter.includes(RUN_TO_LINE)) throw new Error(`the run to line ${RUN_TO_LINE} left a breakpoint there: the gutter shows ${gutter}`);
  // The stack last, so the notification in the screenshot is the agent's view of the stop.
  const [variables, where] = await agent([{ tool: "dapper_variables", input: {} }, { tool: "dapper_stack", input: {} }]);
  expect(variables, new RegExp(`amount \\(int\\) = ${amount}\\b`), "variables");
  expect(where, new RegExp(`#0 main {2}inventory.py:${RUN_TO_LINE}\n`), "stack after the run");
  await workbench.focusEditor(page);
  await page.screenshot({ path: path.join(artifacts, "vscode-agent-tools.png") });

  start("F10 (the user): the agent sees the step's stop; its breakpoints are the user's one");
  await page.keyboard.press("F10");
  await waitForDebugger(page, `the editor to show the paused line ${RUN_TO_LINE + 1}`, async () => (await workbench.pausedLines(page)).includes(RUN_TO_LINE + 1));
  const [after] = await agent([{ tool: "dapper_sessions", input: {} }]);
  expect(after, new RegExp(`stopped \\(step\\)[^]*Breakpoints \\(\\d+\\):[^]*inventory.py:${BREAKPOINT_LINE} `), "sessions");
  if (after.includes(`inventory.py:${RUN_TO_LINE} `)) throw new Error(`the agent lists a breakpoint on line ${RUN_TO_LINE}: ${after}`);
  const [stepped] = await agent([{ tool: "dapper_stack", input: {} }]);
  expect(stepped, new RegExp(`#0 main {2}inventory.py:${RUN_TO_LINE + 1}`), "stack after F10");

  start("F5 (the user): the program ends, and the agent sees it end");
  await page.keyboard.press("F5");
  await waitFor("the debug toolbar to go away (the session ended)", async () => !(await workbench.debugToolbarVisible(page)), stepMs);
  const [ended] = await agent([{ tool: "dapper_sessions", input: {} }]);
  expect(ended, /ended/, "sessions at the end");
}
