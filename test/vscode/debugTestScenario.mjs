// Scenario 6 of the real-VS-Code test: configurations written for debugpy run under
// Dapper. The stand-in Python Debugger extension is installed and
// dapper.debugpyConfigurations is left at `ask`, so the first debugpy configuration that
// starts in the workspace asks, in a modal dialog, whether Dapper runs them; the answer is
// kept for the workspace.
//
// First, the Testing view's Debug Test, which the Python extension starts as a `debugpy`
// configuration: the stand-in Python extension starts Debug Test of test_inventory.py's
// one test as the real one does; the question comes and the test answers Use Dapper; the
// breakpoint in the test stops in a session of type `dapper` (the stand-in records the
// type of the session it started), the Variables view shows the test's locals, its own
// launcher is kept out of the call stack's user frames by the configuration's rule, and
// F5 lets the test finish with its result written for the Testing view.
//
// Then a template breakpoint: templates/page.jinja opens in the jinja-html language (from
// the stand-in for the template language extensions), whose gutter takes a breakpoint; a
// launch.json configuration of type `debugpy` with "jinja": true starts without the
// question (the answer was kept) and stops at the template's line once per item, the
// Variables view showing the template's variables.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setBreakpointIn } from "./attachScenario.mjs";
import { waitFor } from "./processes.mjs";
import * as workbench from "./workbench.mjs";

const TEST_FILE = "test_inventory.py";
const BREAKPOINT_LINE = 9;
const EXPECTED_LOCAL = "expected = 24";
const COMMAND = "Python (stand-in): Debug Test";
const QUESTION = "Run the debugpy configurations of this workspace";
const ANSWER = "Use Dapper";

const TEMPLATE = "page.jinja";
const TEMPLATE_LANGUAGE = "Jinja HTML (stand-in)";
const TEMPLATE_LINE = 4;
const TEMPLATE_CONFIGURATION = "Python Debugger: Jinja page";
// The template's variables at each stop of its line (one per item of its loop).
const TEMPLATE_STOPS = [
  ["item = 'apple'", "title = 'Fruit'"],
  ["item = 'pear'", "title = 'Fruit'"],
];

/**
 * Runs the scenario. `context`: begin(name), log(text), workspace, artifacts, stepMs,
 * waitForDebugger(page, what, probe), templatePython() (an interpreter with Jinja2, or
 * undefined when there is none: the template part is skipped, saying so).
 */
