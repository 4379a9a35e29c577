/* global document -- callStackRows runs inside the page (page.evaluate), not in Node */
// Scenario 7 of the real-VS-Code test: edit and continue. Stopped in discounted() of
// workspace/pricing.py, called by main(), the user edits the function's first line in the
// editor and presses Ctrl+Alt+R; the Call Stack must still show every frame (not the top
// one and "Load More Stack Frames"). Restart Frame from the frame's context menu then
// pauses on the function's first line, with the stack as deep as before, and stepping
// shows the new code's values in the Variables view (screenshot vscode-edit-continue.png);
// F5 lets the program end with the new result (its exit code).
import path from "node:path";
import { setBreakpointIn } from "./attachScenario.mjs";
import { waitFor } from "./processes.mjs";
import * as workbench from "./workbench.mjs";

const FILE = "pricing.py";
const BREAKPOINT_LINE = 8;
const FIRST_LINE = 7;
const EDIT = { line: 7, text: "rate = 50" };
const FRAMES = ["discounted", "main", "<module>"];
const RELOADED = "Hot reload of pricing.py (__main__)";
// The exit code is the total less 90: 10 with the new rate, 90 with the old one.
const EXIT = "Process exited with code 10.";

/** The Call Stack view's rows: a frame's function name, or the row's text (threads, "Load More Stack Frames"). */
export async function callStackRows(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll(".debug-call-stack .monaco-list-row")].map((row) => {
      const frame = row.querySelector(".stack-frame .label");
      return frame ? (frame.textContent ?? "").trim() : (row.textContent ?? "").trim();
    }),
  );
}

/** Just the frames of the Call Stack view, or why not: a row such as "Load More Stack Frames" among them. */
async function shownFrames(page) {
  const rows = await callStackRows(page);
  const more = rows.find((row) => /Load (More|All) Stack Frames/i.test(row));
  const frames = await page.evaluate(() => [...document.querySelectorAll(".debug-call-stack .monaco-list-row .stack-frame .label")].map((label) => (label.textContent ?? "").trim()));
  return { rows, frames, more };
}

function sameList(actual, expected) {
  return actual.length === expected.length && actual.every((item, index) => item === expected[index]);
}

/**
 * Runs the scenario. `context`: begin(name), log(text), artifacts, stepMs,
 * waitForDebugger(page, what, probe).
 */
