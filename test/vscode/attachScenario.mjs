// Scenario 3 of the real-VS-Code test: attach to a running process picked from a list.
// sleeper.py is started outside the debugger; a breakpoint is set in it; "Dapper: Attach
// to Process" from the command palette shows the picker, the test types part of the
// program's name, checks the row (pid, whole command line), takes a screenshot and picks
// it. The session attaches and stops at the breakpoint, and Shift+F5 detaches. The same
// again through a launch.json configuration with "processId": "${command:pickProcess}",
// started as "Debug: Select and Start Debugging" does, after cancelling the picker once
// (which must start nothing). Then the refresh button lists a second run started
// meanwhile, and a run launched under Dapper is marked as debugged. The first program runs
// on after all of it.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { delay, waitFor } from "./processes.mjs";
import * as workbench from "./workbench.mjs";

const PROGRAM = "sleeper.py";
const BREAKPOINT_LINE = 9;
const COMMAND_TITLE = "Dapper: Attach to Process";
const PICKER_CONFIGURATION = "Dapper: attach to a picked process";
const REFRESH_TOOLTIP = "Refresh the list";
const DEBUGGED_MARK = "being debugged by Dapper";
const DEBUG_FILE_TITLE = "Dapper: Debug Python File";


/**
 * Runs the scenario. `context`: begin(name) counts the steps, log(text), python (the
 * interpreter to start the program with), workspace, userData (code-server's, whose logs
 * hold the Dapper output channel), artifacts (the screenshot folder), stepMs, and
 * waitForDebugger(page, what, probe), which fails at once on an error dialog.
 */
