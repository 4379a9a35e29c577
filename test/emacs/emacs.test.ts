// A real editor's DAP client: dape (Debian's elpa-dape) in a batch Emacs 30 from the Debian
// sid root that scripts/sid.mjs makes (it shares this machine's loopback, /tmp, process ids
// and this checkout's paths), in the three forms the README configures:
// - `port`: dape connects to `node dist/adapter.js --port N` that the test runs on this
//   machine, and the debuggee is this machine's Python;
// - `autoport`: dape starts `node dist/adapter.js --port <free port>` itself, inside the
//   sid root (its Node.js), connects, and kills it when the session is over;
// - `stdio`: dape starts `node dist/adapter.js` for each session, child sessions too.
// In the last two the debuggee is the adapter's default, the sid root's python3.
// driver.el does what a user does and checks what dape shows; each scenario is one Emacs,
// which prints "ok" and exits 0, or says what it expected and what it got and exits 1.
import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { adapterScript, fixtures, pythons, root, startServer, waitUntil } from "../e2e/support";

const driver = path.join(root, "test", "emacs", "driver.el");

/** DAPPER_EMACS (set by scripts/test.mjs), else this checkout's wrapper of the sid root's Emacs. */
function emacsWrapper(): string {
  if (process.env.DAPPER_EMACS) return process.env.DAPPER_EMACS;
  const script = `import(${JSON.stringify(path.join(root, "scripts", "lib.mjs"))}).then((lib) => console.log(lib.sidBinDir()))`;
  return path.join(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }).trim(), "emacs");
}

const emacs = emacsWrapper();
const skip = existsSync(emacs) ? false : `no ${emacs} (npm test makes it from Debian sid where the machine allows)`;
const [python] = pythons().slice(-1);

let server: Awaited<ReturnType<typeof startServer>>;
before(async () => {
  if (!skip) server = await startServer();
});
after(() => server?.stop());

type Form = "port" | "autoport" | "stdio";

/**
 * The adapter processes of this checkout that run now, started by the Emacs whose HOME is
 * `home` (they inherit its environment; the sid root's chroot keeps it): not the test's
 * own server, nor the adapters of suites that run beside this one, nor a stray of an
 * earlier run on this machine.
 */
function adaptersLeft(home: string): string[] {
  const marker = `HOME=${home}`;
  return readdirSync("/proc")
    .filter((pid) => /^\d+$/.test(pid) && Number(pid) !== server?.process.pid)
    .flatMap((pid) => {
      try {
        const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
        if (!command.includes(adapterScript)) return [];
        return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(marker) ? [command] : [];
      } catch {
        return [];
      }
    });
}

/**
 * Runs driver.el's scenario in a fresh batch Emacs (its own HOME); fails with what it
 * printed. Then no adapter that dape started may be left running.
 */
async function scenario(form: Form, name: string, env: Record<string, string> = {}): Promise<void> {
  const home = mkdtempSync(path.join(tmpdir(), "dapper-emacs-"));
  try {
    const child = spawn(emacs, ["--batch", "-l", driver, "-f", "dapper-test-main", name], {
      cwd: fixtures,
      env: {
        ...process.env,
        HOME: home,
        DAPPER_EMACS_FORM: form,
        DAPPER_EMACS_ADAPTER: adapterScript,
        DAPPER_EMACS_FIXTURES: fixtures,
        ...(form === "port" ? { DAPPER_EMACS_PORT: String(server.port), DAPPER_EMACS_PYTHON: python.executable } : {}),
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let printed = "";
    child.stdout.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    // driver.el limits each of its waits; this is for an Emacs that hangs all the same.
    const timer = setTimeout(() => child.kill("SIGKILL"), 120000);
    const status = await new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    clearTimeout(timer);
    assert.equal(status, 0, `Emacs (dape) exited with ${status} in scenario ${name}:\n${printed}`);
    assert.match(printed, new RegExp(`^ok: ${name}$`, "m"), printed);
    await waitUntil(() => adaptersLeft(home).length === 0, 5000, `the adapters dape started to end: ${adaptersLeft(home).join("; ")}`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** `python -m dapperdbg --listen 0 --wait-for-client ARGS…`, once it said where it listens. */
async function listeningProgram(args: string[]): Promise<{ port: number; program: ChildProcess; exitCode: () => number | null }> {
  const program = spawn(python.executable, ["-m", "dapperdbg", "--listen", "0", "--wait-for-client", ...args], {
    cwd: fixtures,
    env: { ...process.env, PYTHONPATH: path.join(root, "extension", "python") },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  let exitCode: number | null = null;
  program.once("exit", (code) => (exitCode = code));
  program.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await waitUntil(() => /listening for a debugger on [^\s]*:\d+/.test(stderr) || exitCode !== null, 15000, "the program to listen");
  const match = stderr.match(/listening for a debugger on [^\s]*:(\d+)/);
  assert.ok(match, `the program did not say where it listens: ${stderr}`);
  return { port: Number(match[1]), program, exitCode: () => exitCode };
}

describe("dape (Emacs)", { skip }, () => {
  const forms: { form: Form; what: string }[] = [
    { form: "port", what: `connects to dist/adapter.js --port → Python ${python.version}` },
    { form: "autoport", what: "starts dist/adapter.js --port :autoport → the sid root's python3" },
    { form: "stdio", what: "starts dist/adapter.js on stdio, one per session → the sid root's python3" },
  ];
  for (const { form, what } of forms) {
    describe(`dape ${what}`, () => {
      test("launch: stops at a breakpoint; stack, variables, evaluate, step over, continue to the exit code", () => scenario(form, "launch"));

      test("a child process: dape gets startDebugging, the child stops at its breakpoint, both exit codes", () => scenario(form, "child"));

      test("attach to `python -m dapperdbg --listen`: stops at a breakpoint, continues to the exit code", async () => {
        const { port, program, exitCode } = await listeningProgram(["main.py", "5"]);
        try {
          await scenario(form, "attach", { DAPPER_EMACS_ATTACH_PORT: String(port) });
          await waitUntil(() => exitCode() !== null, 10000, "the attached program to exit");
          assert.equal(exitCode(), 5);
        } finally {
          program.kill("SIGKILL");
        }
      });
    });
  }

  test("a breakpoint in a module imported later is drawn verified before the import, and stops there", () => scenario("port", "pending"));

  test("edit the caller, hot reload, dape-restart-frame on its frame: the callee unwinds, the caller runs its new code", () => scenario("port", "restart"));
});
