// Scenario 6 of the real-VS-Code test: the Testing view's Debug Test, which the Python
// extension starts as a `debugpy` configuration, runs under Dapper. No Python Debugger
// extension is installed and dapper.debugpyConfigurations is left at `ask`: with nothing
// else to run debugpy's configurations, Dapper runs them without asking. The stand-in
// Python extension starts Debug Test of test_inventory.py's one test as the real one does;
// the breakpoint in the test stops in a session of type `dapper` (the stand-in records the
// type of the session it started), the Variables view shows the test's locals, its own
// launcher is kept out of the call stack's user frames by the configuration's rule, and
// F5 lets the test finish with its result written for the Testing view.
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { setBreakpointIn } from "./attachScenario.mjs";
import { waitFor } from "./processes.mjs";
import * as workbench from "./workbench.mjs";

const TEST_FILE = "test_inventory.py";
const BREAKPOINT_LINE = 9;
const EXPECTED_LOCAL = "expected = 24";
const COMMAND = "Python (stand-in): Debug Test";

/**
 * Runs the scenario. `context`: begin(name), log(text), workspace, artifacts, stepMs,
 * waitForDebugger(page, what, probe).
 */
export async function scenarioDebugTest(page, context) {
  const { begin, log, workspace, artifacts, stepMs, waitForDebugger } = context;
  const start = (name) => {
    begin(name);
    log(name);
  };
  const sessionRecord = path.join(workspace, "debug-test-session.txt");
  const results = path.join(workspace, "test-results.txt");
  rmSync(sessionRecord, { force: true });
  rmSync(results, { force: true });

  start(`open ${TEST_FILE} and set a breakpoint on its line ${BREAKPOINT_LINE}`);
  await setBreakpointIn(page, TEST_FILE, BREAKPOINT_LINE, stepMs);

  start(`"${COMMAND}": the debugpy configuration stops at the breakpoint in a Dapper session`);
  await workbench.runPaletteCommand(page, COMMAND);
  await waitForDebugger(page, `the editor to show the paused line ${BREAKPOINT_LINE}`, async () => {
    const lines = await workbench.pausedLines(page);
    return lines.length === 1 && lines[0] === BREAKPOINT_LINE;
  });
  await waitFor(`the stand-in to record the session's type`, () => existsSync(sessionRecord), stepMs);
  const type = readFileSync(sessionRecord, "utf8").trim();
  if (type !== "dapper") throw new Error(`the Debug Test session is of type "${type}", not Dapper's`);
  log("the Debug Test session is of type dapper");
  const shownAt = Date.now();
  await waitForDebugger(page, `the Variables view to show ${EXPECTED_LOCAL}`, async () => {
    if ((await workbench.variableRows(page)).includes(EXPECTED_LOCAL)) return true;
    if (Date.now() - shownAt > 5_000 && (await workbench.expandScope(page, "Locals"))) log("Locals was collapsed; clicked it open");
    return false;
  });
  await workbench.focusEditor(page);
  await page.screenshot({ path: path.join(artifacts, "vscode-debug-test.png") });

  start("F5: the test finishes, its result is written for the Testing view, and the session ends");
  await page.keyboard.press("F5");
  await waitFor("the debug toolbar to go away (the session ended)", async () => !(await workbench.debugToolbarVisible(page)), stepMs);
  await waitFor(`${path.basename(results)} to say the test passed`, () => existsSync(results) && readFileSync(results, "utf8").startsWith("1 passed, 0 failed"), stepMs);
}
