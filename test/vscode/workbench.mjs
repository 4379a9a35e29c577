/* global document, getComputedStyle -- these functions run inside the page (page.evaluate), not in Node */
// What the real-VS-Code test reads from and does to the VS Code workbench page. Every
// question is answered from the DOM as it is now; the caller polls with waitFor, so
// nothing here sleeps.

// The text editor of the editor area (not the debug console's input, which is a Monaco
// editor too).
const EDITOR = ".part.editor .editor-instance .monaco-editor";

/**
 * The line numbers (1-based) at which elements matching `selector` sit in the editor,
 * found by comparing each element's vertical position with the line-number gutter. Only
 * lines on screen can be found, which is all the fixture has.
 */
export async function linesOf(page, selector) {
  return page.evaluate(
    ({ editorSelector, selector }) => {
      const editor = document.querySelector(editorSelector);
      if (!editor) return [];
      const numbers = [...editor.querySelectorAll(".margin-view-overlays .line-numbers")].map((element) => {
        const rect = element.getBoundingClientRect();
        return { line: Number(element.textContent.trim()), top: rect.top, bottom: rect.bottom };
      });
      const found = new Set();
      for (const element of editor.querySelectorAll(selector)) {
        const rect = element.getBoundingClientRect();
        if (rect.height === 0) continue;
        const middle = (rect.top + rect.bottom) / 2;
        const hit = numbers.find((number) => middle >= number.top && middle < number.bottom);
        if (hit) found.add(hit.line);
      }
      return [...found].sort((a, b) => a - b);
    },
    { editorSelector: EDITOR, selector },
  );
}

/** The line the debugger is paused on: where VS Code draws the top stack frame. */
export async function pausedLines(page) {
  return linesOf(page, ".debug-top-stack-frame-line, .codicon-debug-stackframe");
}

/** Lines that show a (verified or not) breakpoint glyph. */
export async function breakpointLines(page) {
  return linesOf(page, ".codicon-debug-breakpoint, .codicon-debug-breakpoint-unverified");
}

/** Whether the editor shows `fileName` in its active tab with its text rendered. */
export async function editorShows(page, fileName) {
  return page.evaluate(
    ({ editorSelector, fileName }) => {
      const tab = document.querySelector(".part.editor .tab.active");
      const editor = document.querySelector(editorSelector);
      return Boolean(tab?.textContent?.includes(fileName) && editor?.querySelector(".view-lines .view-line"));
    },
    { editorSelector: EDITOR, fileName },
  );
}

/**
 * Clicks the glyph margin (left of the line numbers) of `line`, where a user clicks to
 * toggle a breakpoint.
 */
export async function clickGutter(page, line) {
  const target = await page.evaluate(
    ({ editorSelector, line }) => {
      const editor = document.querySelector(editorSelector);
      if (!editor) return null;
      const number = [...editor.querySelectorAll(".margin-view-overlays .line-numbers")].find(
        (element) => Number(element.textContent.trim()) === line,
      );
      const glyphs = editor.querySelector(".margin .glyph-margin") ?? editor.querySelector(".glyph-margin");
      if (!number || !glyphs) return null;
      const numberRect = number.getBoundingClientRect();
      const glyphRect = glyphs.getBoundingClientRect();
      if (glyphRect.width === 0) return null;
      return { x: glyphRect.left + glyphRect.width / 2, y: (numberRect.top + numberRect.bottom) / 2 };
    },
    { editorSelector: EDITOR, line },
  );
  if (!target) throw new Error(`line ${line} or the editor's glyph margin is not on screen`);
  await page.mouse.move(target.x, target.y);
  await page.mouse.click(target.x, target.y);
}

/**
 * Replaces the text of `line` (after its indentation) with `text`, as a user does: a
 * click at the line's end, Shift+Home (which stops at the indentation), then the new text.
 */