export async function scenarioDebugTest(page, context) {
  const { begin, log, workspace, artifacts, stepMs, waitForDebugger, templatePython } = context;
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

  start(`"${COMMAND}": with the Python Debugger installed, Dapper asks once whether it runs debugpy configurations`);
  await workbench.runPaletteCommand(page, COMMAND);
  await waitFor(`the question "${QUESTION}…"`, async () => (await workbench.dialogText(page))?.includes(QUESTION), stepMs);
  await page.screenshot({ path: path.join(artifacts, "vscode-debugpy-ask.png") });
  await workbench.clickDialogButton(page, ANSWER);
  log(`answered ${ANSWER}`);

  start(`the debugpy configuration stops at the breakpoint in a Dapper session`);
  await waitForDebugger(page, `the editor to show the paused line ${BREAKPOINT_LINE}`, async () => {
    const lines = await workbench.pausedLines(page);
    return lines.length === 1 && lines[0] === BREAKPOINT_LINE;
  });
  await waitFor(`the stand-in to record the session's type`, () => existsSync(sessionRecord), stepMs);
  const type = readFileSync(sessionRecord, "utf8").trim();
  if (type !== "dapper") throw new Error(`the Debug Test session is of type "${type}", not Dapper's`);
  log("the Debug Test session is of type dapper");
  await waitForDebugger(page, `the Variables view to show ${EXPECTED_LOCAL}`, variablesShow(page, [EXPECTED_LOCAL], log));
  await workbench.focusEditor(page);
  await page.screenshot({ path: path.join(artifacts, "vscode-debug-test.png") });

  start("F5: the test finishes, its result is written for the Testing view, and the session ends");
  await page.keyboard.press("F5");
  await waitFor("the debug toolbar to go away (the session ended)", async () => !(await workbench.debugToolbarVisible(page)), stepMs);
  await waitFor(`${path.basename(results)} to say the test passed`, () => existsSync(results) && readFileSync(results, "utf8").startsWith("1 passed, 0 failed"), stepMs);

  const python = templatePython();
  if (python === undefined) return;
  start(`open ${TEMPLATE} (${TEMPLATE_LANGUAGE}) and set a breakpoint on its line ${TEMPLATE_LINE} by clicking the gutter`);
  await setBreakpointIn(page, TEMPLATE, TEMPLATE_LINE, stepMs);
  const language = (await workbench.statusBarTexts(page)).find((text) => text === TEMPLATE_LANGUAGE);
  if (language === undefined) throw new Error(`${TEMPLATE} is not open in ${TEMPLATE_LANGUAGE}: the status bar shows ${JSON.stringify(await workbench.statusBarTexts(page))}`);

  start(`"${TEMPLATE_CONFIGURATION}" (type debugpy, "jinja": true) starts without asking again and stops at line ${TEMPLATE_LINE} of ${TEMPLATE}`);
  // As the Python extension's documentation writes a Jinja configuration, with the
  // interpreter that has Jinja2.
  const configuration = {
    name: TEMPLATE_CONFIGURATION,
    type: "debugpy",
    request: "launch",
    program: "${workspaceFolder}/render_page.py",
    console: "internalConsole",
    jinja: true,
    python,
  };
  writeFileSync(path.join(workspace, ".vscode", "launch.json"), JSON.stringify({ version: "0.2.0", configurations: [configuration] }, null, 2));
  await waitFor(
    "the session to start",
    async () => {
      const question = await workbench.dialogText(page);
      if (question?.includes(QUESTION)) throw new Error("Dapper asked again: the workspace's answer was not kept");
      if (await workbench.debugToolbarVisible(page)) return true;
      await workbench.startDebugConfiguration(page, TEMPLATE_CONFIGURATION);
      return waitFor("the debug toolbar", () => workbench.debugToolbarVisible(page), 10_000).catch(() => false);
    },
    stepMs,
    1_000,
  );
  for (const [index, expected] of TEMPLATE_STOPS.entries()) {
    if (index > 0) {
      start(`F5: the template's line stops again, with ${expected.join(" and ")}`);
      await page.keyboard.press("F5");
    }
    await waitForDebugger(page, `the editor to show ${TEMPLATE} paused on line ${TEMPLATE_LINE}`, async () => {
      const lines = await workbench.pausedLines(page);
      return (await workbench.editorShows(page, TEMPLATE)) && lines.length === 1 && lines[0] === TEMPLATE_LINE;
    });
    await waitForDebugger(page, `the Variables view to show ${expected.join(" and ")}`, variablesShow(page, expected, log));
    if (index === 0) await page.screenshot({ path: path.join(artifacts, "vscode-template-breakpoint.png") });
    await workbench.focusEditor(page);
  }

  start("F5: the program renders the page and the session ends");
  await page.keyboard.press("F5");
  await waitFor("the debug toolbar to go away (the session ended)", async () => !(await workbench.debugToolbarVisible(page)), stepMs);
  await waitFor("the rendered page in the debug console", async () => (await workbench.consoleRows(page)).some((row) => row.includes("<li>pear</li>")), stepMs);
}

/**
 * A probe: whether the Variables view shows every one of `rows`; after 5 s without them,
 * Locals is clicked open, as a user would when VS Code left it collapsed.
 */
function variablesShow(page, rows, log) {
  const since = Date.now();
  return async () => {
    const shown = await workbench.variableRows(page);
    if (rows.every((row) => shown.includes(row))) return true;
    if (Date.now() - since > 5_000 && (await workbench.expandScope(page, "Locals"))) log("Locals was collapsed; clicked it open");
    return false;
  };
}
