// A real editor's DAP client: nvim-dap (a pinned copy in test/nvim/nvim-dap) in a headless
// Neovim drives dist/adapter.js in both of nvim-dap's adapter forms, as a user's config
// would: `executable` (the adapter on stdio, one per session) and `server` (nvim-dap starts
// `adapter.js --port ${port}` and connects). driver.lua does what a user does and reports
// what nvim-dap showed; the tests assert on that report.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { before, describe, test } from "node:test";
import { adapterScript, fixtures, isAlive, marker, pythons, root, waitUntil } from "../e2e/support";

const nvimDap = path.join(root, "test", "nvim", "nvim-dap");
const driver = path.join(root, "test", "nvim", "driver.lua");

/** DAPPER_NVIM (set by scripts/test.mjs), else the Neovim scripts/lib.mjs installs. */
function neovim(): string {
  if (process.env.DAPPER_NVIM) return process.env.DAPPER_NVIM;
  const lib = JSON.stringify(path.join(root, "scripts", "lib.mjs"));
  const script = `import(${lib}).then((lib) => console.log(JSON.stringify(lib.ensureNeovim(lib.findPythons().at(-1)))))`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }).trim().split("\n");
  return JSON.parse(out[out.length - 1]) as string;
}

/** nvim-dap's two adapter forms, as the README shows them. */
const adapterForms = {
  executable: { type: "executable", command: process.execPath, args: [adapterScript] },
  server: { type: "server", port: "${port}", executable: { command: process.execPath, args: [adapterScript, "--port", "${port}"] } },
} as const;
type Form = keyof typeof adapterForms;

interface Scenario {
  form: Form;
  /** The name the adapter is registered under (dap.adapters[name]) and the configurations' type. */
  adapterName?: string;
  configuration: Record<string, unknown>;
  /** A fixture's marker, or a line of a file of the test's own. */
  breakpoints: ({ file: string; marker: string } | { path: string; line: number })[];
  stops: number;
  endWith?: "terminate";
  /** At the stop of that number: edit a file, hot reload it, restart the frame `up` above the top. */
  actions?: Record<number, { edit: { path: string; from: string; to: string }; up?: number }>;
}

interface ShownBreakpoint {
  path: string;
  line: number;
  sign: string | null;
  verified: boolean | undefined;
  message: string | null;
}

interface Report {
  error?: string;
  stops: { session: number; reason: string; frames: { name: string; line: number; path: string | null }[]; scope: string | null; variables: Record<string, string> }[];
  events: { event: string; session: number }[];
  processes: { session: number; pid: number | null; name: string }[];
  output: Record<string, string>;
  notifications: { message: string; level: number }[];
  breakpointsAtFirstStop?: ShownBreakpoint[];
  breakpointsAtEnd?: ShownBreakpoint[];
  exitCode?: number;
  sessions: Record<string, { name: string; type: string; parent: number | null; exitCode?: number }>;
  reloads: { updated: string[] }[];
  adapterProcessesLeft: number;
  logFile: string;
  /** nvim-dap's own log (read by run() before the scenario's directory goes). */
  log: string;
}

const WARN = 3;

let nvim: string;
before(() => {
  nvim = neovim();
});