export async function replaceLineText(page, line, text) {
  const target = await page.evaluate(
    ({ editorSelector, line }) => {
      const editor = document.querySelector(editorSelector);
      const number = [...(editor?.querySelectorAll(".margin-view-overlays .line-numbers") ?? [])].find(
        (element) => Number(element.textContent.trim()) === line,
      );
      const lines = editor?.querySelector(".view-lines");
      if (!number || !lines) return null;
      const numberRect = number.getBoundingClientRect();
      // The lines are as wide as the longest one, which may run past the editor's visible
      // part (a long line scrolls sideways): the click stays inside what is shown.
      const right = Math.min(lines.getBoundingClientRect().right, editor.getBoundingClientRect().right - 30);
      return { x: right - 20, y: (numberRect.top + numberRect.bottom) / 2 };
    },
    { editorSelector: EDITOR, line },
  );
  if (!target) throw new Error(`line ${line} is not on screen`);
  await page.mouse.click(target.x, target.y);
  await page.keyboard.press("End");
  await page.keyboard.press("Shift+Home");
  await page.keyboard.insertText(text);
}

/**
 * Clicks into the editor so that keys (F5, F10) go to it: far right on line 2 of the
 * fixture, which is empty, so no word gets highlighted in the screenshots.
 */
export async function focusEditor(page) {
  const lineTwo = page.locator(`${EDITOR} .view-line`).nth(1);
  const box = await lineTwo.boundingBox({ timeout: 10_000 });
  if (!box) throw new Error("the editor's second line is not on screen");
  await page.mouse.click(box.x + box.width - 20, box.y + box.height / 2);
}

/**
 * The rows of the Variables view as "name = value" strings. VS Code labels each row for
 * screen readers as "<name>, value <value>"; the visible spans are the fallback.
 */
export async function variableRows(page) {
  return page.evaluate(() => {
    const rows = document.querySelectorAll(".debug-pane .debug-variables .monaco-list-row, .debug-variables .monaco-list-row");
    return [...rows].map((row) => {
      // The separator between name and value is drawn by VS Code itself, inside or beside
      // the spans depending on its version, so it is stripped from both.
      const name = (row.querySelector(".name")?.textContent ?? "").trim().replace(/\s*[=:]$/, "");
      const value = (row.querySelector(".value")?.textContent ?? "").trim().replace(/^[=:]\s*/, "");
      return name ? `${name} = ${value}` : (row.textContent ?? "").trim();
    });
  });
}

/** The whole text of the debug console's output, one string per visible row. */
export async function consoleRows(page) {
  return page.evaluate(() => [...document.querySelectorAll(".repl .monaco-list-row")].map((row) => (row.textContent ?? "").trim()));
}

/** Types `text` into the debug console's input and runs it. */
export async function evaluateInConsole(page, text) {
  const input = page.locator(".repl .repl-input-wrapper .monaco-editor").first();
  await input.click({ timeout: 10_000 });
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
}

/** Whether a debug session is running or paused (the debug toolbar is up). */
export async function debugToolbarVisible(page) {
  return page.evaluate(() => {
    const toolbar = document.querySelector(".debug-toolbar");
    if (!toolbar) return false;
    const style = getComputedStyle(toolbar);
    return style.display !== "none" && style.visibility !== "hidden" && toolbar.getBoundingClientRect().height > 0;
  });
}

/** The text of a modal dialog (VS Code shows launch errors in one), or undefined when none is up. */
export async function dialogText(page) {
  return page.evaluate(() => {
    const box = document.querySelector(".monaco-dialog-box");
    if (!box || box.getBoundingClientRect().height === 0) return undefined;
    return (box.querySelector(".dialog-message-text")?.textContent ?? "") + " " + (box.querySelector(".dialog-message-detail")?.textContent ?? "");
  });
}

/** Clicks the button `label` of the modal dialog on screen. */
export async function clickDialogButton(page, label) {
  await page.locator(".monaco-dialog-box .monaco-button", { hasText: label }).first().click({ timeout: 10_000 });
}

/**
 * Expands the scope row `name` (e.g. "Locals") of the Variables view when it is shown
 * collapsed, as a user would click it. Returns whether it clicked.
 */
export async function expandScope(page, name) {
  const row = page.locator(".debug-variables .monaco-list-row[aria-expanded='false']", { hasText: name }).first();
  if ((await row.count()) === 0) return false;
  await row.click({ timeout: 5_000 });
  return true;
}

/**
 * Runs a command of the editor title's run menu (the ▷ button with its drop-down) by
 * its title: the button itself when the command is its primary action, else the entry
 * of its drop-down menu.
 */
