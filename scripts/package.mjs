// `npm run package`: builds, then packages dapper-<version>.vsix with @vscode/vsce and holds
// it to the size budget. .vscodeignore decides what goes in: only the bundle, the .wasm,
// the Python package, README with its screenshot, CHANGELOG, LICENSE and the icon.
//
// Usage: node scripts/package.mjs [vsce options], e.g. --baseImagesUrl URL; they are
// passed on to `vsce package`.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "./build.mjs";
import { npxBin, root, run, step } from "./lib.mjs";

const budgetBytes = 2 * 1024 * 1024;

/**
 * How vsce treats README's relative links (the screenshot). vsce rewrites them to
 * absolute URLs of the repository that package.json names (GitHub or GitLab), or of
 * --baseContentUrl/--baseImagesUrl, and refuses to package without one of these. Dapper
 * names no repository yet, so its links then stay relative: they work on GitHub and in a
 * clone, and the screenshot ships inside the .vsix. VS Code's extension page shows only
 * https images, so it shows the screenshot once a repository (or a base URL) is given.
 */
export function readmeLinkArgs(manifest, extraArgs) {
  const hasBase = extraArgs.some((arg) => /^--base(Content|Images)Url(=|$)/.test(arg));
  return manifest.repository || hasBase ? [] : ["--no-rewrite-relative-links"];
}

export async function packageVsix({ skipBuild = false, vsceArgs = [] } = {}) {
  if (!skipBuild) await build();
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const vsix = path.join(root, `${manifest.name}-${manifest.version}.vsix`);
  step(`Packaging ${path.basename(vsix)} (@vscode/vsce)`);
  run(npxBin("vsce"), ["package", "--no-dependencies", "--allow-missing-repository", ...readmeLinkArgs(manifest, vsceArgs), ...vsceArgs, "--out", vsix]);
  const size = statSync(vsix).size;
  console.log(`   size: ${(size / 1024).toFixed(0)} KiB (budget ${(budgetBytes / 1024).toFixed(0)} KiB)`);
  if (size > budgetBytes) throw new Error(`${path.basename(vsix)} is ${size} bytes, over the ${budgetBytes}-byte budget`);
  return vsix;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  packageVsix({ vsceArgs: process.argv.slice(2) }).catch((error) => {
    console.error(`\npackage failed: ${error.message}`);
    process.exit(1);
  });
}
