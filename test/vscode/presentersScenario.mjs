// Scenario 5 of the real-VS-Code test: values shown by type, and completions in the debug
// console. tables.py (numpy and pandas, from the Python test environment that the pytest
// suites use: no venv of its own) stops on its line 11; the Variables view shows the
// DataFrame and the numpy array as one-line summaries, and expanded, the DataFrame's
// shape and columns and the array's dtype, min and max (screenshot vscode-presenters.png).
// In the debug console, `os.pat` completed with Ctrl+Space and Tab reads `os.path` (the
// completion replaces what was typed, nothing more or less) and `prices.sh` reads
// `prices.shape`, which evaluates to (3, 2) (screenshot vscode-console-completion.png).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { setBreakpointIn } from "./attachScenario.mjs";
import { waitFor } from "./processes.mjs";
import * as workbench from "./workbench.mjs";

const PROGRAM = "tables.py";
const CONFIGURATION = "Dapper: tables.py";
const BREAKPOINT_LINE = 11;
const LOCALS = [
  "grid = array([[ 0,  1,  2,  3], [ 4,  5,  6,  7], [ 8,  9, 10, 11]])",
  "prices = DataFrame: 3 rows × 2 columns",
];
// What each expanded value shows among its children.
const EXPANDED = {
  prices: ["shape = (3, 2)", "'price' = {0: 2.5, 1: 4.0, 2: 1.25}", "0 = {'item': 'tea', 'price': 2.5}"],
  grid: ["dtype = dtype('int64')", "shape = (3, 4)", "min = 0", "max = 11", "0 = array([0, 1, 2, 3])"],
};
// (typed, what the input reads once the first suggestion is accepted)
const COMPLETIONS = [
  ["os.pat", "os.path"],
  ["prices.sh", "prices.shape"],
];

/**
 * Runs the scenario. `context`: begin(name), log(text), python (an interpreter with numpy
 * and pandas), workspace, artifacts, stepMs, waitForDebugger(page, what, probe).
 */
export async function scenarioPresenters(page, context) {
  const { begin, log, python, workspace, artifacts, stepMs, waitForDebugger } = context;
  const start = (name) => {
    begin(name);
    log(name);
  };
  // Its own launch.json: scenario 2 deleted the fixture's.
  const configuration = { name: CONFIGURATION, type: "dapper", request: "launch", program: "${workspaceFolder}/tables.py", python, console: "internalConsole" };
  writeFileSync(path.join(workspace, ".vscode", "launch.json"), JSON.stringify({ version: "0.2.0", configurations: [configuration] }, null, 2));

  start(`open ${PROGRAM}, a breakpoint on its line ${BREAKPOINT_LINE}, and start "${CONFIGURATION}"`);
  await setBreakpointIn(page, PROGRAM, BREAKPOINT_LINE, stepMs);
  await waitFor(
    "the session to start",
    async () => {
      if (await workbench.debugToolbarVisible(page)) return true;
      await workbench.startDebugConfiguration(page, CONFIGURATION);
      return waitFor("the debug toolbar", () => workbench.debugToolbarVisible(page), 10_000).catch(() => false);
    },
    stepMs,
    1_000,
  );
  await waitForDebugger(page, `the editor to show the paused line ${BREAKPOINT_LINE}`, async () => {
    const lines = await workbench.pausedLines(page);
    return lines.length === 1 && lines[0] === BREAKPOINT_LINE;
  });

  start(`the Variables view shows ${LOCALS.join(" and ")}`);
  const shownAt = Date.now();
  await waitForDebugger(page, step(LOCALS), async () => {
    const rows = await workbench.variableRows(page);
    if (LOCALS.every((row) => rows.includes(row))) return true;
    if (Date.now() - shownAt > 5_000) await workbench.expandScope(page, "Locals");
    return false;
  });

  // Room for both values opened whole in the screenshot.
  await workbench.widenSideBar(page, 760);
  await workbench.collapseSections(page, ["Watch", "Call Stack", "Breakpoints"]);
  for (const [name, children] of Object.entries(EXPANDED)) {
    start(`${name} expanded shows ${children.join(", ")}`);
    await waitForDebugger(page, step(children), async () => {
      const rows = await workbench.variableRows(page);
      if (children.every((row) => rows.includes(row))) return true;
      await workbench.expandVariable(page, name);
      return false;
    });
  }
  await workbench.focusEditor(page);
  await page.screenshot({ path: path.join(artifacts, "vscode-presenters.png") });

  for (const [typed, completed] of COMPLETIONS) {
    start(`the debug console completes "${typed}" to "${completed}"`);
    await workbench.typeInConsole(page, typed);
    await page.keyboard.press("Control+Space");
    const label = completed.slice(completed.lastIndexOf(".") + 1);
    await waitFor(`the suggestion "${label}"`, async () => (await workbench.suggestions(page))[0] === label, stepMs, 250).catch(async (error) => {
      throw new Error(`${error.message}; suggestions: ${JSON.stringify(await workbench.suggestions(page))}`);
    });
    if (typed === COMPLETIONS[0][0]) await page.screenshot({ path: path.join(artifacts, "vscode-console-completion.png") });
    // Tab accepts a suggestion in the debug console (Enter would run the input).
    await page.keyboard.press("Tab");
    await waitFor(`the console input to read "${completed}"`, async () => (await workbench.consoleInput(page)) === completed, stepMs, 250).catch(async (error) => {
      throw new Error(`${error.message}; it reads "${await workbench.consoleInput(page)}"`);
    });
    await workbench.clearConsoleInput(page);
  }

  start("prices.shape evaluates to (3, 2) in the debug console");
  const before = (await workbench.consoleRows(page)).length;
  await workbench.evaluateInConsole(page, "prices.shape");
  await waitForDebugger(page, "(3, 2) in the debug console", async () => (await workbench.consoleRows(page)).slice(before).includes("(3, 2)"));

  start("F5: the program runs to its end and the session ends");
  await workbench.focusEditor(page);
  await page.keyboard.press("F5");
  await waitFor("the debug toolbar to go away (the session ended)", async () => !(await workbench.debugToolbarVisible(page)), stepMs);
}

function step(rows) {
  return `the Variables view to show ${rows.join(" and ")}`;
}
