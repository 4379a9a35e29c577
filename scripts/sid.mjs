// Pythons newer than this machine's own system can install (3.14 and 3.15), and an Emacs
// new enough for dape, taken from Debian sid: a minimal sid root is debootstrap'ed once
// into .cache/sid/root, and each of its interpreters (and its Emacs) gets a host-side
// wrapper (.cache/sid/bin/<checkout>/python3.N, emacs) that the adapter, pytest and the
// scripts can run as an ordinary `python` (or `emacs`).
//
// A wrapper runs its command in a private mount namespace (`unshare --mount`) in which the
// host's /proc, /dev, /tmp (and TMPDIR), this checkout and its .cache are bind-mounted into
// the sid root at the same paths, then chroots into it. So paths, Unix sockets, process ids
// and loopback are the same on both sides; `unshare` and `chroot` exec in place, so the
// wrapper's process id is the interpreter's and a signal to it reaches Python. The
// namespace and its mounts end with the process: nothing is left mounted on the host and
// nothing needs cleaning up.
//
// It needs Linux, root and network to Debian's archive; without them it says why in one
// line, the other Pythons are tested as before and the Emacs tests are skipped.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cacheDir, findPythons, isSidWrapper, note, probe, root, run, shQuote, sidBinDir, writeExecutable, writeSidWrapper } from "./lib.mjs";
import { linuxOnly } from "./platforms.mjs";

export const sidVersions = ["3.14", "3.15"];
// python3-minimal: `python3` on PATH, as every Debian with these Pythons has (sid's is 3.14).
// libpython3.N-testsuite: CPython's own `test` package, which the regression comparison
// (test/regression) runs plain and under the debugger; Debian ships it apart.
const pythonPackages = [
  ...sidVersions.flatMap((v) => [`python${v}`, `python${v}-venv`, `libpython${v}-testsuite`]),
  "python3-minimal",
  "gdb",
];
// Emacs 30 and dape, the DAP client test/emacs drives (Debian 12's Emacs 28 is too old for
// it), and Node.js, for dape to start the adapter itself inside the root.
const emacsPackages = ["emacs-nox", "elpa-dape", "nodejs"];
const sidDir = path.join(cacheDir, "sid");
const sidRoot = path.join(sidDir, "root");
const readyStamp = path.join(sidRoot, ".dapper-ready");
const mirror = process.env.DAPPER_SID_MIRROR ?? "http://deb.debian.org/debian";

/** Why this machine cannot have the sid Pythons, or null when it can try. */
function cannotProvisionPythons() {
  if (process.env.DAPPER_TEST_PYTHONS) return "DAPPER_TEST_PYTHONS names the Pythons to test";
  const own = findPythons().filter((p) => sidVersions.includes(p.version) && !isSidWrapper(p.executable));
  if (own.length === sidVersions.length) return `this machine has its own (${own.map((p) => p.executable).join(", ")})`;
  return cannotMakeRoot();
}

/** Why this machine cannot have a sid root at all, or null when it can try. */
function cannotMakeRoot() {
  if (process.env.DAPPER_SID === "0") return "DAPPER_SID=0";
  const notLinux = linuxOnly("sid");
  if (notLinux) return notLinux;
  if (process.getuid?.() !== 0) return "not running as root (debootstrap, chroot and bind mounts need it)";
  if (!probe("unshare", ["--version"]) || !probe("chroot", ["--version"])) return "unshare or chroot (util-linux, coreutils) is missing";
  return null;
}

