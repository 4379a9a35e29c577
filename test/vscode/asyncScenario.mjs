/* global document -- tasksViewRows and callStackHeader run inside the page (page.evaluate), not in Node */
// Scenario 9 of the real-VS-Code test: asyncio. workspace/fetcher.py gathers three named
// tasks that each run fetch(); a breakpoint in fetch() and "Dapper: Debug Python File"
// stop it in the first task. The Call Stack shows the coroutine's frames, then the label
// naming the task that awaits it and that task's frame, then the label of the event loop
// and the module; the thread says which task stopped. The Tasks view of Run and Debug
// lists the tasks with what each does, and a waiting task opens into its own call stack
// (screenshot vscode-async.png). F5 runs the rest: the breakpoint, cleared, lets the
// program end with every task's result in its exit code.
import path from "node:path";
import { setBreakpointIn } from "./attachScenario.mjs";
import { callStackRows } from "./editContinueScenario.mjs";
import { waitFor } from "./processes.mjs";
import * as workbench from "./workbench.mjs";

const FILE = "fetcher.py";
const BREAKPOINT_LINE = 10;
// The Call Stack's rows under the thread: frames by function name, labels by their text.
const FRAMES = ["fetch", "worker", "awaited by Task 'Task-1' (asyncio.gather)", "main", "event loop (asyncio.run)", "<module>"];
const STOPPED_TASK = "fetch-alpha";
// The Tasks view: each task's name and description.
const TASKS = [
  ["Task-1", "waiting on asyncio.gather (3 awaitables)"],
  ["fetch-alpha", "running"],
  ["fetch-beta", "ready to run"],
  ["fetch-gamma", "ready to run"],
];
// A waiting task opened in the Tasks view: its frames where it waits, then its awaiter.
const OPENED = "fetch-beta";
const OPENED_STACK = ["fetch", "worker", "awaited by Task 'Task-1' (asyncio.gather)", "main"];
// The program's exit code is the sum of every task's result, in hundreds.
const EXIT = "Process exited with code 14.";

/** The rows of the Tasks view (the side bar's section titled Tasks): label and description, and how deep each is. */
export async function tasksViewRows(page) {
  return page.evaluate(() => {
    const pane = [...document.querySelectorAll(".pane")].find((candidate) => (candidate.querySelector(".pane-header .title")?.textContent ?? "").trim() === "Tasks");
    if (!pane) return [];
    return [...pane.querySelectorAll(".pane-body .monaco-list-row")].map((row) => ({
      label: (row.querySelector(".label-name")?.textContent ?? "").trim(),
      description: (row.querySelector(".label-description")?.textContent ?? "").trim(),
      level: Number(row.getAttribute("aria-level") ?? 0),
    }));
  });
}

/**
 * Drags the sash above the side bar's section `title` up to `y` pixels, so that the
 * section has room for all its rows (a tree draws only the rows it has room for).
 */
async function raiseSection(page, title, y) {
  const at = await page.evaluate((title) => {
    const header = [...document.querySelectorAll(".pane-header")].find((candidate) => (candidate.querySelector(".title")?.textContent ?? "").trim() === title);
    if (!header) return null;
    const top = header.getBoundingClientRect().top;
    const sashes = [...document.querySelectorAll(".part.sidebar .monaco-sash.horizontal")].map((sash) => sash.getBoundingClientRect()).filter((rect) => rect.width > 100);
    sashes.sort((a, b) => Math.abs(a.top - top) - Math.abs(b.top - top));
    const sash = sashes[0];
    return sash ? { x: sash.left + sash.width / 2, y: sash.top + sash.height / 2 } : null;
  }, title);
  if (!at) return;
  await page.mouse.move(at.x, at.y);
  await page.mouse.down();
  await page.mouse.move(at.x, at.y - 20, { steps: 2 });
  await page.mouse.move(at.x, y, { steps: 8 });
  await page.mouse.up();
}

/** The text of the Call Stack section's header (its title, and the paused state VS Code shows beside it). */
async function callStackHeader(page) {
  return page.evaluate(() => {
    const header = [...document.querySelectorAll(".pane-header")].find((candidate) => (candidate.querySelector(".title")?.textContent ?? "").trim() === "Call Stack");
    return (header?.textContent ?? "").trim();
  });
}

function sameList(actual, expected) {
  return actual.length === expected.length && actual.every((item, index) => item === expected[index]);
}

/**
 * Runs the scenario. `context`: begin(name), log(text), artifacts, stepMs,
 * waitForDebugger(page, what, probe).
 */
