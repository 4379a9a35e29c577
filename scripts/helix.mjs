// Helix for test/helix, built from source: no registry this project reaches has a Helix
// binary (Debian has none, the crates.io `helix-term` is a placeholder), so its source,
// a `git archive` tarball, lies in the shared folder beside the checkout
// (shared/clients/helix-<commit>.tar.xz) and its dependencies come from crates.io.
//
// The build goes into .cache/helix/<the tarball's sha256, 12 digits>/: `src/` (the
// unpacked tarball), `target/` (cargo's output, hx at target/debug/hx) and a stamp that
// says what was built. A later run with the same tarball and recipe reuses it; an
// interrupted build resumes where cargo stopped. A debug build without debug info, as
// the tests need no speed from Helix and CI's time is short: 5.5 minutes on two idle cores.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cacheDir, note, probe, root, run, step } from "./lib.mjs";

export const HELIX_TARBALL = "helix-079a789e8cb0.tar.xz";

/**
 * How hx is built. A change here (or a new tarball) makes a new build. The source pins
 * Rust 1.90 in rust-toolchain.toml, which rustup would have to download: the unpacked copy
 * goes without it and builds with the toolchain this project uses. Grammars are not
 * needed to debug, and building them would fetch them from git.
 */
export const helixRecipe = {
  command: ["cargo", "build", "--locked", "-p", "helix-term"],
  env: { HELIX_DISABLE_AUTO_GRAMMAR_BUILD: "1", CARGO_PROFILE_DEV_DEBUG: "0", CARGO_INCREMENTAL: "0" },
  removed: ["rust-toolchain.toml"],
};

/** The tarball: DAPPER_HELIX_TARBALL, else shared/clients beside the checkout. */
export function helixTarball(env = process.env) {
  return env.DAPPER_HELIX_TARBALL ?? path.join(path.dirname(root), "shared", "clients", HELIX_TARBALL);
}

/** Where the build of a tarball with that content goes, and what its stamp must say. */
export function helixBuild(tarballSha256, cache = cacheDir) {
  const dir = path.join(cache, "helix", tarballSha256.slice(0, 12));
  return {
    dir,
    src: path.join(dir, "src"),
    target: path.join(dir, "target"),
    hx: path.join(dir, "target", "debug", process.platform === "win32" ? "hx.exe" : "hx"),
    stamp: path.join(dir, ".dapper-built"),
    stampText: JSON.stringify({ tarball: tarballSha256, ...helixRecipe }),
  };
}

/**
 * tmux, which test/helix drives Helix through: installed from Debian's packages when
 * missing and this is a Debian-like machine where we are root. Returns why it is not
 * there, or null.
 */
export function ensureTmux() {
  if (probe("tmux", ["-V"]) !== null) return null;
  if (process.platform !== "linux" || process.getuid?.() !== 0 || probe("apt-get", ["--version"]) === null) {
    return "tmux is missing (install it with your package manager)";
  }
  note("installing tmux (apt-get)");
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  const install = () => run("apt-get", ["install", "-y", "--no-install-recommends", "tmux"], { capture: true, quiet: true, allowFailure: true, env });
  if (install().status !== 0) {
    run("apt-get", ["update"], { capture: true, quiet: true, allowFailure: true, env });
    install();
  }
  return probe("tmux", ["-V"]) === null ? "tmux is missing and apt-get could not install it" : null;
}

/** Why Helix cannot be built here, or null. */
export function cannotBuildHelix({ tarball, hasTar, hasCargo }) {
  if (!existsSync(tarball)) return `no Helix source at ${tarball} (DAPPER_HELIX_TARBALL names another)`;
  if (!hasTar) return "tar (with xz) is missing";
  if (!hasCargo) return "cargo is missing";
  return null;
}

function tarballSha256(tarball) {
  return createHash("sha256").update(readFileSync(tarball)).digest("hex");
}

function isBuilt(build) {
  return existsSync(build.hx) && existsSync(build.stamp) && readFileSync(build.stamp, "utf8") === build.stampText;
}

/** The hx an earlier ensureHelix built from the tarball, or null (nothing is built here). */
export function builtHelix(env = process.env, cache = cacheDir) {
  const tarball = helixTarball(env);
  if (!existsSync(tarball)) return null;
  const build = helixBuild(tarballSha256(tarball), cache);
  return isBuilt(build) ? build.hx : null;
}

/**
 * tmux, and the hx of test/helix: DAPPER_HELIX when set, else built (once) from the tarball.
 * Returns `{ hx, skipped: null }` or `{ hx: null, skipped: reason }`; throws only for a
 * build that started and failed.
 */
export function ensureHelix(env = process.env, cache = cacheDir) {
  const noTmux = ensureTmux();
  if (noTmux) return { hx: null, skipped: noTmux };
  if (env.DAPPER_HELIX) {
    if (!existsSync(env.DAPPER_HELIX)) throw new Error(`DAPPER_HELIX names ${env.DAPPER_HELIX}, which does not exist`);
    return { hx: env.DAPPER_HELIX, skipped: null };
  }
  const tarball = helixTarball(env);
  const reason = cannotBuildHelix({ tarball, hasTar: probe("tar", ["--version"]) !== null, hasCargo: probe("cargo", ["--version"]) !== null });
  if (reason) return { hx: null, skipped: reason };
  const build = helixBuild(tarballSha256(tarball), cache);
  if (isBuilt(build)) {
    note(`reusing ${path.relative(root, build.hx)}`);
    return { hx: build.hx, skipped: null };
  }
  step(`Building Helix from ${path.basename(tarball)} (debug, once: about 6 minutes on two cores)`);
  const started = Date.now();
  if (!existsSync(build.src)) {
    const partial = `${build.src}.partial`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    run("tar", ["-xJf", tarball, "-C", partial, "--strip-components=1"], { quiet: true });
    for (const file of helixRecipe.removed) rmSync(path.join(partial, file), { force: true });
    renameSync(partial, build.src);
  }
  rmSync(build.stamp, { force: true });
  const [command, ...args] = helixRecipe.command;
  // From inside the source: cargo reads its .cargo/config.toml (rustflags) from there.
  run(command, args, { cwd: build.src, env: { ...helixRecipe.env, CARGO_TARGET_DIR: build.target } });
  if (!existsSync(build.hx)) throw new Error(`cargo built Helix but ${build.hx} is not there`);
  writeFileSync(build.stamp, build.stampText);
  note(`built ${path.relative(root, build.hx)} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return { hx: build.hx, skipped: null };
}

// `node scripts/helix.mjs`: ensureHelix in a process of its own (npm test builds Helix while
// other suites run); its last line is the result as JSON.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(ensureHelix()));
}
