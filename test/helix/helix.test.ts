// A real editor: Helix (built from source by scripts/helix.mjs) in a tmux terminal, driven
// as a person drives it: keys in (tmux send-keys), the screen out (tmux capture-pane).
// Helix reads docs/other-editors.md's Helix configuration as it stands, taken from that
// page, with only the adapter's path filled in; the debuggee is the newest Python of
// DAPPER_E2E_PYTHONS, the `python3` on Helix's PATH (the configuration names none).
// Each test has its own HOME, tmux server and Helix, gone when it ends; every wait has a
// deadline, and a failed one prints the screen and the end of Helix's log (`hx -v`, which
// has every DAP message).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { startListening } from "../e2e/attach-support";
import { adapterScript, fixtures, isAlive, marker, pythons, root, waitUntil } from "../e2e/support";

/** DAPPER_HELIX (set by scripts/test.mjs), else a Helix that scripts/helix.mjs built before. */
function helixBinary(): string | null {
  if (process.env.DAPPER_HELIX) return process.env.DAPPER_HELIX;
  const script = `import(${JSON.stringify(path.join(root, "scripts", "helix.mjs"))}).then((helix) => console.log(JSON.stringify(helix.builtHelix())))`;
  return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }).trim()) as string | null;
}

const hx = helixBinary();
const skip = hx && existsSync(hx) ? false : "no Helix: npm test builds it from shared/clients (scripts/helix.mjs), or DAPPER_HELIX names one";
const [python] = pythons().slice(-1);
const docs = path.join(root, "docs", "other-editors.md");
const WAIT_MS = 20000;

/**
 * The TOML blocks of docs/other-editors.md's Helix section, in order, with the adapter's
 * path put in: the launch and `processId` templates, then the `connect` attach template
 * for Helix built from source.
 */
function readmeLanguagesToml(): string {
  const text = readFileSync(docs, "utf8");
  const section = text.slice(text.indexOf("\n## Helix\n"), text.indexOf("\n## ", text.indexOf("\n## Helix\n") + 1));
  const blocks = [...section.matchAll(/```toml\n([\s\S]*?)```/g)].map((match) => match[1]);
  assert.equal(blocks.length, 2, `docs/other-editors.md's Helix section has the languages.toml and the attach template: ${section}`);
  const toml = blocks.join("\n");
  // README.md's one line for Helix names the same debugger table.
  const readmeLine = readFileSync(path.join(root, "README.md"), "utf8").split("\n").find((line) => line.startsWith("- **Helix:**")) ?? "";
  const settings = [...readmeLine.matchAll(/`(\w+ = [^`]+)`/g)].map((match) => match[1]);
  assert.ok(settings.length >= 4, `README.md's Helix line: ${readmeLine}`);
  for (const setting of settings) assert.ok(toml.split("\n").includes(setting), `README.md's \`${setting}\` is in docs/other-editors.md's languages.toml`);
  assert.ok(toml.includes("/path/to/dapper/dist/adapter.js"), toml);
  return toml.replaceAll("/path/to/dapper/dist/adapter.js", adapterScript);
}

/**
 * One tmux server with one window running `command`, 160 × 48. Its socket is a file of the
 * test's own (`-S`, where tmux leaves it when the server ends), so it is gone with the test.
 */
class Terminal {
  constructor(
    private readonly socket: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly describeFailure: () => string,
  ) {}

  private tmux(...args: string[]): string {
    return execFileSync("tmux", ["-S", this.socket, ...args], { env: this.env, encoding: "utf8", timeout: 10000 });
  }

  start(cwd: string, command: string[], config: string): void {
    this.tmux("-f", config, "new-session", "-d", "-x", "160", "-y", "48", "-s", "hx", "-c", cwd, "--", ...command);
  }

  /** Keys by tmux's names (`Space`, `Enter`, `Escape`, `Down`) or single characters. */
  keys(...keys: string[]): void {
    this.tmux("send-keys", "-t", "hx", ...keys);
  }

  type(text: string): void {
    this.tmux("send-keys", "-t", "hx", "-l", text);
  }

  screen(): string {
    return this.tmux("capture-pane", "-p", "-t", "hx");
  }

