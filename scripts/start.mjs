// `npm start`, the main job: install what is missing, build everything, package the .vsix,
// debug examples/ end to end through the standalone adapter, and say how to install.
import path from "node:path";
import { demo } from "./demo.mjs";
import { packageVsix } from "./package.mjs";
import { root, step } from "./lib.mjs";
import { requirePrerequisites } from "./prerequisites.mjs";

requirePrerequisites("npm start");

try {
  const vsix = await packageVsix();
  step("Debugging examples/hello.py end to end");
  const exitCode = await demo();
  if (exitCode !== 3) throw new Error(`the example should exit with code 3, it exited with ${exitCode}`);
  step("Done");
  console.log(`The extension is packaged: ${path.relative(root, vsix)}`);
  console.log(`Install it with:   code --install-extension ${path.relative(root, vsix)}`);
  console.log("or in VS Code: Extensions view → … → Install from VSIX…");
  console.log("Other DAP clients: node dist/adapter.js (stdio) or node dist/adapter.js --port 4711 (TCP).");
} catch (error) {
  console.error(`\nnpm start failed: ${error.message}`);
  process.exit(1);
}
