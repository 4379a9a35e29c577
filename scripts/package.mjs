// `npm run package`: builds, then packages dapper-<version>.vsix with @vscode/vsce and holds
// it to the size budget. .vscodeignore decides what goes in: only the bundle, the .wasm,
// the Python package, README, CHANGELOG, LICENSE and the icon.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "./build.mjs";
import { npxBin, root, run, step } from "./lib.mjs";

const budgetBytes = 2 * 1024 * 1024;

export async function packageVsix({ skipBuild = false } = {}) {
  if (!skipBuild) await build();
  const { name, version } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const vsix = path.join(root, `${name}-${version}.vsix`);
  step(`Packaging ${path.basename(vsix)} (@vscode/vsce)`);
  run(npxBin("vsce"), ["package", "--no-dependencies", "--allow-missing-repository", "--out", vsix]);
  const size = statSync(vsix).size;
  console.log(`   size: ${(size / 1024).toFixed(0)} KiB (budget ${(budgetBytes / 1024).toFixed(0)} KiB)`);
  if (size > budgetBytes) throw new Error(`${path.basename(vsix)} is ${size} bytes, over the ${budgetBytes}-byte budget`);
  return vsix;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  packageVsix().catch((error) => {
    console.error(`\npackage failed: ${error.message}`);
    process.exit(1);
  });
}