  /** Waits until the screen satisfies `ready`; returns that screen. `nudge`, if given, runs
   * once a second while it waits (a key that makes Helix render again). */
  async waitFor(what: string, ready: (screen: string) => boolean, timeoutMs = WAIT_MS, nudge?: () => void): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (let polls = 1; ; polls++) {
      const screen = this.screen();
      if (ready(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`Helix did not show ${what} within ${timeoutMs} ms. The screen:\n${screen}\n${this.describeFailure()}`);
      if (nudge && polls % 10 === 0) nudge();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The processes Helix started (adapters, and theirs). */
  processes(): RunningProcess[] {
    return descendantsOf(Number(this.tmux("display-message", "-p", "-t", "hx", "#{pane_pid}").trim()));
  }

  kill(): void {
    try {
      this.tmux("kill-server");
    } catch {
      // Already gone (its last window closed).
    }
  }
}

/** The gutter symbol Helix draws on a file line (`●`, `◯`, `▶`, or "" for none). */
function gutterAt(screen: string, line: number): string | undefined {
  for (const row of screen.split("\n")) {
    const match = row.match(/^(.)\s*(\d+) /u);
    if (match && Number(match[2]) === line) return match[1].trim();
  }
  return undefined;
}

/** Helix's status line shows `row:column` of the cursor; the row. */
function cursorLine(screen: string): number | undefined {
  const match = screen.match(/ (\d+):(\d+)\s*$/m);
  return match ? Number(match[1]) : undefined;
}

/** The bottom row, under the status line: where Helix shows its messages. */
function messageRow(screen: string): string | undefined {
  return screen.trimEnd().split("\n").at(-1)?.trim();
}

interface RunningProcess {
  pid: number;
  parent: number;
  exe: string;
  command: string;
}

/** The processes that run now (not zombies), from /proc. */
function processTable(): RunningProcess[] {
  const found: RunningProcess[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, parent] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state === "Z" || state === "X") continue;
      const command = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ");
      found.push({ pid: Number(entry), parent: Number(parent), exe: realpathSync(`/proc/${entry}/exe`), command });
    } catch {
      // It ended meanwhile.
    }
  }
  return found;
}

/** The processes under `root` (its children, theirs, …): others' tests may run the same programs. */
function descendantsOf(root: number): RunningProcess[] {
  const table = processTable();
  const under = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of table) {
      if (under.has(p.parent) && !under.has(p.pid)) {
        under.add(p.pid);
        grew = true;
      }
    }
  }
  return table.filter((p) => p.pid !== root && under.has(p.pid));
}

/** A Helix in tmux with a fresh HOME holding the README's languages.toml; `run` gets it. */
async function withHelix(file: string, run: (helix: Terminal, log: () => string) => Promise<void>): Promise<void> {
  const home = mkdtempSync(path.join(tmpdir(), "dapper-helix-"));
  const bin = path.join(home, "bin");
  mkdirSync(bin);
  // `python3` (Dapper's default debuggee) and `node` (the configuration's command).
  symlinkSync(python.executable, path.join(bin, "python3"));
  symlinkSync(process.execPath, path.join(bin, "node"));
  const config = path.join(home, ".config");
  mkdirSync(path.join(config, "helix"), { recursive: true });
  writeFileSync(path.join(config, "helix", "languages.toml"), readmeLanguagesToml());
  const tmuxConf = path.join(home, "tmux.conf");
  // No tmux status bar (all rows are Helix's); a pane whose Helix died stays to be read.
  writeFileSync(tmuxConf, "set -g status off\nset -g remain-on-exit on\n");
  const logFile = path.join(home, "helix.log");
  const log = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: config,
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_STATE_HOME: path.join(home, ".local", "state"),
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`,
    TERM: "xterm-256color",
    TMUX: undefined,
    TMUX_PANE: undefined,
  };
  const helix = new Terminal(path.join(home, "tmux.socket"), env, () => `--- Helix's log (${logFile}), last lines ---\n${log().split("\n").slice(-60).join("\n")}`);
  try {
    helix.start(path.dirname(file), [hx as string, "-v", "--log", logFile, file], tmuxConf);
    await helix.waitFor(`${path.basename(file)} opened`, (screen) => screen.includes(path.basename(file)) && cursorLine(screen) === 1);
    await run(helix, log);
  } finally {
    helix.kill();
    rmSync(home, { recursive: true, force: true });
  }
}

/** `:N` Enter, then `<space>Gb` (toggle a breakpoint) and Escape out of the sticky Debug menu. */
async function toggleBreakpoint(helix: Terminal, line: number): Promise<void> {
  helix.type(`:${line}`);
  helix.keys("Enter");
  await helix.waitFor(`the cursor on line ${line}`, (screen) => cursorLine(screen) === line);
  helix.keys("Space", "G", "b");
  await helix.waitFor(`a breakpoint on line ${line}`, (screen) => gutterAt(screen, line) === "◯" || gutterAt(screen, line) === "●");
  helix.keys("Escape");
  await helix.waitFor("the Debug menu closed", (screen) => !screen.includes("Debug (experimental)"));
}

