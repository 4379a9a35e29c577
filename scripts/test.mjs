// `npm test`: every test of the project. It builds first (installing what is missing),
// then runs the Rust, TypeScript, Python and end-to-end suites, each once, and goes on
// after a failure so one run shows everything that is red.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { build } from "./build.mjs";
import { packageVsix } from "./package.mjs";
import { ensureNeovim, ensurePythonTestEnv, findPythons, isSidWrapper, npxBin, root, run, runHeld, step } from "./lib.mjs";
import { linuxOnly } from "./platforms.mjs";
import { requirePrerequisites } from "./prerequisites.mjs";
import { provisionSidEmacs, provisionSidPythons, sidVersions } from "./sid.mjs";

requirePrerequisites("npm test");

const results = [];
// Each node:test run also writes its failures here (scripts/reporters/failures.mjs);
// the summary repeats them.
const failuresDir = mkdtempSync(path.join(os.tmpdir(), "dapper-test-failures-"));
let failureFiles = 0;

async function suite(name, body) {
  step(name);
  const started = Date.now();
  try {
    await body();
    results.push({ name, ok: true, seconds: (Date.now() - started) / 1000 });
  } catch (error) {
    console.error(`\n${name}: FAILED: ${error.message}`);
    results.push({ name, ok: false, seconds: (Date.now() - started) / 1000 });
  }
}

function testFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return testFiles(full);
    return entry.endsWith(".test.js") ? [full] : [];
  });
}

/**
 * node --test's arguments for `files`, `concurrency` files at a time, its failures also
 * written to a file of failuresDir. `timeoutMs` bounds each test and each file as a whole.
 */
function nodeTestArgs(files, concurrency = 1, timeoutMs = 180000) {
  if (files.length === 0) throw new Error("no test files found");
  const failures = path.join(failuresDir, `${String(++failureFiles).padStart(3, "0")}.txt`);
  const reporters = ["--test-reporter=spec", "--test-reporter-destination=stdout"];
  reporters.push(`--test-reporter=${path.join(root, "scripts", "reporters", "failures.mjs")}`, `--test-reporter-destination=${failures}`);
  return ["--test", `--test-concurrency=${concurrency}`, `--test-timeout=${timeoutMs}`, ...reporters, ...files];
}

function nodeTests(files, env = {}, concurrency = 1) {
  run(process.execPath, nodeTestArgs(files, concurrency), { env });
}

/**
 * Suites that run at once, `limit` at a time, for those that mostly wait (on sleeps in
 * CPython's tests, on a browser, on a build of their own) rather than compute. Each body
 * gets `held`, runHeld with its output kept for the suite; a suite's output is printed
 * whole when it ends, and the summary lists the suites in the order given.
 */
async function suitesAtOnce(limit, entries) {
  const queue = [...entries];
  const ended = new Map();
  async function worker() {
    for (let entry = queue.shift(); entry; entry = queue.shift()) {
      const started = Date.now();
      let output = "";
      const held = async (command, args, options) => {
        try {
          const printed = await runHeld(command, args, options);
          output += printed;
          return printed;
        } catch (error) {
          output += error.output ?? "";
          throw error;
        }
      };
      let ok = true;
      try {
        await entry.body(held);
      } catch (error) {
        ok = false;
        output += `\n${entry.name}: FAILED: ${error.message}\n`;
      }
      step(`${entry.name} (ran beside other suites; its output, held until its end)`);
      process.stdout.write(output);
      ended.set(entry, { name: entry.name, ok, seconds: (Date.now() - started) / 1000 });
    }
  }
  await Promise.all(Array.from({ length: limit }, worker));
  for (const entry of entries) results.push(ended.get(entry));
}

await suite("Build", () => build());
const built = results.every((r) => r.ok);

// The .vsix, once: pytest's test of the installed package unpacks it (DAPPER_VSIX) and the
// real VS Code installs it.
let vsix = null;
if (built) {
  await suite("Packaging the .vsix (@vscode/vsce)", async () => {
    vsix = await packageVsix({ skipBuild: true });
  });
}

await suite("Rust: rustfmt, clippy, cargo test", () => {
  run("cargo", ["fmt", "--all", "--check"]);
  run("cargo", ["clippy", "-p", "dapper-core", "--all-targets", "--", "-D", "warnings"]);
  run("cargo", ["test", "-p", "dapper-core"]);
});

await suite("TypeScript: tsc (strict) and eslint", () => {
  run(npxBin("tsc"), ["-p", root]);
  run(npxBin("eslint"), ["extension/src", "test", "scripts", "bench"].filter((dir) => existsSync(path.join(root, dir))));
});

await suite("TypeScript: host unit tests", () => nodeTests(testFiles(path.join(root, "out", "extension"))));

