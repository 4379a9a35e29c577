// `npm run lint`: the linters npm test also runs, without the tests.
import { ensureNpmPackages, npxBin, root, run } from "./lib.mjs";

ensureNpmPackages();
run("cargo", ["fmt", "--all", "--check"]);
run("cargo", ["clippy", "-p", "dapper-core", "--all-targets", "--", "-D", "warnings"]);
run(npxBin("tsc"), ["-p", root, "--noEmit"]);
run(npxBin("eslint"), ["extension/src", "test", "scripts", "bench"]);