/** `<space>Gl`, the template picked by its row (Down × index), then each prompt's answer. */
async function launchTemplate(helix: Terminal, index: number, answers: { prompt: string; answer: string }[]): Promise<void> {
  helix.keys("Space", "G", "l");
  await helix.waitFor("the template picker", (screen) => screen.includes("attach to process"));
  for (let i = 0; i < index; i++) helix.keys("Down");
  helix.keys("Enter");
  for (const { prompt, answer } of answers) {
    await helix.waitFor(`the prompt "${prompt}"`, (screen) => screen.split("\n").some((row) => row.startsWith(prompt)));
    helix.type(answer);
    helix.keys("Enter");
  }
}

interface DapMessage {
  seq: number;
  type: "request" | "response" | "event";
  command?: string;
  event?: string;
  arguments?: Record<string, unknown>;
  body?: Record<string, unknown>;
}

/** The DAP messages of Helix's log (`hx -v` logs each one whole), sent (->) and received (<-). */
function dapMessages(log: string): { sent: boolean; message: DapMessage }[] {
  return log.split("\n").flatMap((line) => {
    const match = line.match(/\] (->|<-) DAP (\{.*\})$/);
    return match ? [{ sent: match[1] === "->", message: JSON.parse(match[2]) as DapMessage }] : [];
  });
}

/** What the program printed on `category`, from the adapter's output events. */
function printed(log: string, category: "stdout" | "stderr"): string {
  return dapMessages(log)
    .filter(({ message }) => message.event === "output" && message.body?.category === category)
    .map(({ message }) => String(message.body?.output))
    .join("");
}

function sentRequest(log: string, command: string): DapMessage | undefined {
  return dapMessages(log).find(({ sent, message }) => sent && message.command === command)?.message;
}

/** Warnings and errors in Dapper's own log (its stderr, which Helix logs as `err <- …`). */
function dapperComplaints(log: string): string[] {
  return log.split("\n").filter((line) => /err <- \S+ \[(warn|error)\]/.test(line));
}

function exitCodeEvent(log: string): unknown {
  return dapMessages(log).find(({ message }) => message.event === "exited")?.message.body?.exitCode;
}

const stoppedAt = (reason: string) => (screen: string) => new RegExp(`Thread \\d+ stopped because of ${reason}`).test(screen);
const ended = (screen: string) => messageRow(screen) === "Terminated debugging session and disconnected debugger.";

/** The adapters that this Helix started and that still run. */
const adaptersLeft = (helix: Terminal) => helix.processes().filter((p) => p.command.includes(adapterScript));