await suite("Project scripts: unit tests (prerequisites, first-run rules)", () =>
  nodeTests(readdirSync(path.join(root, "scripts", "test")).filter((name) => name.endsWith(".test.mjs")).map((name) => path.join(root, "scripts", "test", name))),
);

await suite("Benchmark harness: unit tests (the benchmark itself is npm run bench)", () =>
  nodeTests(readdirSync(path.join(root, "bench", "test")).filter((name) => name.endsWith(".test.mjs")).map((name) => path.join(root, "bench", "test", name))),
);

// Python 3.14 and 3.15 from Debian sid, where this machine's own system has none.
let sidSkipped = null;
await suite(`Pythons ${sidVersions.join(", ")} from Debian sid (a cached chroot)`, () => {
  sidSkipped = provisionSidPythons().skipped;
  if (sidSkipped) console.log(`   SKIPPED: Python ${sidVersions.join(" and ")} from Debian sid: ${sidSkipped}`);
});
if (sidSkipped) results.at(-1).name += ` (SKIPPED: ${sidSkipped})`;

const allPythons = findPythons({ minimum: "3.9" });
console.log(`\nPythons found: ${allPythons.map((p) => `${p.version} (${p.executable})`).join(", ") || "none"}`);
if (allPythons.length === 0) results.push({ name: "Python interpreters found", ok: false, seconds: 0 });

for (const python of allPythons) {
  await suite(`Python ${python.version}: pytest of the debuggee`, () => {
    const venv = ensurePythonTestEnv(python);
    // Three workers (pytest-xdist): a test mostly waits on the debuggee it starts, so three
    // at once keep two cores busy (a run on 3.11 took 61 s where one at a time took 152 s).
    run(venv, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "3", path.join("extension", "python", "tests")], { env: vsix ? { DAPPER_VSIX: vsix } : {} });
  });
}

const newest = allPythons.at(-1);
if (newest) {
  await suite("Python: ruff", () => {
    const venv = ensurePythonTestEnv(newest);
    run(venv, ["-m", "ruff", "check", path.join("extension", "python"), path.join("bench", "programs")]);
  });
}

// On every supported version (README: 3.9 to 3.15), so none is claimed but only
// unit-tested; one run per Python, so that a file's time limit is one Python's and the
// summary names the Python that failed. Three files at once: each waits on the processes
// it starts.
// torch's file is not among them: it runs with the suites that wait, below.
const isTorchFile = (file) => path.basename(file) === "torch.test.js";
if (built) {
  const files = testFiles(path.join(root, "out", "test", "e2e")).filter((file) => !isTorchFile(file));
  for (const python of allPythons) {
    await suite(`End to end: DebugClient → dist/adapter.js → Python ${python.version}`, () =>
      nodeTests(files, { DAPPER_E2E_PYTHONS: JSON.stringify([python]) }, 3),
    );
  }
} else {
  results.push({ name: "End to end (skipped: the build failed)", ok: false, seconds: 0 });
}

// A real editor's client: nvim-dap in a headless Neovim (a PyPI wheel, installed once into
// .cache/nvim), on the newest of the machine's own Pythons (Neovim's wheel is installed
// with it and runs on the host); both adapter forms, a few seconds a scenario.
const nvimPython = allPythons.filter((python) => !isSidWrapper(python.executable)).at(-1);
if (built && nvimPython) {
  await suite(`Neovim: nvim-dap → dist/adapter.js (stdio and --port) → Python ${nvimPython.version}`, () =>
    nodeTests(testFiles(path.join(root, "out", "test", "nvim")), {
      DAPPER_NVIM: ensureNeovim(nvimPython),
      DAPPER_E2E_PYTHONS: JSON.stringify([nvimPython]),
    }),
  );
} else {
  results.push({ name: "Neovim (skipped: the build failed or no Python)", ok: false, seconds: 0 });
}

// Another: dape in a batch Emacs 30 and Debian's elpa-dape, from the Debian sid root (Debian
// 12's Emacs is too old for dape), in the README's three forms: connected to `adapter.js
// --port` on this machine (debugging Neovim's Python), or starting the adapter itself with
// the root's Node.js (debugging the root's python3). A second or so a scenario.
if (built && nvimPython) {
  let emacsSkipped = null;
  await suite(`Emacs: dape → dist/adapter.js (--port, :autoport, stdio) → Python ${nvimPython.version} and Debian sid's python3`, () => {
    const { emacs, skipped } = provisionSidEmacs();
    emacsSkipped = skipped;
    if (skipped) {
      console.log(`   SKIPPED: Emacs (dape) from Debian sid: ${skipped}`);
      return;
    }
    nodeTests(testFiles(path.join(root, "out", "test", "emacs")), { DAPPER_EMACS: emacs, DAPPER_E2E_PYTHONS: JSON.stringify([nvimPython]) });
  });
  if (emacsSkipped) results.at(-1).name += ` (SKIPPED: ${emacsSkipped})`;
} else {
  results.push({ name: "Emacs (skipped: the build failed or no Python)", ok: false, seconds: 0 });
}