export async function runEditorTitleCommand(page, title) {
  const actions = page.locator(".part.editor .editor-actions");
  const primary = actions.locator(`a.action-label[aria-label^="${title}"]`).first();
  if ((await primary.count()) > 0 && (await primary.isVisible())) {
    await primary.click({ timeout: 10_000 });
    return;
  }
  const dropdown = actions.locator(".monaco-dropdown-with-primary .dropdown-action-container a, .monaco-dropdown-with-primary .action-label.codicon-chevron-down").first();
  await dropdown.click({ timeout: 10_000 });
  await page.locator(".monaco-menu .action-item", { hasText: title }).first().click({ timeout: 10_000 });
}

/** The notification toasts on screen: each one's message and the labels of its buttons. */
export async function notifications(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll(".notifications-toasts .notification-toast")].map((toast) => ({
      message: (toast.querySelector(".notification-list-item-message")?.textContent ?? "").trim(),
      buttons: [...toast.querySelectorAll(".notification-list-item-buttons-container .monaco-button")].map((button) => (button.textContent ?? "").trim()),
    })),
  );
}

/** Clicks the button `label` of the notification whose message contains `text`. */
export async function clickNotificationButton(page, text, label) {
  const toast = page.locator(".notifications-toasts .notification-toast", { hasText: text }).first();
  await toast.locator(".notification-list-item-buttons-container .monaco-button", { hasText: label }).first().click({ timeout: 10_000 });
}

/**
 * The open quick pick's title and rows, or undefined when none is open. Each row has its
 * label, its description and its whole text (label, description, detail, separator).
 */
export async function quickPick(page) {
  return page.evaluate(() => {
    const widget = document.querySelector(".quick-input-widget");
    if (!widget || widget.getBoundingClientRect().height === 0 || getComputedStyle(widget).display === "none") return undefined;
    return {
      title: (widget.querySelector(".quick-input-title")?.textContent ?? "").trim(),
      rows: [...widget.querySelectorAll(".quick-input-list .monaco-list-row")].map((row) => ({
        label: (row.querySelector(".monaco-icon-label .label-name")?.textContent ?? row.textContent ?? "").trim(),
        description: (row.querySelector(".label-description")?.textContent ?? "").trim(),
        text: (row.textContent ?? "").trim(),
      })),
    };
  });
}

/** Opens Quick Open (Ctrl+P), types `fileName` and opens the first match, once; callers retry. */
export async function quickOpen(page, fileName, query = fileName) {
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: 5_000 });
  await input.fill(query);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: fileName }).first().waitFor({ timeout: 5_000 });
  await page.keyboard.press("Enter");
}

/**
 * Opens the file at `filePath` with *File: Open File...*, whose dialog takes a path as
 * typed: it does not depend on Quick Open's index of the workspace, which misses a file
 * the workspace's watcher lost (as after a save that replaces the file). Once; callers retry.
 */
export async function openFileByPath(page, filePath) {
  await runPaletteCommand(page, "File: Open File...");
  await typeInQuickPick(page, filePath);
  await page.keyboard.press("Enter");
}

/** Runs a command by its title from the command palette (Ctrl+Shift+P), once; callers retry. */
export async function runPaletteCommand(page, title) {
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+Shift+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: 5_000 });
  await input.fill(`>${title}`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor({ timeout: 5_000 });
  await page.keyboard.press("Enter");
}

/** Types `text` into the open quick pick's input, replacing what is there. */
export async function typeInQuickPick(page, text) {
  await page.locator(".quick-input-widget input").fill(text, { timeout: 5_000 });
}

/**
 * Starts the launch.json configuration `name` as *Debug: Select and Start Debugging*
 * does: Quick Open with its "debug " prefix, then the configuration's row; once.
 */
export async function startDebugConfiguration(page, name) {
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: 5_000 });
  await input.fill(`debug ${name}`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: name }).first().click({ timeout: 5_000 });
}

/** Clicks the open quick pick's title-bar button whose tooltip is `tooltip`. */
export async function clickQuickPickButton(page, tooltip) {
  const widget = page.locator(".quick-input-widget");
  await widget.locator(`.action-label[aria-label="${tooltip}"], .action-label[title="${tooltip}"]`).first().click({ timeout: 5_000 });
}