export async function scenarioEditAndContinue(page, context) {
  const { begin, log, artifacts, stepMs, waitForDebugger } = context;
  const start = (name) => {
    begin(name);
    log(name);
  };
  // VS Code fetches a stack again in two requests (the top frame, then the rest 420 ms
  // later) and shows the stale frames in between: the frames must still be there, alone,
  // once that is over, and stay so.
  const expectFrames = async (what) => {
    let last;
    let since;
    await waitFor(`the Call Stack to show ${FRAMES.join(", ")} ${what}, for 2 s`, async () => {
      last = await shownFrames(page);
      if (!sameList(last.frames, FRAMES) || last.more) since = undefined;
      else since ??= Date.now();
      return since !== undefined && Date.now() - since >= 2_000;
    }, 15_000).catch((error) => {
      throw new Error(`${error.message}; it shows ${JSON.stringify(last?.rows)}`);
    });
  };

  start(`open ${FILE}, set a breakpoint on its line ${BREAKPOINT_LINE}, show Run and Debug with its Call Stack open`);
  await setBreakpointIn(page, FILE, BREAKPOINT_LINE, stepMs);
  await page.keyboard.press("Control+Shift+D");
  // An earlier scenario may have left the section collapsed: its body is then hidden, so the
  // header is opened first.
  const header = page.locator(".pane-header", { hasText: "Call Stack" }).first();
  await waitFor("the Call Stack section's header", () => header.isVisible(), stepMs);
  if ((await header.getAttribute("aria-expanded")) === "false") await header.click({ timeout: 5_000 });
  await waitFor("the Call Stack view to be visible", () => page.locator(".debug-call-stack").first().isVisible(), stepMs);

  start(`"Dapper: Debug Python File": the session stops on line ${BREAKPOINT_LINE} in discounted()`);
  await workbench.focusEditor(page);
  await workbench.runPaletteCommand(page, "Dapper: Debug Python File");
  await waitForDebugger(page, `the editor to show the paused line ${BREAKPOINT_LINE}`, async () => sameList(await workbench.pausedLines(page), [BREAKPOINT_LINE]));
  await expandScopeIfNeeded(page, "price = 200", waitForDebugger, log);
  await expectFrames("at the breakpoint");

  start(`edit line ${EDIT.line} to "${EDIT.text}" and press Ctrl+Alt+R: the Call Stack still shows every frame`);
  await workbench.replaceLineText(page, EDIT.line, EDIT.text);
  await page.keyboard.press("Control+Alt+R");
  await waitForDebugger(page, `the notification "${RELOADED} …: 1 definition updated."`, async () =>
    (await workbench.notifications(page)).some((toast) => toast.message.includes(RELOADED) && toast.message.includes("1 definition updated")),
  );
  // The reload invalidates the stacks: VS Code fetches them again, the top frame first and
  // the rest a moment later.
  await expectFrames("after the reload");

  start("right-click discounted in the Call Stack → Restart Frame: paused on its first line, the stack as deep");
  await page.locator(".debug-call-stack .monaco-list-row", { has: page.locator(".stack-frame .label", { hasText: /^discounted$/ }) }).first().click({ button: "right", timeout: 10_000 });
  await chooseFromContextMenu(page, "Restart Frame");
  await waitForDebugger(page, `the editor to show the paused line ${FIRST_LINE}`, async () => sameList(await workbench.pausedLines(page), [FIRST_LINE]));
  await expectFrames("after the restart");

  start("F10 twice: the Variables view shows the new code's rate = 50 and cut = 100");
  await workbench.focusEditor(page);
  await page.keyboard.press("F10");
  await waitForDebugger(page, `the paused line ${BREAKPOINT_LINE}`, async () => sameList(await workbench.pausedLines(page), [BREAKPOINT_LINE]));
  await workbench.focusEditor(page);
  await page.keyboard.press("F10");
  await waitForDebugger(page, `the paused line ${BREAKPOINT_LINE + 1}`, async () => sameList(await workbench.pausedLines(page), [BREAKPOINT_LINE + 1]));
  await waitForDebugger(page, "the Variables view to show price = 200, rate = 50, cut = 100", async () => {
    const rows = await workbench.variableRows(page);
    return ["price = 200", "rate = 50", "cut = 100"].every((row) => rows.includes(row));
  });
  await workbench.focusEditor(page);
  await page.screenshot({ path: path.join(artifacts, "vscode-edit-continue.png") });

  start(`F5: the program ends with the new code's result: "${EXIT}"`);
  await workbench.clickGutter(page, BREAKPOINT_LINE);
  await page.keyboard.press("F5");
  await waitForDebugger(page, `the debug console to show "${EXIT}"`, async () => (await workbench.consoleRows(page)).some((row) => row.includes(EXIT)));
  await waitFor("the debug toolbar to go away (the session ended)", async () => !(await workbench.debugToolbarVisible(page)), stepMs);
}

/**
 * Clicks `label` in the context menu just opened. A menu ignores a click that comes too soon
 * after it opened (VS Code keeps the right-click's release from choosing an item): if the
 * menu is still there a moment later, the click is made again.
 */
async function chooseFromContextMenu(page, label) {
  const menu = page.locator(".context-view .monaco-menu");
  const item = menu.locator(".action-item", { hasText: label }).first();
  for (let attempt = 1; ; attempt++) {
    await item.click({ timeout: 10_000 });
    try {
      await menu.waitFor({ state: "hidden", timeout: 2_000 });
      return;
    } catch (error) {
      if (attempt === 3) throw new Error(`the context menu stayed open after ${attempt} clicks on "${label}"`, { cause: error });
    }
  }
}

/** Waits for the Variables view to show `row`, clicking Locals open if VS Code left it collapsed. */
async function expandScopeIfNeeded(page, row, waitForDebugger, log) {
  const shownAt = Date.now();
  let clicked = false;
  await waitForDebugger(page, `the Variables view to show ${row}`, async () => {
    if ((await workbench.variableRows(page)).includes(row)) return true;
    if (!clicked && Date.now() - shownAt > 5_000) {
      clicked = await workbench.expandScope(page, "Locals");
      if (clicked) log("Locals was collapsed; clicked it open");
    }
    return false;
  });
}
