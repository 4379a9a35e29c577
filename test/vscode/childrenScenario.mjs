// Scenario 10 of the real-VS-Code test: child processes, attached automatically.
// workspace/spawner.py starts child_task.py six times, one after the other; a breakpoint in
// child_task.py and "Dapper: Debug Python File" on spawner.py stop the first child in a
// session of its own, which the Call Stack shows beside the parent's (screenshot
// vscode-children.png). The breakpoint cleared and F5, the other five run through; the
// program writes every child's answer and how long each took from its start to its
// first line, which the test checks and prints: the later children run on their
// parent's breakpoints while VS Code starts their sessions (docs/architecture.md).
import { readFileSync } from "node:fs";
import path from "node:path";
import { openInEditor, setBreakpointIn } from "./attachScenario.mjs";
import { callStackRows } from "./editContinueScenario.mjs";
import { waitFor } from "./processes.mjs";
import * as workbench from "./workbench.mjs";

const PARENT = "spawner.py";
const CHILD = "child_task.py";
const BREAKPOINT_LINE = 7;
const CHILDREN = 6;
// The parent's session, as "Debug Python File" names it, and the child's, as the engine does.
const PARENT_SESSION = "Dapper: Current File";
const SESSION_ROW = new RegExp(`^${CHILD.replace(".", "\\.")} \\(pid \\d+\\)`);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Runs the scenario. `context`: begin(name), log(text), workspace, artifacts, stepMs,
 * waitForDebugger(page, what, probe).
 */
export async function scenarioChildren(page, context) {
  const { begin, log, workspace, artifacts, stepMs, waitForDebugger } = context;
  const start = (name) => {
    begin(name);
    log(name);
  };

  start(`open ${CHILD}, set a breakpoint on its line ${BREAKPOINT_LINE}, show Run and Debug`);
  await setBreakpointIn(page, CHILD, BREAKPOINT_LINE, stepMs);
  await page.keyboard.press("Control+Shift+D");
  const header = page.locator(".pane-header", { hasText: "Call Stack" }).first();
  await waitFor("the Call Stack section's header", () => header.isVisible(), stepMs);
  if ((await header.getAttribute("aria-expanded")) === "false") await header.click({ timeout: 5_000 });

  start(`"Dapper: Debug Python File" on ${PARENT}: its first child stops on line ${BREAKPOINT_LINE} of ${CHILD}`);
  await openInEditor(page, PARENT, stepMs);
  await workbench.focusEditor(page);
  await workbench.runPaletteCommand(page, "Dapper: Debug Python File");
  await waitForDebugger(page, `the editor to show ${CHILD} paused on line ${BREAKPOINT_LINE}`, async () => (await workbench.editorShows(page, CHILD)) && (await workbench.pausedLines(page)).includes(BREAKPOINT_LINE));

  start(`the Call Stack shows the child's session (${CHILD} (pid …)) paused, beside ${PARENT}'s (${PARENT_SESSION}) running`);
  let rows = [];
  await waitForDebugger(page, "the child's session in the Call Stack", async () => {
    rows = await callStackRows(page);
    return rows.some((row) => SESSION_ROW.test(row) && row.includes("Paused")) && rows.some((row) => row.startsWith(PARENT_SESSION) && row.includes("Running"));
  }).catch((error) => {
    throw new Error(`${error.message}; it shows ${JSON.stringify(rows)}`);
  });
  await workbench.focusEditor(page);
  await page.screenshot({ path: path.join(artifacts, "vscode-children.png") });

  start(`the breakpoint cleared, F5: the other ${CHILDREN - 1} children run through and every session ends`);
  await workbench.clickGutter(page, BREAKPOINT_LINE);
  await waitFor(`no breakpoint glyph on line ${BREAKPOINT_LINE}`, async () => !(await workbench.breakpointLines(page)).includes(BREAKPOINT_LINE), stepMs);
  await page.keyboard.press("F5");
  await waitForDebugger(page, "the debug toolbar to go away (every session ended)", async () => !(await workbench.debugToolbarVisible(page)));

  start(`each of the ${CHILDREN} children answered its square`);
  const written = path.join(workspace, ".children.json");
  const report = await waitFor(`${PARENT} to write ${path.basename(written)}`, async () => {
    try {
      return JSON.parse(readFileSync(written, "utf8"));
    } catch {
      return undefined;
    }
  }, stepMs);
  const squares = Array.from({ length: CHILDREN }, (_, index) => index * index);
  if (JSON.stringify(report.answers) !== JSON.stringify(squares)) throw new Error(`the children answered ${JSON.stringify(report.answers)}, not ${JSON.stringify(squares)}`);
  // The first child waited for its session (and for the user at its breakpoint).
  const later = report.first_line_ms.slice(1);
  const whole = report.whole_ms.slice(1);
  log(`a child's start to its first line under VS Code: ${later.join(", ")} ms (median ${median(later)} ms); to its end: ${whole.join(", ")} ms (median ${median(whole)} ms)`);
}
