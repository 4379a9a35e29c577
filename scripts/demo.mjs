// Debugs examples/hello.py end to end through the standalone adapter (node dist/adapter.js)
// with a real DAP client, and prints a readable transcript of the session.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { root } from "./lib.mjs";

// Loaded when the demo runs, not when this module is imported: `npm start` imports this file
// before it has installed the npm packages.
function loadDebugClient() {
  const require = createRequire(import.meta.url);
  return require("@vscode/debugadapter-testsupport").DebugClient;
}

const examples = path.join(root, "examples");
const relative = (file) => path.relative(root, file);

function demoBreakpoints(file) {
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line, index) => (line.includes("# demo: breakpoint") ? [index + 1] : []));
}

async function printVariables(client, reference, indent, depth) {
  const { body } = await client.variablesRequest({ variablesReference: reference });
  for (const variable of body.variables) {
    console.log(`${indent}${variable.name} = ${variable.value}${variable.type ? `  (${variable.type})` : ""}`);
    if (depth > 0 && variable.variablesReference > 0) await printVariables(client, variable.variablesReference, `${indent}    `, depth - 1);
  }
}

export async function demo({ python = process.env.DAPPER_PYTHON } = {}) {
  const program = path.join(examples, "hello.py");
  const DebugClient = loadDebugClient();
  const client = new DebugClient(process.execPath, path.join(root, "dist", "adapter.js"), "dapper", { cwd: root }, false);
  client.defaultTimeout = 20000;
  const output = [];
  client.on("output", (event) => output.push(event.body));
  // Stops and the end of the session arrive as events; one queue hands them to the loop below.
  const stops = [];
  let exitCode = null;
  let terminated = false;
  let wake = () => {};
  client.on("stopped", (event) => {
    stops.push(event);
    wake();
  });
  client.on("exited", (event) => {
    exitCode = event.body.exitCode;
    console.log(`\n■ exited with code ${exitCode}`);
  });
  client.on("terminated", () => {
    terminated = true;
    console.log("■ terminated");
    wake();
  });
  const nextStop = async () => {
    while (stops.length === 0 && !terminated) await new Promise((resolve) => (wake = resolve));
    return stops.shift() ?? null;
  };

  console.log(`Debugging ${relative(program)} through node dist/adapter.js (stdio DAP)`);
  await client.start();
  try {
    await client.initializeRequest({ adapterID: "dapper", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
    const initialized = client.waitForEvent("initialized");
    const config = { program, cwd: examples, console: "internalConsole", ...(python ? { python } : {}) };
    const launched = client.launchRequest(config);
    launched.catch(() => undefined);
    await Promise.race([initialized, launched]);
    await initialized;
    for (const file of [program, path.join(examples, "shapes.py")]) {
      const lines = demoBreakpoints(file);
      const { body } = await client.setBreakpointsRequest({ source: { path: file }, breakpoints: lines.map((line) => ({ line })) });
      for (const bp of body.breakpoints) console.log(`● breakpoint ${relative(file)}:${bp.line} ${bp.verified ? "verified" : `not verified: ${bp.message ?? ""}`}`);
    }
    await client.configurationDoneRequest();
    await launched;

    for (let event = await nextStop(); event !== null; event = await nextStop()) {
      const threadId = event.body.threadId;
      const { body: stack } = await client.stackTraceRequest({ threadId, levels: 20 });
      const top = stack.stackFrames[0];
      console.log(`\n⏸ stopped (${event.body.reason}) at ${relative(top.source.path)}:${top.line} in ${top.name}`);
      console.log("  call stack:");
      for (const frame of stack.stackFrames) console.log(`    ${frame.name.padEnd(12)} ${relative(frame.source.path)}:${frame.line}`);
      const { body: scopes } = await client.scopesRequest({ frameId: top.id });
      const locals = scopes.scopes.find((scope) => scope.name === "Locals") ?? scopes.scopes[0];
      console.log("  locals:");
      await printVariables(client, locals.variablesReference, "    ", 1);
      console.log("▶ continue");
      await client.continueRequest({ threadId });
    }
    console.log("\nprogram output:");
    for (const { category, output: text } of output) {
      for (const line of text.replace(/\n$/, "").split("\n")) console.log(`  ${category.padEnd(7)}| ${line}`);
    }
    await client.disconnectRequest({});
  } finally {
    // Not client.stop(): it sends another disconnect, which an adapter that has already
    // ended its session never answers.
    client.stopAdapter();
  }
  return exitCode;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  demo().then(
    (code) => process.exit(code === 3 ? 0 : 1),
    (error) => {
      console.error(`demo failed: ${error.message}`);
      process.exit(1);
    },
  );
}