/** The host directories (and files) a sid process must see at their own paths. */
function boundDirectories() {
  // The checkout and its .cache first (an rbind copies the mounts already under it);
  // .cache is often a symlink to another checkout's, and the test venvs live there.
  const dirs = new Set([root]);
  if (existsSync(cacheDir)) dirs.add(realpathSync(cacheDir));
  for (const dir of ["/proc", "/dev", "/tmp"]) dirs.add(dir);
  // What pip needs for the test venvs, when this machine configures it: a local wheel
  // directory, and the certificates it trusts (a TLS-intercepting proxy's among them).
  for (const link of (process.env.PIP_FIND_LINKS ?? "").split(/\s+/)) if (link.startsWith("/")) dirs.add(link);
  for (const name of ["PIP_CERT", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"]) if (process.env[name]?.startsWith("/")) dirs.add(process.env[name]);
  if (process.env.TMPDIR) dirs.add(path.resolve(process.env.TMPDIR));
  for (const extra of (process.env.DAPPER_SID_BINDS ?? "").split(path.delimiter)) if (extra) dirs.add(path.resolve(extra));
  return [...dirs];
}

/** Writes `sid-run COMMAND ARGS…`, which runs COMMAND inside the sid root as described above. */
function writeSidRun(binDir) {
  const file = path.join(binDir, "sid-run");
  const sidRootReal = realpathSync(sidRoot);
  const binds = boundDirectories().map(shQuote).join(" ");
  writeExecutable(
    file,
    `#!/bin/sh
# Made by scripts/sid.mjs: runs a command inside Debian sid's root (${sidRootReal})
# with this machine's /proc, /dev, /tmp and the Dapper checkout at the same paths.
# The mounts live in a private mount namespace that ends with the command.
if [ "\${DAPPER_SID_NAMESPACE:-}" != "$$" ]; then
  DAPPER_SID_NAMESPACE=$$ exec unshare --mount --propagation private "$0" "$@"
fi
unset DAPPER_SID_NAMESPACE
sid_root=${shQuote(sidRootReal)}
for path in ${binds}; do
  if [ -d "$path" ]; then mkdir -p "$sid_root$path" || exit 126
  elif [ -f "$path" ]; then mkdir -p "$sid_root\${path%/*}" && touch "$sid_root$path" || exit 126
  else continue
  fi
  mount --rbind "$path" "$sid_root$path" || exit 126
done
exec chroot "$sid_root" /bin/sh -c 'cd "$1" 2>/dev/null || cd /; shift; exec "$@"' sid "$PWD" "$@"
`,
  );
}

/** The packages the ready stamp says the root has (null: no finished root). */
function installedPackages() {
  return existsSync(readyStamp) ? readFileSync(readyStamp, "utf8").split(/\s+/).filter(Boolean) : null;
}

/** Installs `packages` into the root at `dir`; the stamp then lists them with those it had. */
function installPackages(dir, packages, had = []) {
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  // sid's Release file can read as expired; nothing here depends on its freshness.
  run("chroot", [dir, "apt-get", "-o", "Acquire::Check-Valid-Until=false", "update"], { capture: true, quiet: true, env });
  note(`apt-get install ${packages.join(" ")} (inside)`);
  run("chroot", [dir, "apt-get", "install", "-y", "--no-install-recommends", ...packages], { capture: true, quiet: true, env });
  run("chroot", [dir, "apt-get", "clean"], { capture: true, quiet: true });
  writeFileSync(path.join(dir, ".dapper-ready"), [...new Set([...had, ...packages])].join(" "));
}

function bootstrap() {
  if (!probe("debootstrap", ["--version"])) {
    note("installing debootstrap on this machine");
    run("apt-get", ["install", "-y", "--no-install-recommends", "debootstrap"], { capture: true });
  }
  const partial = `${sidRoot}.partial`;
  rmSync(partial, { recursive: true, force: true });
  rmSync(sidRoot, { recursive: true, force: true });
  mkdirSync(sidDir, { recursive: true });
  note(`debootstrap --variant=minbase sid ${partial} ${mirror}`);
  run("debootstrap", ["--variant=minbase", "sid", partial, mirror], { capture: true, quiet: true });
  installPackages(partial, [...pythonPackages, ...emacsPackages]);
  renameSync(partial, sidRoot);
}

/**
 * Makes the sid root, or adds `packages` to a root that lacks some (a root made before
 * they were on the list gets them without a new debootstrap), and writes this checkout's
 * sid-run. Returns `{ how: "made" | "updated" | "reused" }`, or `{ skipped: reason }` when
 * the root cannot be made or the packages not installed.
 */
function ensureRoot(packages) {
  const reason = cannotMakeRoot();
  if (reason) return { skipped: reason };
  const installed = installedPackages();
  const missing = packages.filter((name) => !installed?.includes(name));
  try {
    if (installed === null) bootstrap();
    else if (missing.length > 0) installPackages(sidRoot, missing, installed);
  } catch (error) {
    const firstLine = String(error.message).split("\n")[0];
    return { skipped: `could not ${installed === null ? "make the Debian sid root" : `install ${missing.join(" ")} into the Debian sid root`} (no network to ${mirror}?): ${firstLine}` };
  }
  writeSidRun(sidBinDir());
  return { how: installed === null ? "made" : missing.length > 0 ? "updated" : "reused" };
}

/** The host-side wrapper of the sid root's gdb, once provisionSidPythons made it. */
export function sidGdb() {
  const gdb = path.join(sidBinDir(), "gdb");
  return existsSync(gdb) ? gdb : undefined;
}

/**
 * Makes (or reuses) the sid root and this checkout's wrappers of its Pythons. Returns
 * `{ pythons: [{version, executable}], skipped: reason | null }`; it never throws for a
 * machine that cannot do it, only for a set-up that started and broke.
 */
export function provisionSidPythons() {
  const started = Date.now();
  const reason = cannotProvisionPythons();
  if (reason) return { pythons: [], skipped: reason };
  const { how, skipped } = ensureRoot(pythonPackages);
  if (skipped) return { pythons: [], skipped };
  const binDir = sidBinDir();
  // sid's gdb, for attaching by process id: Debian 12's gdb 13.1 kills the target on some
  // CPUs (AMX state). The tests name it through DAPPER_INJECT_DEBUGGER (sidGdb()).
  writeExecutable(path.join(binDir, "gdb"), `#!/bin/sh\nexec ${shQuote(path.join(binDir, "sid-run"))} gdb "$@"\n`);
  const pythons = [];
  for (const version of sidVersions) {
    const wrapper = path.join(binDir, `python${version}`);
    writeSidWrapper(wrapper, `/usr/bin/python${version}`);
    const check = spawnSync(wrapper, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" });
    if (check.status !== 0 || check.stdout.trim() !== version) {
      throw new Error(`${wrapper} does not run Python ${version}: ${(check.stderr || check.stdout || String(check.error)).trim()}`);
    }
    pythons.push({ version, executable: wrapper });
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  note(`${how} ${sidRoot} in ${seconds} s: ${pythons.map((p) => p.executable).join(", ")}`);
  return { pythons, skipped: null };
}

/**
 * Makes (or reuses) the sid root with Emacs, dape and Node.js, and this checkout's wrapper
 * of its Emacs (test/emacs runs it). Returns `{ emacs: path | null, skipped: reason | null }`.
 */
export function provisionSidEmacs() {
  const started = Date.now();
  const { how, skipped } = ensureRoot(emacsPackages);
  if (skipped) return { emacs: null, skipped };
  const emacs = path.join(sidBinDir(), "emacs");
  writeSidWrapper(emacs, "/usr/bin/emacs");
  const check = spawnSync(emacs, ["--version"], { encoding: "utf8" });
  if (check.status !== 0 || !check.stdout.startsWith("GNU Emacs")) {
    throw new Error(`${emacs} does not run Emacs: ${(check.stderr || check.stdout || String(check.error)).trim()}`);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  note(`${how} ${sidRoot} in ${seconds} s: ${emacs} (${check.stdout.split("\n")[0]})`);
  return { emacs, skipped: null };
}