/** The texts of the status bar's items. */
export async function statusBarTexts(page) {
  return page.evaluate(() => [...document.querySelectorAll(".part.statusbar .statusbar-item")].map((item) => (item.textContent ?? "").trim()));
}

/**
 * Shows the terminal (its panel tab, if another panel is on top), clicks into it, and
 * types a command line and runs it.
 */
export async function runInTerminal(page, commandLine) {
  const terminal = page.locator(".terminal-wrapper.active .xterm").first();
  if (!(await terminal.isVisible())) await page.locator(".part.panel .composite-bar .action-item", { hasText: "Terminal" }).first().click({ timeout: 10_000 });
  await terminal.waitFor({ state: "visible", timeout: 10_000 });
  await terminal.click({ timeout: 10_000 });
  // Keys typed before the terminal has the focus go elsewhere.
  await page.waitForFunction(() => document.activeElement?.classList.contains("xterm-helper-textarea"), undefined, { timeout: 10_000 });
  await page.keyboard.type(commandLine);
  await page.keyboard.press("Enter");
}

/** Expands the Variables view's row of the variable `name` when it is collapsed, as a click on its twistie does. */
export async function expandVariable(page, name) {
  const rows = page.locator(".debug-variables .monaco-list-row");
  const index = await page.evaluate((name) => {
    const all = [...document.querySelectorAll(".debug-variables .monaco-list-row")];
    return all.findIndex(
      (row) => row.getAttribute("aria-expanded") === "false" && (row.querySelector(".name")?.textContent ?? "").trim().replace(/\s*[=:]$/, "") === name,
    );
  }, name);
  if (index < 0) return false;
  await rows.nth(index).locator(".monaco-tl-twistie").click({ timeout: 5_000 });
  return true;
}

/**
 * Drags the sash between the side bar and the editor to `x` pixels, so that the
 * Variables view shows whole values in a screenshot.
 */
export async function widenSideBar(page, x) {
  // The vertical sash nearest the side bar's right edge.
  const at = await page.evaluate(() => {
    const sidebar = document.querySelector(".part.sidebar")?.getBoundingClientRect();
    if (!sidebar) return null;
    const sashes = [...document.querySelectorAll(".monaco-sash.vertical")].map((sash) => sash.getBoundingClientRect()).filter((rect) => rect.height > 100);
    sashes.sort((a, b) => Math.abs(a.left - sidebar.right) - Math.abs(b.left - sidebar.right));
    const sash = sashes[0];
    return sash ? { x: sash.left + sash.width / 2, y: sash.top + sash.height / 2 } : null;
  });
  if (!at) return;
  await page.mouse.move(at.x, at.y);
  await page.mouse.down();
  await page.mouse.move(at.x + 40, at.y, { steps: 2 });
  await page.mouse.move(x, at.y, { steps: 8 });
  await page.mouse.up();
}

/** Types `text` into the debug console's input, without running it. */
export async function typeInConsole(page, text) {
  const input = page.locator(".repl .repl-input-wrapper .monaco-editor").first();
  await input.click({ timeout: 10_000 });
  await page.keyboard.type(text);
}

/** The text of the debug console's input (one line). */
export async function consoleInput(page) {
  return page.evaluate(() => (document.querySelector(".repl .repl-input-wrapper .view-lines")?.textContent ?? "").replace(/\u00a0/g, " "));
}

/** Empties the debug console's input. */
export async function clearConsoleInput(page) {
  await page.locator(".repl .repl-input-wrapper .monaco-editor").first().click({ timeout: 10_000 });
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Backspace");
}

/** The labels of the open suggest widget's rows, in order; empty when it is closed. */
export async function suggestions(page) {
  return page.evaluate(() => {
    const widget = document.querySelector(".repl .suggest-widget.visible, .suggest-widget.visible");
    if (!widget) return [];
    return [...widget.querySelectorAll(".monaco-list-row")].map((row) => (row.querySelector(".label-name")?.textContent ?? row.getAttribute("aria-label") ?? "").trim());
  });
}

/** Collapses the side bar's sections titled `titles` (Watch, Call Stack…) that are open, as a click on their headers does. */
export async function collapseSections(page, titles) {
  for (const title of titles) {
    const header = page.locator(".pane-header[aria-expanded='true']", { hasText: title }).first();
    if ((await header.count()) > 0) await header.click({ timeout: 5_000 });
  }
}
