// The real-VS-Code test: installs the built .vsix into code-server (VS Code in the
// browser), opens the fixture workspace test/vscode/workspace/ in headless Chromium and
// debugs inventory.py the way a user does. Scenario 1, with the fixture's launch.json: a
// breakpoint by clicking the gutter, F5, the paused line, the Variables view, F10, the
// debug console, an edit of the paused program hot reloaded with Ctrl+Alt+R, and the
// new behaviour and exit code at the end. Scenario 2, without launch.json: an
// interpreter that does not exist gets an error with a "Select Interpreter" button, the
// button's list writes dapper.python, and the editor title's "Debug Python File" then
// stops at the breakpoint. Scenario 3 (attachScenario.mjs): "Dapper: Attach to Process"
// picks a program started outside the debugger from the list.
//
// Scenario 4 (autoAttachScenario.mjs): terminal auto-attach debugs a program typed in a
// terminal.
//
// Scenario 6 (debugTestScenario.mjs): the Testing view's Debug Test, started by the
// stand-in Python extension as a `debugpy` configuration, runs under Dapper once the user
// answers Dapper's one question (the stand-in Python Debugger is installed); then a
// breakpoint set in a jinja-html template's gutter stops a `debugpy` launch.json
// configuration with "jinja": true, which starts without asking again.
//
// Scenario 5 (presentersScenario.mjs): a DataFrame and a numpy array in the Variables view,
// and completions in the debug console.
//
// Scenario 7 (editContinueScenario.mjs): edit a paused function, Ctrl+Alt+R, Restart Frame
// from the Call Stack's context menu, step through the new code.
//
// Scenario 9 (asyncScenario.mjs): asyncio's call stack through the awaiting task, and the
// Tasks view.
//
// Scenario 10 (childrenScenario.mjs): a program's child processes, each attached in a
// session of its own; one stops at a breakpoint, the others run through.
//
// Usage: node test/vscode/run.mjs [--vsix PATH] [--readme-screenshot] [--keep] [--only-auto-attach] [--only-debug-test] [--only-presenters] [--only-edit-continue] [--only-async] [--only-children]
//   --vsix PATH            the .vsix to test (default: dapper-<version>.vsix at the root,
//                          made by `npm run package`)
//   --readme-screenshot    also writes the paused state to images/screenshot-paused.png
//   --keep                 keeps the temporary directory (workspace copy, VS Code's logs)
//   --only-auto-attach     runs scenario 4 alone
//   --only-debug-test      runs scenario 6 alone
//   --only-presenters      runs scenario 5 alone
//   --only-edit-continue   runs scenario 7 alone
//   --only-agent-tools     runs scenario 8 (agentToolsScenario.mjs) alone
//   --only-async           runs scenario 9 alone
//   --only-children        runs scenario 10 alone
// Environment: DAPPER_VSCODE_PYTHON, the interpreter the session must run under: the
// stand-in Python extension (fake-python-extension/) names it, while `dapper.python`
// names another, which must lose (default: the newest CPython that is not python3 on PATH).
// Exit code 0 only when every check passed. Screenshots go to test/artifacts/.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ensurePythonTestEnv, findPythons, isSidWrapper } from "../../scripts/lib.mjs";
import { sidGdb } from "../../scripts/sid.mjs";
import { scenarioAgentTools } from "./agentToolsScenario.mjs";
import { scenarioAsyncio } from "./asyncScenario.mjs";
import { scenarioAttachToProcess } from "./attachScenario.mjs";
import { scenarioAutoAttach } from "./autoAttachScenario.mjs";
import { scenarioChildren } from "./childrenScenario.mjs";
import { scenarioDebugTest } from "./debugTestScenario.mjs";
import { scenarioEditAndContinue } from "./editContinueScenario.mjs";
import { scenarioPresenters } from "./presentersScenario.mjs";
import { delay, freePort, runBounded, startGroup, waitFor, watchdog, withTimeout } from "./processes.mjs";
import { setup } from "./setup.mjs";
import * as workbench from "./workbench.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..");
const artifacts = path.join(root, "test", "artifacts");