export async function scenarioAsyncio(page, context) {
  const { begin, log, artifacts, stepMs, waitForDebugger } = context;
  const start = (name) => {
    begin(name);
    log(name);
  };
  const openSection = async (title) => {
    const header = page.locator(".pane-header", { hasText: title }).first();
    await waitFor(`the ${title} section's header`, () => header.isVisible(), stepMs);
    if ((await header.getAttribute("aria-expanded")) === "false") await header.click({ timeout: 5_000 });
  };

  start(`open ${FILE}, set a breakpoint on its line ${BREAKPOINT_LINE} in fetch(), show Run and Debug`);
  await setBreakpointIn(page, FILE, BREAKPOINT_LINE, stepMs);
  await page.keyboard.press("Control+Shift+D");
  await openSection("Call Stack");

  start(`"Dapper: Debug Python File": the session stops on line ${BREAKPOINT_LINE} in Task '${STOPPED_TASK}'`);
  await workbench.focusEditor(page);
  await workbench.runPaletteCommand(page, "Dapper: Debug Python File");
  await waitForDebugger(page, `the editor to show the paused line ${BREAKPOINT_LINE}`, async () => sameList(await workbench.pausedLines(page), [BREAKPOINT_LINE]));

  start(`the Call Stack shows ${FRAMES.join(" | ")}, and the thread names Task '${STOPPED_TASK}'`);
  let rows = [];
  await waitForDebugger(page, "the async call stack", async () => {
    rows = await callStackRows(page);
    const frames = rows.slice(rows.findIndex((row) => row === FRAMES[0]));
    // The stop's description is on the thread's row, or, for a session of one thread,
    // in the section's header.
    return sameList(frames, FRAMES) && [...rows, await callStackHeader(page)].some((text) => text.includes(`Task '${STOPPED_TASK}'`));
  }).catch((error) => {
    throw new Error(`${error.message}; it shows ${JSON.stringify(rows)}`);
  });

  start(`the Tasks view lists ${TASKS.map(([name, description]) => `${name} (${description})`).join(", ")}`);
  // Room for the tasks' descriptions and both stacks in the screenshot.
  await workbench.widenSideBar(page, 640);
  await workbench.collapseSections(page, ["Variables", "Watch", "Loaded Scripts", "Breakpoints"]);
  await openSection("Tasks");
  // The Call Stack needs six rows; the Tasks view gets the rest of the height.
  await raiseSection(page, "Tasks", 380);
  let listed = [];
  await waitForDebugger(page, "the Tasks view's tasks", async () => {
    listed = (await tasksViewRows(page)).filter((row) => row.level === 1);
    return sameList(
      listed.map((row) => `${row.label}: ${row.description}`),
      TASKS.map(([name, description]) => `${name}: ${description}`),
    );
  }).catch((error) => {
    throw new Error(`${error.message}; it lists ${JSON.stringify(listed)}`);
  });

  start(`${OPENED} opened in the Tasks view shows its stack: ${OPENED_STACK.join(" | ")}`);
  let opened = [];
  await waitForDebugger(page, `${OPENED}'s stack in the Tasks view`, async () => {
    const all = await tasksViewRows(page);
    const at = all.findIndex((row) => row.level === 1 && row.label === OPENED);
    opened = all.slice(at + 1).filter((row, index, rest) => rest.slice(0, index + 1).every((earlier) => earlier.level === 2)).map((row) => row.label);
    if (sameList(opened, OPENED_STACK)) return true;
    if (at >= 0 && opened.length === 0) {
      const row = page.locator(".pane-body .monaco-list-row[aria-level='1'][aria-expanded='false']", { hasText: OPENED }).first();
      // The twistie: a click on the row runs its command (shows the task's line).
      if ((await row.count()) > 0) await row.locator(".monaco-tl-twistie").click({ timeout: 5_000 });
    }
    return false;
  }).catch((error) => {
    throw new Error(`${error.message}; it shows ${JSON.stringify(opened)}`);
  });
  await workbench.focusEditor(page);
  // The side bar and the paused line (docs/async.md shows it).
  await page.screenshot({ path: path.join(artifacts, "vscode-async.png"), clip: { x: 0, y: 0, width: 1100, height: 620 } });

  start(`the breakpoint cleared, F5: "${EXIT}"`);
  await workbench.clickGutter(page, BREAKPOINT_LINE);
  await waitFor(`no breakpoint glyph on line ${BREAKPOINT_LINE}`, async () => !(await workbench.breakpointLines(page)).includes(BREAKPOINT_LINE), stepMs);
  await page.keyboard.press("F5");
  await waitForDebugger(page, `the debug console to show "${EXIT}"`, async () => (await workbench.consoleRows(page)).some((row) => row.includes(EXIT)));
  await waitFor("the debug toolbar to go away (the session ended)", async () => !(await workbench.debugToolbarVisible(page)), stepMs);
}