export async function scenarioAttachToProcess(page, context) {
  const { begin, log, python, workspace, artifacts, stepMs } = context;
  const start = (name) => {
    begin(name);
    log(name);
  };
  const script = path.join(workspace, PROGRAM);
  const program = await startProgram(python, script, workspace);
  // A second run of the program, started while the picker is open.
  let later;
  try {
    start(`start ${PROGRAM} outside the debugger and set a breakpoint on its line ${BREAKPOINT_LINE}`);
    log(`${PROGRAM} runs as pid ${program.pid}`);
    await setBreakpointIn(page, PROGRAM, BREAKPOINT_LINE, stepMs);

    start(`"${COMMAND_TITLE}" from the command palette; typing "${PROGRAM}" shows the program with its pid and command line`);
    await openPicker(page, () => workbench.runPaletteCommand(page, COMMAND_TITLE), stepMs);
    await findRow(page, program, stepMs);
    await page.screenshot({ path: path.join(artifacts, "vscode-attach-picker.png") });
    await pickAndExpect(page, program, `"processId":${program.pid}`, context, "vscode-attach");

    start(`launch.json's "processId": "\${command:pickProcess}": cancelling the picker starts nothing`);
    writeFileSync(
      path.join(workspace, ".vscode", "launch.json"),
      JSON.stringify({ version: "0.2.0", configurations: [{ name: PICKER_CONFIGURATION, type: "dapper", request: "attach", processId: "${command:pickProcess}" }] }, null, 2),
    );
    // VS Code reads launch.json through its file watcher; nothing on the page shows when.
    await delay(2_000);
    const selectAndStart = () => workbench.startDebugConfiguration(page, PICKER_CONFIGURATION);
    await openPicker(page, selectAndStart, stepMs);
    await findRow(page, program, stepMs);
    await page.keyboard.press("Escape");
    await delay(2_000);
    if ((await workbench.dialogText(page)) !== undefined || (await workbench.debugToolbarVisible(page))) throw new Error("cancelling the picker started a session or showed an error");

    start(`launch.json's "processId": "\${command:pickProcess}": picking the program attaches with its pid as a string`);
    await openPicker(page, selectAndStart, stepMs);
    await findRow(page, program, stepMs);
    await pickAndExpect(page, program, `"processId":"${program.pid}"`, context, "vscode-attach-variable");

    start("the refresh button lists a program started after the picker opened");
    await openPicker(page, () => workbench.runPaletteCommand(page, COMMAND_TITLE), stepMs);
    await findRow(page, program, stepMs);
    later = await startProgram(python, script, workspace);
    if ((await workbench.quickPick(page)).rows.some((row) => later.pidPattern.test(row.description))) throw new Error("the new program is listed before the refresh");
    await workbench.clickQuickPickButton(page, REFRESH_TOOLTIP);
    await waitFor(`a row with pid ${later.pid} after the refresh`, async () => (await workbench.quickPick(page))?.rows.some((row) => later.pidPattern.test(row.description)), stepMs);
    await page.keyboard.press("Escape");

    start(`a program that a Dapper session debugs is marked: ${PROGRAM} launched with "${DEBUG_FILE_TITLE}"`);
    await workbench.runEditorTitleCommand(page, DEBUG_FILE_TITLE);
    await context.waitForDebugger(page, `the launched ${PROGRAM} to stop on line ${BREAKPOINT_LINE}`, async () => sameLines(await workbench.pausedLines(page), [BREAKPOINT_LINE]));
    await openPicker(page, () => workbench.runPaletteCommand(page, COMMAND_TITLE), stepMs);
    await workbench.typeInQuickPick(page, PROGRAM);
    const marked = await waitFor(
      `a row marked "${DEBUGGED_MARK}"`,
      async () => (await workbench.quickPick(page))?.rows.find((row) => row.description.includes(DEBUGGED_MARK)),
      stepMs,
    );
    const unmarked = (await workbench.quickPick(page)).rows.filter((row) => [program, later].some(({ pidPattern }) => pidPattern.test(row.description)));
    if (unmarked.length !== 2 || unmarked.some((row) => row.description.includes(DEBUGGED_MARK))) {
      throw new Error(`the programs started outside the debugger are not listed unmarked: ${JSON.stringify(unmarked)}`);
    }
    await page.screenshot({ path: path.join(artifacts, "vscode-attach-marked.png") });
    log(`the launched program's row: ${marked.label} | ${marked.description}`);
    await page.keyboard.press("Escape");
    await workbench.focusEditor(page);
    await page.keyboard.press("Shift+F5");
    await waitFor("the debug toolbar to go away (the session ended)", async () => !(await workbench.debugToolbarVisible(page)), stepMs);

    start(`${PROGRAM} runs on`);
    if (!program.running()) throw new Error(`${PROGRAM} ended: ${program.output()}`);
  } finally {
    program.stop();
    later?.stop();
  }
}

/** Opens `file` in the editor with Quick Open, retried: the workbench may still be settling. */
export async function openInEditor(page, file, stepMs) {
  await waitFor(
    `${file} to open in the editor`,
    async () => {
      if (await workbench.editorShows(page, file)) return true;
      await workbench.quickOpen(page, file);
      return waitFor("the editor", () => workbench.editorShows(page, file), 5_000).catch(() => false);
    },
    stepMs,
    1_000,
  );
}

/** Opens `file` in the editor (openInEditor) and sets a breakpoint on `line` by clicking the gutter. */
export async function setBreakpointIn(page, file, line, stepMs) {
  await openInEditor(page, file, stepMs);
  await workbench.clickGutter(page, line);
  await waitFor(`a breakpoint glyph on line ${line}`, async () => (await workbench.breakpointLines(page)).includes(line), stepMs);
}

function sameLines(actual, expected) {
  return actual.length === expected.length && actual.every((line, index) => line === expected[index]);
}

/** Opens the picker with `open` (retried until the picker shows). */
async function openPicker(page, open, stepMs) {
  await waitFor(
    `the quick pick "${COMMAND_TITLE}"`,
    async () => {
      if ((await workbench.quickPick(page))?.title === COMMAND_TITLE) return true;
      await open();
      return waitFor("the picker", async () => (await workbench.quickPick(page))?.title === COMMAND_TITLE, 5_000).catch(() => false);
    },
    stepMs,
    1_000,
  );
}

