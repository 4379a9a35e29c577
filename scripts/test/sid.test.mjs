// The Debian sid wrappers (scripts/sid.mjs) behave as an installed `python` would: the
// same process id (a signal reaches Python), working directory, exit status, and the
// host's paths (the checkout, /tmp); and they leave nothing mounted on the host. Skipped,
// saying so, where `npm test` could not make the sid root.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { root, sidBinDir } from "../lib.mjs";

const wrapper = path.join(sidBinDir(), "python3.15");
const skip = existsSync(wrapper) ? false : `no ${wrapper} (npm test makes it where the machine allows)`;

test("a sid wrapper runs as the python it wraps, with the host's paths", { skip }, () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "dapper-sid-"));
  try {
    writeFileSync(path.join(scratch, "seen.txt"), "from the host");
    const script = [
      "import json, os, sys",
      "print(json.dumps({'pid': os.getpid(), 'cwd': os.getcwd(), 'version': sys.version_info[:2],",
      `  'seen': open(${JSON.stringify(path.join(scratch, "seen.txt"))}).read(),`,
      `  'checkout': os.path.exists(${JSON.stringify(path.join(root, "package.json"))})}))`,
      "sys.exit(3)",
    ].join("\n");
    const result = spawnSync(wrapper, ["-c", script], { cwd: scratch, encoding: "utf8" });
    assert.equal(result.status, 3, result.stderr);
    const seen = JSON.parse(result.stdout);
    assert.equal(seen.pid, result.pid, "unshare and chroot exec in place: one process");
    assert.deepEqual(
      { cwd: seen.cwd, version: seen.version, seen: seen.seen, checkout: seen.checkout },
      { cwd: scratch, version: [3, 15], seen: "from the host", checkout: true },
    );
    const mounts = readFileSync("/proc/self/mountinfo", "utf8");
    assert.ok(!mounts.includes(path.join("sid", "root")), "a mount of the sid root was left on the host");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
