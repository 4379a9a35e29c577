// scripts/helix.mjs: where Helix's source is looked for, where its build goes, and when an
// earlier build is reused (its stamp names this tarball's content and this recipe) or not.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { builtHelix, cannotBuildHelix, HELIX_TARBALL, helixBuild, helixRecipe, helixTarball } from "../helix.mjs";
import { root } from "../lib.mjs";

test("the tarball is shared/clients/… beside the checkout, unless DAPPER_HELIX_TARBALL names one", () => {
  assert.equal(helixTarball({}), path.join(path.dirname(root), "shared", "clients", HELIX_TARBALL));
  assert.equal(helixTarball({ DAPPER_HELIX_TARBALL: "/elsewhere/helix.tar.xz" }), "/elsewhere/helix.tar.xz");
});

test("a build lives under the tarball's hash, and its stamp names the tarball and the recipe", () => {
  const a = helixBuild("a".repeat(64), "/cache");
  const b = helixBuild("b".repeat(64), "/cache");
  assert.equal(a.dir, path.join("/cache", "helix", "a".repeat(12)));
  assert.equal(a.hx, path.join(a.dir, "target", "debug", "hx"));
  assert.notEqual(a.stampText, b.stampText);
  assert.deepEqual(JSON.parse(a.stampText), { tarball: "a".repeat(64), ...helixRecipe });
  // The pin to Rust 1.90 goes, grammars are not built, and the build is a debug one.
  assert.ok(helixRecipe.removed.includes("rust-toolchain.toml"));
  assert.equal(helixRecipe.env.HELIX_DISABLE_AUTO_GRAMMAR_BUILD, "1");
  assert.ok(!helixRecipe.command.includes("--release"));
});

test("what stops a build is said in one line", () => {
  assert.match(cannotBuildHelix({ tarball: "/no/such/helix.tar.xz", hasTar: true, hasCargo: true }), /no Helix source at \/no\/such\/helix\.tar\.xz/);
  assert.match(cannotBuildHelix({ tarball: root, hasTar: false, hasCargo: true }), /tar/);
  assert.match(cannotBuildHelix({ tarball: root, hasTar: true, hasCargo: false }), /cargo/);
  assert.equal(cannotBuildHelix({ tarball: root, hasTar: true, hasCargo: true }), null);
});

test("an earlier build is reused only when its hx and a stamp of this tarball and recipe are there", () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "dapper-helix-build-"));
  try {
    const tarball = path.join(scratch, "helix.tar.xz");
    writeFileSync(tarball, "not really a tarball");
    const env = { DAPPER_HELIX_TARBALL: tarball };
    const cache = path.join(scratch, "cache");
    const build = helixBuild(createHash("sha256").update("not really a tarball").digest("hex"), cache);
    assert.equal(builtHelix(env, cache), null, "nothing built");
    mkdirSync(path.dirname(build.hx), { recursive: true });
    writeFileSync(build.hx, "");
    assert.equal(builtHelix(env, cache), null, "an hx without a stamp (an interrupted build)");
    writeFileSync(build.stamp, build.stampText.replace("HELIX_DISABLE", "HELIX_ENABLE"));
    assert.equal(builtHelix(env, cache), null, "a stamp of another recipe");
    writeFileSync(build.stamp, build.stampText);
    assert.equal(builtHelix(env, cache), build.hx);
    writeFileSync(tarball, "another source");
    assert.equal(builtHelix(env, cache), null, "another tarball");
    assert.equal(builtHelix({ DAPPER_HELIX_TARBALL: path.join(scratch, "missing.tar.xz") }, cache), null);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