// The scenario: the fixture's breakpoint line, the line F10 reaches, what the Variables
// view and the program's end must show.
const BREAKPOINT_LINE = 16;
const STEPPED_LINE = 17;
const EXPECTED_LOCAL = "label = 'crates'";
const EVALUATE = { expression: "count * 10", result: "30" };
// Hot reload while paused: total() is edited in the editor (on the same line), Ctrl+Alt+R
// reloads it, and the rest of the run uses the new code: the amount doubles (12 -> 24),
// so the exit code, amount - 9, is 15 instead of 3.
const HOT_RELOAD = { line: 9, text: "result += 2 * price", message: "Hot reload of inventory.py (__main__)" };
const EXIT_CODE = 15;
const DEBUG_FILE_TITLE = "Dapper: Debug Python File";
const SELECT_TITLE = "Dapper: select a Python interpreter";

// Generous limits: the machine is shared, and the first start of code-server is slow.
const LIMITS = {
  whole: 14 * 60_000,
  install: 180_000,
  server: 60_000,
  workbench: 120_000,
  step: 60_000,
};

function option(name) {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

function log(text) {
  console.log(`[vscode-test] ${text}`);
}

function defaultVsix() {
  const { name, version } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  return path.join(root, `${name}-${version}.vsix`);
}

// Two interpreters, neither python3 on PATH when the machine has enough: the one the
// stand-in Python extension names (which the session must run under, as the program's
// output shows) and another in the `dapper.python` setting, which must lose to it.
function choosePythons() {
  const pythons = findPythons({ minimum: "3.9" });
  let onPath;
  try {
    onPath = pythonVersionOf("python3");
  } catch {
    onPath = undefined;
  }
  const preferred = pythons.filter((python) => python.version !== onPath).map((python) => python.executable);
  const candidates = preferred.length > 0 ? preferred : pythons.map((python) => python.executable);
  const fromExtension = process.env.DAPPER_VSCODE_PYTHON ?? candidates.at(-1);
  if (!fromExtension) throw new Error("no CPython 3.9 or newer found; set DAPPER_VSCODE_PYTHON");
  const fromSetting = candidates.filter((python) => python !== fromExtension).at(-1) ?? fromExtension;
  return { fromExtension, fromSetting };
}

function pythonVersionOf(executable) {
  return runBounded(executable, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { timeoutMs: 20_000 }).trim();
}

// User settings for a quiet, predictable workbench: no trust prompt, no welcome page or
// walkthrough, no AI side bar, and the debug console opened by each session.
function userSettings(pythons, sessionLogs) {
  return {
    "security.workspace.trust.enabled": false,
    "workbench.startupEditor": "none",
    "workbench.welcomePage.walkthroughs.openOnInstall": false,
    "workbench.tips.enabled": false,
    "workbench.enableExperiments": false,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "chat.disableAIFeatures": true,
    "telemetry.telemetryLevel": "off",
    "extensions.ignoreRecommendations": true,
    "extensions.autoUpdate": false,
    "extensions.autoCheckUpdates": false,
    "update.mode": "none",
    "editor.minimap.enabled": false,
    "debug.internalConsoleOptions": "openOnSessionStart",
    "debug.console.closeOnEnd": false,
    "dapper.python": pythons.fromSetting,
    "dapperTest.activeInterpreter": pythons.fromExtension,
    // Every engine input and output goes to the Dapper output channel's log file, which
    // --keep leaves behind for a failure to be read from.
    "dapper.logLevel": "trace",
    // Session logs (docs/session-logs.md): the first scenario's is replayed after it.
    "dapper.trace": sessionLogs,
  };
}

async function main() {
  const started = Date.now();
  const vsix = path.resolve(option("--vsix") ?? defaultVsix());
  if (!existsSync(vsix)) throw new Error(`${vsix} does not exist: run \`npm run package\` first`);
  const bundle = path.join(root, "dist", "extension.js");
  if (existsSync(bundle) && statSync(bundle).mtimeMs > statSync(vsix).mtimeMs) {
    log(`NOTE: ${path.relative(root, vsix)} is older than dist/extension.js; \`npm run package\` makes a fresh one`);
  }
  const tools = setup();
  const { chromium } = await import(pathToFileURL(tools.playwright).href);
  const pythons = choosePythons();
  const pythonVersion = pythonVersionOf(pythons.fromExtension);
  log(`testing ${path.relative(root, vsix)}`);
  log(`interpreters: Python ${pythonVersion} from the stand-in Python extension (${pythons.fromExtension}), ${pythons.fromSetting} in dapper.python`);
  if (pythonVersion === pythonVersionOf(pythons.fromSetting)) log("NOTE: only one usable interpreter version, so the extension's precedence over the setting is not proven");

  const scratch = mkdtempSync(path.join(tmpdir(), "dapper-vscode-"));
  const keep = process.argv.includes("--keep");
  const dirs = {
    userData: path.join(scratch, "user-data"),
    extensions: path.join(scratch, "extensions"),
    browser: path.join(scratch, "chromium"),
    workspace: path.join(scratch, "workspace"),
  };
  // The fixture is copied so that nothing VS Code or the program writes lands in the repository.
  cpSync(path.join(here, "workspace"), dirs.workspace, { recursive: true });
  mkdirSync(path.join(dirs.userData, "User"), { recursive: true });
  const sessionLogs = path.join(scratch, "session-logs");
  writeFileSync(path.join(dirs.userData, "User", "settings.json"), JSON.stringify(userSettings(pythons, sessionLogs), null, 2));
  mkdirSync(artifacts, { recursive: true });

  let server;
  let context;
  const cleanup = async () => {
    if (context) await Promise.race([context.close().catch(() => undefined), delay(10_000)]);
    context = undefined;
    if (server) await server.stop();
    server = undefined;
    if (keep) log(`kept ${scratch} (code-server's logs are in user-data/logs/)`);
    else rmSync(scratch, { recursive: true, force: true });
  };
  const stopWatchdog = watchdog(LIMITS.whole, cleanup);

  const serverEnv = { ...process.env, PATH: `${path.dirname(tools.node)}${path.delimiter}${process.env.PATH ?? ""}` };
  // Attach by process id on 3.9-3.13 goes through gdb: sid's, where this machine has it
  // (Debian 12's kills the target on some CPUs).
  serverEnv.DAPPER_INJECT_DEBUGGER ??= sidGdb();
  const common = ["--user-data-dir", dirs.userData, "--extensions-dir", dirs.extensions];
  let page;
  // Each step is a check; a step is counted as passed when the next one begins.
  const tally = { passed: 0, failed: 0, skipped: 0 };
  let step;
  const begin = (name) => {
    if (step !== undefined) tally.passed++;
    step = name;
  };
  begin("install the .vsix");
  try {
    log(`${step}`);
    // The stand-ins, packaged on the fly: the Python extension, the Python Debugger (so
    // that Dapper asks who runs debugpy configurations) and the template languages.
    const standIns = ["fake-python-extension", "fake-debugpy-extension", "fake-template-languages"].map((folder) => {
      const standIn = path.join(scratch, `${folder}.vsix`);
      runBounded(
        path.join(root, "node_modules", ".bin", "vsce"),
        ["package", "--no-dependencies", "--allow-missing-repository", "--skip-license", "--out", standIn],
        { timeoutMs: LIMITS.install, env: process.env, cwd: path.join(here, folder) },
      );
      return standIn;
    });
    runBounded(tools.node, [tools.codeServer, ...common, "--install-extension", vsix, ...standIns.flatMap((standIn) => ["--install-extension", standIn])], {
      timeoutMs: LIMITS.install,
      env: serverEnv,
    });
    checkInstalledReadme(dirs.extensions);

    begin("start code-server");
    const port = await freePort();
    server = startGroup(
      tools.node,
      [
        tools.codeServer,
        ...common,
        "--bind-addr",
        `127.0.0.1:${port}`,
        "--auth",
        "none",
        "--disable-telemetry",
        "--disable-update-check",
        "--disable-workspace-trust",
        "--disable-getting-started-override",
        dirs.workspace,
      ],
      { env: serverEnv, name: "code-server" },
    );
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      `code-server to answer on ${base}/healthz`,
      async () => {
        if (server.hasExited()) throw new Error(`code-server exited:\n${server.output()}`);
        const response = await fetch(`${base}/healthz`).catch(() => undefined);
        return response?.ok;
      },
      LIMITS.server,
    );
    log(`${step}: listening on ${base} (pid ${server.pid})`);

    begin("open the workbench in Chromium");
    context = await withTimeout(
      "Chromium to start",
      chromium.launchPersistentContext(dirs.browser, {
        executablePath: tools.chromium,
        headless: true,
        viewport: { width: 1440, height: 900 },
        args: [
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
        ],
      }),
      LIMITS.step,
    );
    page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${base}/?folder=${encodeURIComponent(dirs.workspace)}`, { timeout: LIMITS.workbench });
    await waitFor("the workbench to load", () => page.locator(".monaco-workbench .part.editor").isVisible(), LIMITS.workbench);

    // A Python of the machine itself (not a sid wrapper), for programs started outside
    // the debugger.
    const plainPython = [pythons.fromExtension, ...findPythons({ minimum: "3.9" }).map((python) => python.executable).reverse()].find((python) => !isSidWrapper(python));
    const autoAttach = () =>
      scenarioAutoAttach(page, { begin, log, python: plainPython, workspace: dirs.workspace, userData: dirs.userData, artifacts, stepMs: LIMITS.step, waitForDebugger });
    const passed = () => {
      begin(undefined);
      log(`PASSED in ${((Date.now() - started) / 1000).toFixed(1)} s (screenshots in ${path.relative(root, artifacts)}/)`);
      printTally(tally);
      return 0;
    };
    // The pytest suites' environment (extension/python/requirements-test.txt: numpy,
    // pandas, Jinja2) of the newest Python of the machine itself: made once. Undefined,
    // saying why, when it cannot be made.
    const testEnvironment = (what) => {
      const host = findPythons({ minimum: "3.9" }).filter((python) => !isSidWrapper(python.executable)).at(-1);
      try {
        return ensurePythonTestEnv(host);
      } catch (error) {
        begin(undefined);
        tally.skipped++;
        log(`SKIPPED ${what}: the Python test environment could not be made: ${error.message}`);
        return undefined;
      }
    };
    const presenters = async () => {
      const python = testEnvironment("scenario 5 (numpy and pandas)");
      if (python) await scenarioPresenters(page, { begin, log, python, workspace: dirs.workspace, artifacts, stepMs: LIMITS.step, waitForDebugger });
    };
    const agentTools = () => scenarioAgentTools(page, { begin, log, workspace: dirs.workspace, artifacts, stepMs: LIMITS.step, waitForDebugger });
    if (process.argv.includes("--only-agent-tools")) {
      await agentTools();
      return passed();
    }
    const debugTest = () =>
      scenarioDebugTest(page, {
        begin,
        log,
        workspace: dirs.workspace,
        artifacts,
        stepMs: LIMITS.step,
        waitForDebugger,
        templatePython: () => testEnvironment("the template breakpoint of scenario 6 (Jinja2)"),
      });
    if (process.argv.includes("--only-debug-test")) {
      await debugTest();
      return passed();
    }
    if (process.argv.includes("--only-auto-attach")) {
      await autoAttach();
      return passed();
    }
    const editAndContinue = () => scenarioEditAndContinue(page, { begin, log, artifacts, stepMs: LIMITS.step, waitForDebugger });
    if (process.argv.includes("--only-edit-continue")) {
      await editAndContinue();
      return passed();
    }
    const asyncio = () => scenarioAsyncio(page, { begin, log, artifacts, stepMs: LIMITS.step, waitForDebugger });
    if (process.argv.includes("--only-async")) {
      await asyncio();
      return passed();
    }
    const children = () => scenarioChildren(page, { begin, log, workspace: dirs.workspace, artifacts, stepMs: LIMITS.step, waitForDebugger });
    if (process.argv.includes("--only-children")) {
      await children();
      return passed();
    }
    if (process.argv.includes("--only-presenters")) {
      await presenters();
      return passed();
    }

    begin("open inventory.py");
    // Quick Open, as a user would; retried because the workbench may still be settling.
    await waitFor(
      "inventory.py to open in the editor",
      async () => {
        if (await workbench.editorShows(page, "inventory.py")) return true;
        await workbench.quickOpen(page, "inventory.py");
        return waitFor("the editor", () => workbench.editorShows(page, "inventory.py"), 5_000).catch(() => false);
      },
      LIMITS.workbench,
      1_000,
    );

    begin(`set a breakpoint on line ${BREAKPOINT_LINE} by clicking the gutter`);
    log(step);
    await workbench.clickGutter(page, BREAKPOINT_LINE);
    await waitFor(`a breakpoint glyph on line ${BREAKPOINT_LINE}`, async () => (await workbench.breakpointLines(page)).includes(BREAKPOINT_LINE), LIMITS.step);

    // The Run and Debug view is opened first, as a user does: when VS Code opens it by
    // itself at the session's start, it can miss expanding the Locals scope (a race in
    // VS Code's Variables view, seen with code-server 4.139.1).
    begin("open the Run and Debug view");
    await page.keyboard.press("Control+Shift+D");
    await waitFor("the Variables view to be visible", () => page.locator(".debug-variables").first().isVisible(), LIMITS.step);

    begin(`F5: the session stops on line ${BREAKPOINT_LINE}`);
    log(step);
    await workbench.focusEditor(page);
    await page.keyboard.press("F5");
    await waitForDebugger(page, `the editor to show the paused line ${BREAKPOINT_LINE}`, async () => sameLines(await workbench.pausedLines(page), [BREAKPOINT_LINE]));

    begin(`the Variables view shows ${EXPECTED_LOCAL}`);
    log(step);
    // VS Code expands the first scope by itself; should it not have within a few seconds,
    // a user would click it open, and so does the test (saying so).
    const shownAt = Date.now();
    let clicked = false;
    await waitForDebugger(page, step, async () => {
      if ((await workbench.variableRows(page)).includes(EXPECTED_LOCAL)) return true;
      if (!clicked && Date.now() - shownAt > 5_000) {
        clicked = await workbench.expandScope(page, "Locals");
        if (clicked) log("Locals was collapsed; clicked it open");
      }
      return false;
    });
    // Focus back in the editor, so the screenshot shows the paused line, not a selected row.
    await workbench.focusEditor(page);
    await page.screenshot({ path: path.join(artifacts, "vscode-paused.png") });
    if (process.argv.includes("--readme-screenshot")) {
      await page.screenshot({ path: path.join(root, "images", "screenshot-paused.png") });
      log("wrote images/screenshot-paused.png");
    }

    begin(`F10: the paused line moves to ${STEPPED_LINE}`);
    log(step);
    await workbench.focusEditor(page);
    await page.keyboard.press("F10");
    await waitForDebugger(page, `the editor to show the paused line ${STEPPED_LINE}`, async () => sameLines(await workbench.pausedLines(page), [STEPPED_LINE]));
    await page.screenshot({ path: path.join(artifacts, "vscode-stepped.png") });

    begin(`the debug console evaluates ${EVALUATE.expression}`);
    log(step);
    const evaluation = await checkEvaluate(page);
    log(evaluation === "passed" ? `${step}: ${EVALUATE.result}` : `SKIPPED: ${step}: ${evaluation}`);
    if (evaluation !== "passed") {
      tally.skipped++;
      step = undefined;
    }

    begin(`edit total() on line ${HOT_RELOAD.line} and press Ctrl+Alt+R: the file is hot reloaded`);
    log(step);
    await workbench.replaceLineText(page, HOT_RELOAD.line, HOT_RELOAD.text);
    await page.keyboard.press("Control+Alt+R");
    let reloadMessage;
    await waitForDebugger(page, `the notification "${HOT_RELOAD.message} …: 1 definition updated."`, async () => {
      reloadMessage = (await workbench.notifications(page)).find((toast) => toast.message.includes(HOT_RELOAD.message))?.message;
      return reloadMessage?.includes("1 definition updated");
    });
    log(`${step}: ${reloadMessage}`);
    await waitForDebugger(page, "the reload's line in the debug console", async () => (await workbench.consoleRows(page)).some((row) => row.includes(HOT_RELOAD.message)));
    await page.screenshot({ path: path.join(artifacts, "vscode-hot-reload.png") });

    begin(`F5: the program runs to its end with the reloaded total() and the debug console shows exit code ${EXIT_CODE}`);
    log(step);
    await workbench.focusEditor(page);
    await page.keyboard.press("F5");
    const programOutput = `3 crates cost 24 (Python ${pythonVersion})`;
    const exitLine = `Process exited with code ${EXIT_CODE}.`;
    await waitForDebugger(page, `the debug console to show "${programOutput}" and "${exitLine}"`, async () => {
      const rows = await workbench.consoleRows(page);
      return rows.some((row) => row.includes(programOutput)) && rows.some((row) => row.includes(exitLine));
    });
    await waitFor("the debug toolbar to go away (the session ended)", async () => !(await workbench.debugToolbarVisible(page)), LIMITS.step);
    await page.screenshot({ path: path.join(artifacts, "vscode-ended.png") });

    begin("dapper.trace recorded the session: npm run replay replays its log with no difference");
    log(step);
    const logs = existsSync(sessionLogs) ? readdirSync(sessionLogs).filter((name) => name.endsWith(".log")) : [];
    if (logs.length !== 1) throw new Error(`expected one session log in ${sessionLogs}, found ${JSON.stringify(logs)}`);
    const replayed = runBounded(tools.node, [path.join(root, "scripts", "replay.mjs"), path.join(sessionLogs, logs[0])], { timeoutMs: LIMITS.step, env: process.env, cwd: root });
    log(`${step}: ${replayed.split("\n").at(-1)}`);

    begin("Dapper: Replay Session Log… replays the same log in VS Code: no difference");
    log(step);
    const logFile = path.join(sessionLogs, logs[0]);
    const replayedMessage = `Replayed ${logs[0]}: no difference.`;
    await waitFor(
      `the notification "${replayedMessage}"`,
      async () => {
        if ((await workbench.notifications(page)).some((toast) => toast.message.includes(replayedMessage))) return true;
        // The command's file dialog (code-server's is a quick input taking a path): the
        // path typed, then Enter; the command again if no dialog is open.
        const dialog = await workbench.quickPick(page);
        if (dialog === undefined) {
          await workbench.runPaletteCommand(page, "Dapper: Replay Session Log");
        } else {
          await workbench.typeInQuickPick(page, logFile);
          await page.keyboard.press("Enter");
        }
        return false;
      },
      LIMITS.step,
      1_000,
    );

    await scenarioWithoutLaunchJson(page, { begin, scratch, workspace: dirs.workspace });
    await scenarioAttachToProcess(page, {
      begin,
      log,
      python: plainPython,
      workspace: dirs.workspace,
      userData: dirs.userData,
      artifacts,
      stepMs: LIMITS.step,
      waitForDebugger,
    });
    await autoAttach();
    await presenters();
    await debugTest();
    await editAndContinue();
    await agentTools();
    await asyncio();
    await children();
    return passed();
  } catch (error) {
    console.error(`\n[vscode-test] FAILED at step "${step}": ${error.message}`);
    if (page) {
      const shot = path.join(artifacts, "vscode-failure.png");
      const saved = await withTimeout("the failure screenshot", page.screenshot({ path: shot }), 15_000).then(
        () => true,
        () => false,
      );
      if (saved) console.error(`[vscode-test] screenshot of the page: ${shot}`);
      const rows = await withTimeout("the console rows", workbench.consoleRows(page), 5_000).catch(() => []);
      if (rows.length > 0) console.error(`[vscode-test] debug console:\n  ${rows.join("\n  ")}`);
      const variables = await withTimeout("the variables", workbench.variableRows(page), 5_000).catch(() => []);
      if (variables.length > 0) console.error(`[vscode-test] Variables view:\n  ${variables.join("\n  ")}`);
    }
    if (server) console.error(`[vscode-test] code-server's last output:\n${server.output()}`);
    tally.failed++;
    printTally(tally);
    return 1;
  } finally {
    await cleanup();
    stopWatchdog();
  }
}