/**
 * Types the program's name into the picker and checks its row: the first one, labelled
 * with the interpreter's name, described with its pid, with the whole command line.
 */
async function findRow(page, program, stepMs) {
  await workbench.typeInQuickPick(page, PROGRAM);
  const row = await waitFor(
    `a row with pid ${program.pid} and the command line "${program.commandLine}"`,
    async () => (await workbench.quickPick(page))?.rows.find((candidate) => program.pidPattern.test(candidate.description)),
    stepMs,
  );
  if (!row.text.includes(program.commandLine)) throw new Error(`the row says ${JSON.stringify(row.text)}, without the command line ${JSON.stringify(program.commandLine)}`);
  if (!/^python/i.test(row.label)) throw new Error(`the row's label is ${JSON.stringify(row.label)}, not the interpreter's name`);
  const rows = (await workbench.quickPick(page)).rows;
  if (rows[0]?.description !== row.description) throw new Error(`the program is not the first row: ${JSON.stringify(rows.map((r) => r.text))}`);
}

/**
 * Clicks the program's row, then checks what attaching does: `request` (the pid as the
 * attach request carried it) in the Dapper log, a stop at the breakpoint, and a detach.
 * The screenshot is `<shot>-stopped.png`.
 */
async function pickAndExpect(page, program, request, { log, artifacts, stepMs, userData, waitForDebugger }, shot) {
  await page.locator(".quick-input-list .monaco-list-row", { hasText: program.pidPattern }).first().click({ timeout: 10_000 });
  await waitFor(`the Dapper log to show an attach request with ${request}`, () => dapperLogContains(userData, request), stepMs);
  log(`the session stops on line ${BREAKPOINT_LINE} of ${PROGRAM}`);
  await waitForDebugger(page, `the editor to show the paused line ${BREAKPOINT_LINE}`, async () => {
    const lines = await workbench.pausedLines(page);
    return lines.length === 1 && lines[0] === BREAKPOINT_LINE;
  });
  await waitForDebugger(page, "the Variables view to show ticks", async () => (await workbench.variableRows(page)).some((text) => text.startsWith("ticks = ")));
  await page.screenshot({ path: path.join(artifacts, `${shot}-stopped.png`) });
  log("Shift+F5 detaches: the session ends");
  await workbench.focusEditor(page);
  await page.keyboard.press("Shift+F5");
  await waitFor("the debug toolbar to go away (the session ended)", async () => !(await workbench.debugToolbarVisible(page)), stepMs);
}

/** Starts the program and waits for its first line; the result can say whether it still runs. */
async function startProgram(python, script, cwd) {
  const child = spawn(python, [script], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const stop = () => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL");
  // Should the whole test be ended (its watchdog), the program goes with it.
  process.once("exit", stop);
  await waitFor(`${path.basename(script)} to start`, () => {
    if (child.exitCode !== null) throw Object.assign(new Error(`${script} exited: ${output}`), { fatal: true });
    return output.includes("is running");
  }, 30_000);
  return {
    pid: child.pid,
    // Not \b: in a row's whole text the label runs into the description ("python3pid 42").
    pidPattern: new RegExp(`pid ${child.pid}(?!\\d)`),
    // What ps shows: argv joined by spaces.
    commandLine: `${python} ${script}`,
    output: () => output,
    running: () => child.exitCode === null && child.signalCode === null,
    stop: () => {
      process.removeListener("exit", stop);
      stop();
    },
  };
}

/** Whether a Dapper output channel log under code-server's logs contains `text`. */
export function dapperLogContains(userData, text) {
  return logFiles(path.join(userData, "logs")).some((file) => path.basename(file).includes("Dapper") && readFileSync(file, "utf8").includes(text));
}

function logFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    return statSync(full).isDirectory() ? logFiles(full) : [full];
  });
}
