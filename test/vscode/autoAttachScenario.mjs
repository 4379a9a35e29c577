// Scenario 4 of the real-VS-Code test: terminal auto-attach (dapper.autoAttach). The mode
// is switched to Smart with "Dapper: Toggle Auto Attach" (the status bar then says so); a
// breakpoint is set in greeter.py; in a new terminal, `python greeter.py terminal` is
// typed: the program stops at the breakpoint in a session named after the command line
// (as the Dapper log says), its Variables show its local, and F5 lets it end. Then an installed tool (pip, in the
// interpreter's site-packages) run in the same terminal is not debugged.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { dapperLogContains, setBreakpointIn } from "./attachScenario.mjs";
import { delay, waitFor } from "./processes.mjs";
import * as workbench from "./workbench.mjs";

const PROGRAM = "greeter.py";
const BREAKPOINT_LINE = 7;
const EXPECTED_LOCAL = "greeting = 'hello, terminal'";
const TOGGLE_TITLE = "Dapper: Toggle Auto Attach";
const PICK_TITLE = "Dapper: Auto Attach";
const STATUS_TEXT = "Auto Attach: Smart";

/**
 * Runs the scenario. `context`: begin(name), log(text), python (the interpreter typed in
 * the terminal), workspace, userData (code-server's, whose logs hold the Dapper output
 * channel), artifacts, stepMs, waitForDebugger(page, what, probe).
 */
export async function scenarioAutoAttach(page, context) {
  const { begin, log, python, workspace, userData, artifacts, stepMs, waitForDebugger } = context;
  const start = (name) => {
    begin(name);
    log(name);
  };

  start(`"${TOGGLE_TITLE}" → Smart: the status bar says "${STATUS_TEXT}"`);
  await waitFor(
    `the quick pick "${PICK_TITLE}"`,
    async () => {
      if ((await workbench.quickPick(page))?.title === PICK_TITLE) return true;
      await workbench.runPaletteCommand(page, TOGGLE_TITLE);
      return waitFor("the pick", async () => (await workbench.quickPick(page))?.title === PICK_TITLE, 5_000).catch(() => false);
    },
    stepMs,
    1_000,
  );
  await page.locator(".quick-input-list .monaco-list-row", { hasText: "Smart" }).first().click({ timeout: 10_000 });
  await waitFor(`the status bar to say "${STATUS_TEXT}"`, async () => (await workbench.statusBarTexts(page)).some((text) => text.includes(STATUS_TEXT)), stepMs);

  start(`open ${PROGRAM} and set a breakpoint on its line ${BREAKPOINT_LINE}`);
  await setBreakpointIn(page, PROGRAM, BREAKPOINT_LINE, stepMs);

  const commandLine = `${python} ${PROGRAM} terminal`;
  start(`a new terminal runs \`${commandLine}\`: the program stops on line ${BREAKPOINT_LINE} in a session named after it`);
  await workbench.runPaletteCommand(page, "Terminal: Create New Terminal");
  await waitFor("the terminal", () => page.locator(".terminal-wrapper.active .xterm, .terminal .xterm").first().isVisible(), stepMs);
  // The shell starts (and reads its profile) before it takes input.
  await delay(2_000);
  await workbench.runInTerminal(page, commandLine);
  await waitForDebugger(page, `the editor to show the paused line ${BREAKPOINT_LINE}`, async () => {
    const lines = await workbench.pausedLines(page);
    return lines.length === 1 && lines[0] === BREAKPOINT_LINE;
  });
  // As in scenario 1: should VS Code leave Locals collapsed, a user clicks it open.
  const shownAt = Date.now();
  await waitForDebugger(page, `the Variables view to show ${EXPECTED_LOCAL}`, async () => {
    if ((await workbench.variableRows(page)).includes(EXPECTED_LOCAL)) return true;
    if (Date.now() - shownAt > 5_000 && (await workbench.expandScope(page, "Locals"))) log("Locals was collapsed; clicked it open");
    return false;
  });
  const sessionName = `${path.basename(python)} ${PROGRAM} terminal`;
  await waitFor(`the Dapper log to name the session "${sessionName}"`, () => dapperLogContains(userData, `(${sessionName})`), stepMs);
  await workbench.focusEditor(page);
  await page.screenshot({ path: path.join(artifacts, "vscode-auto-attach-stopped.png") });

  start("F5: the program runs to its end and the session ends");
  await page.keyboard.press("F5");
  await waitFor("the debug toolbar to go away (the session ended)", async () => !(await workbench.debugToolbarVisible(page)), stepMs);

  const marker = path.join(workspace, "pip-ran.txt");
  start("an installed tool run in the terminal (pip) is not debugged in Smart mode");
  await workbench.runInTerminal(page, `${python} -m pip --version > ${marker}`);
  await waitFor(`pip to write ${marker}`, () => existsSync(marker) && readFileSync(marker, "utf8").includes("pip"), stepMs);
  await delay(2_000);
  if (await workbench.debugToolbarVisible(page)) throw new Error("pip was debugged");
  await page.screenshot({ path: path.join(artifacts, "vscode-auto-attach-ended.png") });
}
