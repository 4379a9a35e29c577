// `npm run package`: builds, then packages dapper-<version>.vsix with @vscode/vsce and holds
// it to the size budget. .vscodeignore decides what goes in: only the bundle, the .wasm,
// the Python package, README, CHANGELOG, LICENSE and the icon. vsce rewrites README's
// relative links to the repository package.json names, so the marketplace page shows them.
//
// Usage: node scripts/package.mjs [vsce options], e.g. --baseImagesUrl URL; they are
// passed on to `vsce package`.
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "./build.mjs";
import { npxBin, root, run, step } from "./lib.mjs";
import { vsixSizeMismatch } from "./readmeFigures.mjs";

const budgetBytes = 2 * 1024 * 1024;
/** Where .vscodeignore's kept files are (it still decides which of their files go in). */
const shippedParts = ["package.json", ".vscodeignore", "README.md", "CHANGELOG.md", "LICENSE", "images", "dist", path.join("extension", "python")];

export async function packageVsix({ skipBuild = false, vsceArgs = [] } = {}) {
  if (!skipBuild) await build();
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const vsix = path.join(root, `${manifest.name}-${manifest.version}.vsix`);
  step(`Packaging ${path.basename(vsix)} (@vscode/vsce)`);
  // vsce lists every file under its folder before .vscodeignore picks, and .cache (the sid
  // root, the venvs, Helix's build: over 200,000 files) took it minutes: it packages a copy
  // of just the parts anything is taken from.
  const staging = mkdtempSync(path.join(os.tmpdir(), "dapper-vsix-"));
  let result;
  try {
    for (const part of shippedParts) cpSync(path.join(root, part), path.join(staging, part), { recursive: true, filter: (source) => path.basename(source) !== "__pycache__" });
    result = run(npxBin("vsce"), ["package", "--no-dependencies", ...vsceArgs, "--out", vsix], { capture: true, cwd: staging });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const printed = `${result.stdout}${result.stderr}`;
  process.stdout.write(printed);
  // A .vsix ready for the marketplace: vsce has nothing to warn about.
  const warnings = printed.split("\n").filter((line) => /\bWARNING\b/i.test(line));
  if (warnings.length > 0) throw new Error(`vsce warned:\n${warnings.join("\n")}`);
  const size = statSync(vsix).size;
  console.log(`   size: ${(size / 1024).toFixed(0)} KiB (budget ${(budgetBytes / 1024).toFixed(0)} KiB)`);
  if (size > budgetBytes) throw new Error(`${path.basename(vsix)} is ${size} bytes, over the ${budgetBytes}-byte budget`);
  const mismatch = vsixSizeMismatch(readFileSync(path.join(root, "README.md"), "utf8"), size);
  if (mismatch !== undefined) throw new Error(mismatch);
  return vsix;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  packageVsix({ vsceArgs: process.argv.slice(2) }).catch((error) => {
    console.error(`\npackage failed: ${error.message}`);
    process.exit(1);
  });
}