/**
 * The installed extension has README's screenshot beside it, where README's relative
 * link points (vsce keeps the link relative when the project names no repository).
 */
function checkInstalledReadme(extensionsDir) {
  const { publisher, name, version } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const installed = path.join(extensionsDir, `${publisher}.${name}-${version}`);
  const readme = ["README.md", "readme.md"].map((file) => path.join(installed, file)).find((file) => existsSync(file));
  if (!readme) throw new Error(`the installed extension ${installed} has no README`);
  const links = [...readFileSync(readme, "utf8").matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1]);
  if (links.length === 0) throw new Error("the installed README shows no image");
  for (const link of links) {
    if (/^https:\/\//.test(link)) continue;
    if (!existsSync(path.join(installed, link))) throw new Error(`the installed README links ${link}, which is not in the .vsix`);
  }
  log(`the installed README's images are in the .vsix: ${links.join(", ")}`);
}

/**
 * Scenario 2, in the same window: launch.json is deleted, and the workspace settings
 * name an interpreter that does not exist (and tell the stand-in Python extension to
 * name none, so that dapper.python is the choice). "Debug Python File" in the editor
 * title then shows Dapper's error with its buttons and starts no session; "Select
 * Interpreter" (the stand-in has no python.setInterpreter, so Dapper's own list opens)
 * writes the chosen interpreter to dapper.python; "Debug Python File" again stops at the
 * breakpoint set in scenario 1.
 */