/** Runs one scenario in a fresh headless Neovim with its own state, config and log dirs. */
async function run(scenario: Scenario): Promise<Report> {
  const [python] = pythons().slice(-1);
  const home = mkdtempSync(path.join(tmpdir(), "dapper-nvim-"));
  const scenarioFile = path.join(home, "scenario.json");
  const reportFile = path.join(home, "report.json");
  writeFileSync(
    scenarioFile,
    JSON.stringify({
      nvimDap,
      adapterName: scenario.adapterName ?? "dapper",
      adapter: adapterForms[scenario.form],
      configuration: { type: scenario.adapterName ?? "dapper", request: "launch", name: "Dapper", cwd: fixtures, python: python.executable, console: "internalConsole", ...scenario.configuration },
      breakpoints: scenario.breakpoints.map((bp) => ("path" in bp ? bp : { path: path.join(fixtures, bp.file), line: marker(bp.file, bp.marker) })),
      stops: scenario.stops,
      actions: scenario.actions,
      endWith: scenario.endWith,
      timeoutMs: 30000,
      logLevel: "DEBUG",
    }),
  );
  const xdg = Object.fromEntries(["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"].map((name) => [name, path.join(home, name)]));
  const child = spawn(nvim, ["--clean", "--headless", "-l", driver, scenarioFile, reportFile], {
    cwd: fixtures,
    env: { ...process.env, ...xdg, DAPPER_LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let printed = "";
  child.stdout.on("data", (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (printed += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 90000);
  const status = await new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  clearTimeout(timer);
  let report: Report;
  try {
    report = JSON.parse(readFileSync(reportFile, "utf8")) as Report;
  } catch {
    throw new Error(`Neovim (exit status ${status}) wrote no report:\n${printed}`);
  }
  report.log = safeRead(report.logFile);
  if (report.error !== undefined) {
    throw new Error(`the nvim-dap driver failed: ${report.error}\n--- dap.log (last lines) ---\n${report.log.split("\n").slice(-40).join("\n")}`);
  }
  rmSync(home, { recursive: true, force: true });
  return report;
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** Warnings and errors nvim-dap showed the user (such as "… exited with 143"). */
function warnings(report: Report): string[] {
  return report.notifications.filter((n) => n.level >= WARN).map((n) => n.message);
}

/** The 1-based line of a fixture that contains `text`. */
function lineOf(file: string, text: string): number {
  return readFileSync(path.join(fixtures, file), "utf8").split("\n").findIndex((line) => line.includes(text)) + 1;
}

const forms = Object.keys(adapterForms) as Form[];

for (const form of forms) {
  describe(`nvim-dap, adapter form "${form}"`, () => {
    test("breakpoints, the stack, variables, output and the exit code; the adapter exits 0", async () => {
      const report = await run({
        form,
        configuration: { program: path.join(fixtures, "main.py"), args: ["7"] },
        breakpoints: [
          { file: "main.py", marker: "main" },
          { file: "helper.py", marker: "helper" },
        ],
        stops: 2,
      });
      const [first, second] = report.stops;
      assert.deepEqual(
        first.frames.map((f) => [f.name, f.line, f.path]),
        [
          ["compute", marker("main.py", "main"), path.join(fixtures, "main.py")],
          ["<module>", lineOf("main.py", "compute(4)"), path.join(fixtures, "main.py")],
        ],
      );
      assert.equal(first.reason, "breakpoint");
      assert.equal(first.scope, "Locals");
      assert.equal(first.variables.count, "4");
      assert.equal(first.variables.items, "[0, 1, 4, 9]");
      assert.deepEqual([second.frames[0].name, second.frames[0].line, second.frames[0].path], ["add", marker("helper.py", "helper"), path.join(fixtures, "helper.py")]);
      assert.deepEqual({ a: second.variables.a, b: second.variables.b }, { a: "14", b: "1" });
      assert.equal(report.exitCode, 7);
      assert.equal(report.output.stdout, "hello total=15\n");
      assert.equal(report.output.stderr, "to stderr\n");
      assert.deepEqual(
        report.breakpointsAtEnd?.map((bp) => [path.basename(bp.path), bp.sign]),
        [
          ["helper.py", "DapBreakpoint"],
          ["main.py", "DapBreakpoint"],
        ],
      );
      assert.deepEqual(warnings(report), []);
      assert.equal(report.adapterProcessesLeft, 0);
    });

    test("the user terminates the session at a stop: the debuggee ends and the adapter exits 0", async () => {
      const report = await run({
        form,
        configuration: { program: path.join(fixtures, "forever.py") },
        breakpoints: [{ file: "forever.py", marker: "loop" }],
        stops: 1,
        endWith: "terminate",
      });
      assert.equal(report.stops[0].frames[0].name, "<module>");
      const pid = report.processes[0]?.pid;
      assert.ok(typeof pid === "number" && pid > 0, `the process event names the debuggee: ${JSON.stringify(report.processes)}`);
      await waitUntil(() => !isAlive(pid), 5000, `the debuggee ${pid} to end`);
      assert.deepEqual(warnings(report), []);
      assert.equal(report.adapterProcessesLeft, 0);
    });
  });
}

describe("nvim-dap: a breakpoint in a module the program imports later", () => {
  let report: Report;
  before(async () => {
    report = await run({
      form: "executable",
      configuration: { program: path.join(fixtures, "breakpoints", "app.py") },
      breakpoints: [
        { file: "breakpoints/app.py", marker: "after" },
        { file: "breakpoints/late.py", marker: "late" },
      ],
      stops: 2,
    });
  });

  test("stops there once the module is imported, and shows it verified in the end", () => {
    assert.deepEqual(
      report.stops.map((stop) => stop.frames[0].name),
      ["main", "triple"],
    );
    assert.ok(report.breakpointsAtEnd?.every((bp) => bp.sign === "DapBreakpoint"), JSON.stringify(report.breakpointsAtEnd));
    assert.deepEqual(warnings(report), []);
  });

  test("is not shown as rejected before the import (docs/editors.md: pending breakpoints)", () => {
    const late = report.breakpointsAtFirstStop?.find((bp) => bp.path.endsWith("late.py"));
    assert.equal(late?.sign, "DapBreakpoint", JSON.stringify(late));
  });
});

/** A child, and a child's child: each a session under its parent, with nvim-dap's own adapter per session in the executable form. */
const families = [
  { what: "a child process", program: "popen_parent.py", depth: 1, exitCodes: [0, 3], stdout: "worker 21 -> 42\nparent saw 3\n" },
  { what: "a grandchild", program: "grand_parent.py", depth: 2, exitCodes: [0, 0, 3], stdout: "worker 21 -> 42\nparent saw 3\ngrandparent saw 0\n" },
];

for (const form of forms) {
  for (const family of families) {
    describe(`nvim-dap, adapter form "${form}", registered as "python": ${family.what}`, () => {
      let report: Report;
      before(async () => {
        report = await run({
          form,
          // Not "dapper": nvim-dap finds a child's adapter by its configuration's type, so
          // children must carry the type the root was started with.
          adapterName: "python",
          configuration: { program: path.join(fixtures, "children", family.program) },
          breakpoints: [{ file: "children/worker.py", marker: "worker" }],
          stops: 1,
        });
      });

      test("is a session of its own under its parent, and stops at its breakpoint", () => {
        const [stop] = report.stops;
        assert.equal(stop.frames[0].name, "double");
        assert.equal(stop.variables.value, "21");
        const sessions = JSON.stringify(report.sessions);
        // From the stopped session up to the root, each session's parent is the next.
        const line: (typeof report.sessions)[string][] = [];
        for (let id: number | null = stop.session; id !== null; id = report.sessions[String(id)]?.parent ?? null) {
          const session = report.sessions[String(id)];
          assert.ok(session, sessions);
          line.unshift(session);
        }
        assert.equal(line.length, family.depth + 1, sessions);
        assert.deepEqual(
          line.map((session) => [session.type, session.exitCode]),
          family.exitCodes.map((code) => ["python", code]),
          sessions,
        );
        assert.equal(report.output.stdout, family.stdout);
        assert.deepEqual(warnings(report), []);
        assert.equal(report.adapterProcessesLeft, 0);
      });

      test("leaves nvim-dap nothing to warn about in its log: it gets no dapper/* events, which it did not ask for", () => {
        assert.deepEqual(report.log.split("\n").filter((line) => line.includes("No event handler")), []);
      });
    });
  }
}

describe("nvim-dap: edit, hot reload, restart the frame", () => {
  test("the restarted function runs its new code from its first line; the stack keeps its depth", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dapper-nvim-restart-"));
    const file = path.join(dir, "calls.py");
    const source = "def g(x):\n    y = x + 1\n    return y * 10\n\n\ndef f(x):\n    return g(x) + 1\n\n\nprint(\"result\", f(1), flush=True)\n";
    writeFileSync(file, source);
    try {
      const report = await run({
        form: "executable",
        configuration: { program: file, cwd: dir },
        breakpoints: [{ path: file, line: 3 }],
        // The breakpoint in g; dap.restart_frame() there after the reload stops on g's first
        // line; the breakpoint again, in the new code.
        stops: 3,
        actions: { 1: { edit: { path: file, from: "return y * 10", to: "return y * 100" } } },
      });
      assert.deepEqual(report.reloads.map((body) => body.updated), [["g"]]);
      assert.deepEqual(
        report.stops.map((stop) => [stop.reason, stop.frames.map((frame) => `${frame.name}:${frame.line}`).join(" ")]),
        [
          ["breakpoint", "g:3 f:7 <module>:10"],
          ["restart", "g:2 f:7 <module>:10"],
          ["breakpoint", "g:3 f:7 <module>:10"],
        ],
      );
      // The original argument, and nothing of the old call's own.
      assert.deepEqual(report.stops[1].variables, { x: "1" });
      assert.equal(report.output.stdout, "result 201\n");
      assert.deepEqual(warnings(report), []);
      assert.equal(report.adapterProcessesLeft, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
