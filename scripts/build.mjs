// `npm run build`: core → wasm32 → wasm-bindgen → wasm-opt → wasm-pkg/, then esbuild bundles
// the extension and the standalone adapter into dist/ with the .wasm beside them.
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { requirePrerequisites } from "./prerequisites.mjs";
import { ensureNpmPackages, ensureWasmBindgen, ensureWasmTarget, npxBin, root, run, step } from "./lib.mjs";

const wasmPkg = path.join(root, "wasm-pkg");
const dist = path.join(root, "dist");

export async function build() {
  ensureNpmPackages();
  ensureWasmTarget();
  const wasmBindgen = ensureWasmBindgen();

  step("Building the engine (core/) for wasm32");
  run("cargo", ["build", "-p", "dapper-core", "--release", "--target", "wasm32-unknown-unknown", "--features", "wasm"]);
  const wasm = path.join(root, "target", "wasm32-unknown-unknown", "release", "dapper_core.wasm");

  step("Generating bindings (wasm-bindgen) and optimising (wasm-opt from npm binaryen)");
  mkdirSync(wasmPkg, { recursive: true });
  run(wasmBindgen, ["--target", "nodejs", "--out-dir", wasmPkg, wasm]);
  const generated = path.join(wasmPkg, "dapper_core_bg.wasm");
  run(npxBin("wasm-opt"), ["-O2", "--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext", "--enable-mutable-globals", "--enable-multivalue", "--enable-reference-types", generated, "-o", generated]);

  step("Bundling the extension and the adapter (esbuild)");
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  const esbuild = await import(pathToFileURL(path.join(root, "node_modules", "esbuild", "lib", "main.js")).href);
  await esbuild.build({
    entryPoints: {
      extension: path.join(root, "extension", "src", "extension.ts"),
      adapter: path.join(root, "extension", "src", "adapter.ts"),
      // The agent's tools, which the extension loads at an agent's first call rather than
      // with itself at every VS Code start (vscode/agentTools.ts).
      agent: path.join(root, "extension", "src", "agent", "tools.ts"),
      // npm run replay (scripts/replay.mjs); not shipped in the extension.
      replay: path.join(root, "extension", "src", "replay.ts"),
    },
    outdir: dist,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    external: ["vscode"],
    sourcemap: "linked",
    logLevel: "warning",
  });
  copyFileSync(generated, path.join(dist, "dapper_core_bg.wasm"));
  if (!existsSync(path.join(dist, "adapter.js"))) throw new Error("esbuild produced no dist/adapter.js");
  console.log(`   dist/: extension.js, adapter.js, replay.js, dapper_core_bg.wasm`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  requirePrerequisites("npm run build");
  build().catch((error) => {
    console.error(`\nbuild failed: ${error.message}`);
    process.exit(1);
  });
}