async function scenarioWithoutLaunchJson(page, { begin, scratch, workspace }) {
  const settingsFile = path.join(workspace, ".vscode", "settings.json");
  const missingPython = path.join(scratch, "no-such-venv", "bin", "python");
  let current;
  const start = (name) => {
    begin(name);
    current = name;
    log(name);
  };

  start("no launch.json, dapper.python names no file: Debug Python File shows the error with its buttons and starts nothing");
  rmSync(path.join(workspace, ".vscode", "launch.json"));
  writeFileSync(settingsFile, JSON.stringify({ "dapper.python": missingPython, "dapperTest.activeInterpreter": "" }, null, 2));
  // VS Code reads the changed settings through its file watcher; nothing on the page
  // shows when it has, so the test gives it a moment.
  await delay(2_000);
  await workbench.runEditorTitleCommand(page, DEBUG_FILE_TITLE);
  const toast = await waitForDebugger(page, `an error naming ${missingPython}`, async () =>
    (await workbench.notifications(page)).find((notification) => notification.message.includes(missingPython)),
  );
  const expectedMessage = `Dapper cannot debug with the Python interpreter "${missingPython}" (set in the setting dapper.python): it does not exist.`;
  if (toast.message !== expectedMessage) throw new Error(`the error says ${JSON.stringify(toast.message)}, expected ${JSON.stringify(expectedMessage)}`);
  if (toast.buttons.join(", ") !== "Select Interpreter, Open Settings") throw new Error(`the error's buttons are ${JSON.stringify(toast.buttons)}`);
  await page.screenshot({ path: path.join(artifacts, "vscode-interpreter-error.png") });
  if (await workbench.debugToolbarVisible(page)) throw new Error("a session started although the interpreter does not exist");

  start("Select Interpreter: Dapper's list of interpreters writes the choice to dapper.python");
  await workbench.clickNotificationButton(page, missingPython, "Select Interpreter");
  const choice = await waitFor(
    `the quick pick "${SELECT_TITLE}" with an interpreter in it`,
    async () => {
      const pick = await workbench.quickPick(page);
      if (!pick?.title.startsWith(SELECT_TITLE)) return undefined;
      return pick.rows.find((row) => /^Python 3\.\d+/.test(row.label) && row.description !== "");
    },
    LIMITS.step,
  );
  log(`${current}: choosing ${choice.label} (${choice.description})`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: choice.description }).first().click({ timeout: 10_000 });
  await waitFor(
    `dapper.python to be ${choice.description} in the workspace settings`,
    () => JSON.parse(readFileSync(settingsFile, "utf8"))["dapper.python"] === choice.description,
    LIMITS.step,
  );

  start(`Debug Python File in the editor title: the session stops on line ${BREAKPOINT_LINE}`);
  await workbench.runEditorTitleCommand(page, DEBUG_FILE_TITLE);
  await waitForDebugger(page, `the editor to show the paused line ${BREAKPOINT_LINE}`, async () => sameLines(await workbench.pausedLines(page), [BREAKPOINT_LINE]));
  await page.screenshot({ path: path.join(artifacts, "vscode-debug-file.png") });

  start("Shift+F5 stops the session");
  await workbench.focusEditor(page);
  await page.keyboard.press("Shift+F5");
  await waitFor("the debug toolbar to go away (the session ended)", async () => !(await workbench.debugToolbarVisible(page)), LIMITS.step);
}

