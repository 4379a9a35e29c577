// `npm run lint`: the linters npm test also runs, without the tests.
import { existsSync } from "node:fs";
import path from "node:path";
import { ensureNpmPackages, npxBin, root, run } from "./lib.mjs";

ensureNpmPackages();
run("cargo", ["fmt", "--all", "--check"]);
run("cargo", ["clippy", "-p", "dapper-core", "--all-targets", "--", "-D", "warnings"]);
run(npxBin("tsc"), ["-p", root, "--noEmit"]);
run(npxBin("eslint"), ["extension/src", "test", "scripts", "bench"].filter((dir) => existsSync(path.join(root, dir))));