describe(`Helix (docs/other-editors.md's configuration) → dist/adapter.js → Python ${python.version}`, { skip }, () => {
  test("launch with the `file` template: a breakpoint from the keys, the stop, variables, evaluate, a step, continue to the end", async () => {
    const main = path.join(fixtures, "main.py");
    const line = marker("main.py", "main");
    await withHelix(main, async (helix, log) => {
      await toggleBreakpoint(helix, line);
      await launchTemplate(helix, 0, [{ prompt: "program:", answer: "main.py" }]);
      let screen = await helix.waitFor("the stop at the breakpoint", stoppedAt("breakpoint"));
      screen = await helix.waitFor(`▶ on line ${line}`, (s) => gutterAt(s, line) === "▶");
      assert.equal(cursorLine(screen), line, screen);
      assert.deepEqual(sentRequest(log(), "launch")?.arguments, { program: main, console: "internalConsole", cwd: fixtures });

      // The debuggee is the Python this test picked: Helix's PATH `python3`.
      const debuggees = helix.processes().filter((p) => p.command.includes(`--program ${main}`));
      assert.equal(debuggees.length, 1, JSON.stringify(debuggees));
      assert.equal(debuggees[0].exe, realpathSync(python.executable));

      // The Debug menu is sticky: it stays open after `<space>G`, so `v`, `n`, `c` act at once.
      helix.keys("v");
      screen = await helix.waitFor("the variables popup", (s) => s.includes("▸ Locals") && /count: int = 4$/m.test(s));
      assert.match(screen, /items: list = \[0, 1, 4, 9\]$/m);
      helix.keys("Escape");
      await helix.waitFor("the popup closed", (s) => !s.includes("▸ Locals"));
      helix.keys("Escape");
      await helix.waitFor("the Debug menu closed", (s) => !s.includes("Debug (experimental)"));

      helix.type(":debug-eval sum(items)");
      helix.keys("Enter");
      await helix.waitFor("the value of sum(items) in the message row", (s) => messageRow(s) === "14");

      helix.keys("Space", "G", "n");
      await helix.waitFor("the step's stop in the message row", stoppedAt("step"));
      // Helix may draw the new frame's marker only at its next render (seen on a loaded
      // machine): closing the Debug menu makes one, as any key of the user's would. The
      // frame may come after that render (its stackTrace answers after the stop): Escape
      // again, once a second, until it shows.
      helix.keys("Escape");
      screen = await helix.waitFor(`the step to line ${line + 1}`, (s) => gutterAt(s, line + 1) === "▶", undefined, () => helix.keys("Escape"));
      assert.equal(gutterAt(screen, line), "●", `the breakpoint stays, verified:\n${screen}`);

      helix.keys("Space", "G", "c");
      screen = await helix.waitFor("the end of the session", ended);
      assert.equal(gutterAt(screen, line), "◯", `Helix marks the breakpoint unverified once the session is over:\n${screen}`);
      assert.equal(printed(log(), "stdout"), "hello total=15\n");
      assert.equal(printed(log(), "stderr"), "to stderr\n");
      assert.equal(exitCodeEvent(log()), 0);
      assert.deepEqual(dapperComplaints(log()), [], "Dapper took every message Helix sent");
      await waitUntil(() => adaptersLeft(helix).length === 0 && !isAlive(debuggees[0].pid), 5000, "the adapter and the debuggee to end");
    });
  });

  test("a child process: Helix does not announce startDebugging, so the child runs undebugged and the parent's session ends", async () => {
    const worker = path.join(fixtures, "children", "worker.py");
    const line = marker(path.join("children", "worker.py"), "worker");
    await withHelix(worker, async (helix, log) => {
      await toggleBreakpoint(helix, line);
      await launchTemplate(helix, 0, [{ prompt: "program:", answer: "popen_parent.py" }]);
      const screen = await helix.waitFor("the end of the session", ended);
      const messages = dapMessages(log());
      assert.equal(sentRequest(log(), "initialize")?.arguments?.supportsStartDebuggingRequest, undefined, "Helix's initialize arguments");
      assert.deepEqual(messages.filter(({ message }) => message.command === "startDebugging" || message.event === "stopped"), [], "no child session asked for, nothing stopped");
      assert.deepEqual(
        dapperComplaints(log()).map((line) => line.replace(/^.*\[warn\] /, "")),
        ["Child process worker.py will not be debugged: the client does not support the startDebugging request."],
        "Dapper says why, and nothing else",
      );
      assert.equal(printed(log(), "stdout"), "worker 21 -> 42\nparent saw 3\n", "the child ran and ended, then the parent");
      assert.equal(exitCodeEvent(log()), 0);
      assert.equal(gutterAt(screen, line), "◯", screen);
      await waitUntil(() => adaptersLeft(helix).length === 0, 5000, "the adapter to end");
    });
  });

  test("attach with the `attach` template (connect) to `python -m dapperdbg --listen`: the stop, continue to the exit code", async () => {
    const main = path.join(fixtures, "main.py");
    const line = marker("main.py", "main");
    const program = await startListening(python, ["--wait-for-client"], ["main.py", "5"]);
    const port = program.port;
    try {
      await withHelix(main, async (helix, log) => {
        await toggleBreakpoint(helix, line);
        await launchTemplate(helix, 3, [{ prompt: "port:", answer: String(port) }]);
        await helix.waitFor("the stop at the breakpoint", stoppedAt("breakpoint"));
        await helix.waitFor(`▶ on line ${line}`, (s) => gutterAt(s, line) === "▶");
        // Helix turns the port, a whole number after substitution, into a number.
        assert.deepEqual(sentRequest(log(), "attach")?.arguments, { connect: { host: "127.0.0.1", port }, cwd: fixtures });
        helix.keys("c");
        await helix.waitFor("the end of the session", ended);
        assert.deepEqual(await program.exited, { code: 5, signal: null });
        assert.equal(exitCodeEvent(log()), 5);
        assert.equal(printed(log(), "stdout"), "hello total=15\n");
        assert.deepEqual(dapperComplaints(log()), [], "Dapper took every message Helix sent");
        await waitUntil(() => adaptersLeft(helix).length === 0, 5000, "the adapter to end");
      });
    } finally {
      program.process.kill("SIGKILL");
    }
  });
});