/**
 * Waits like waitFor, but fails at once with the dialog's text when VS Code shows an
 * error dialog, as it does when a launch fails: there is nothing left to wait for then.
 */
function waitForDebugger(page, what, probe) {
  return waitFor(
    what,
    async () => {
      const dialog = await workbench.dialogText(page);
      if (dialog !== undefined) throw new FatalError(`VS Code shows a dialog: ${dialog.trim()}`);
      return probe();
    },
    LIMITS.step,
  );
}

class FatalError extends Error {
  fatal = true;
}

// The plain closing line test runners print, so that a log shows how many checks ran.
function printTally({ passed, failed, skipped }) {
  console.log(`vscode: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
}

function sameLines(actual, expected) {
  return actual.length === expected.length && actual.every((line, index) => line === expected[index]);
}

/**
 * Evaluates the expression in the debug console. Returns "passed", or why the check is
 * skipped: only a debuggee that answers that evaluate is not supported yet skips it; any
 * other answer is a failure.
 */
async function checkEvaluate(page) {
  const before = (await workbench.consoleRows(page)).length;
  await workbench.evaluateInConsole(page, EVALUATE.expression);
  const answer = await waitFor(
    `an answer to ${EVALUATE.expression} in the debug console`,
    async () => {
      const rows = (await workbench.consoleRows(page)).slice(before);
      const unsupported = rows.find((row) => row.includes("is not supported"));
      if (unsupported) return { unsupported };
      return rows.includes(EVALUATE.result) ? { ok: true } : undefined;
    },
    LIMITS.step,
  );
  return answer.ok ? "passed" : `the debuggee does not support evaluate yet ("${answer.unsupported}")`;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(`[vscode-test] FAILED: ${error.message}`);
      process.exit(1);
    },
  );
}