// The rest mostly waits: Helix's build (once) and its tmux keys, CPython's regression tests
// (sleeps, timeouts, child processes), and the real VS Code (a browser and code-server,
// steps that wait for the page). Three suites at a time, each printed whole at its end.
const together = [];

// Helix, built from the source in shared/clients (a debug build into .cache/helix, once:
// about 6 minutes on two cores), in a tmux terminal driven by its keys, with
// docs/other-editors.md's configuration; the same Python as Neovim and Emacs.
if (built && nvimPython) {
  const helix = { name: `Helix: its keys in tmux → dist/adapter.js (stdio) → Python ${nvimPython.version}` };
  helix.body = async (held) => {
    // scripts/helix.mjs in a process of its own, so the build does not hold up the others;
    // its last line is ensureHelix's answer.
    const printed = await held(process.execPath, [path.join("scripts", "helix.mjs")]);
    const ensured = JSON.parse(printed.trim().split("\n").at(-1));
    if (ensured.skipped) {
      helix.name += ` (SKIPPED: ${ensured.skipped})`;
      return;
    }
    await held(process.execPath, nodeTestArgs(testFiles(path.join(root, "out", "test", "helix"))), {
      env: { DAPPER_HELIX: ensured.hx, DAPPER_E2E_PYTHONS: JSON.stringify([nvimPython]) },
    });
  };
  together.push(helix);
} else {
  results.push({ name: "Helix (skipped: the build failed or no Python)", ok: false, seconds: 0 });
}

// torch.compile's end-to-end test, on the one Python it runs with: its first run installs
// torch and the CUDA libraries it imports from PyPI (some 5.6 GB), which mostly waits on
// the network and the disk, a few minutes that held up the end-to-end suite of its Python.
if (built) {
  together.push({
    name: "End to end: torch.compile (TorchDynamo) → dist/adapter.js",
    body: (held) => held(process.execPath, nodeTestArgs(testFiles(path.join(root, "out", "test", "e2e")).filter(isTorchFile), 1, 15 * 60000), {
      env: { DAPPER_E2E_PYTHONS: JSON.stringify(allPythons) },
    }),
  });
}

// One run per Python, as the end-to-end suite: a file's time limit is one Python's (all
// seven in one run outgrew it once test_threading joined).
if (built) {
  for (const python of allPythons) {
    together.push({
      name: `CPython's regression tests, plain and under the debugger: Python ${python.version}`,
      // Its file takes minutes (ten modules, each run twice, a limit of two minutes each
      // in the file): the limit for the file as a whole is twenty.
      body: (held) =>
        held(process.execPath, nodeTestArgs(testFiles(path.join(root, "out", "test", "regression")), 1, 20 * 60000), {
          env: { DAPPER_E2E_PYTHONS: JSON.stringify([python]) },
        }),
    });
  }
} else {
  results.push({ name: "CPython's regression tests (skipped: the build failed)", ok: false, seconds: 0 });
}

const vscodeSkipped = linuxOnly("vscode");
if (built && vscodeSkipped) {
  step("VS Code: the .vsix in code-server, driven by headless Chromium");
  console.log(`   SKIPPED: ${vscodeSkipped}`);
  results.push({ name: `VS Code (SKIPPED: ${vscodeSkipped})`, ok: true, seconds: 0 });
} else if (built) {
  // First in the queue: the longest of these suites.
  if (vsix) together.unshift({ name: "VS Code: the .vsix in code-server, driven by headless Chromium", body: (held) => held(process.execPath, [path.join("test", "vscode", "run.mjs"), "--vsix", vsix]) });
} else {
  results.push({ name: "VS Code (skipped: the build failed)", ok: false, seconds: 0 });
}

await suitesAtOnce(3, together);

step("Summary");
const failureTexts = readdirSync(failuresDir).sort().map((name) => readFileSync(path.join(failuresDir, name), "utf8")).filter((text) => text !== "");
rmSync(failuresDir, { recursive: true, force: true });
if (failureTexts.length > 0) console.log(`Failed tests (each suite's full output is above):\n${failureTexts.join("")}`);
for (const r of results) console.log(`   ${r.ok ? "ok  " : "FAIL"}  ${r.name}  (${r.seconds.toFixed(1)} s)`);
const failed = results.filter((r) => !r.ok).length;
console.log(`\nsuites: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
