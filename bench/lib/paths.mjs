// Where the benchmark's pieces live.
import path from "node:path";
import { root } from "../../scripts/lib.mjs";

export { root };
export const benchDir = path.join(root, "bench");
export const programsDir = path.join(benchDir, "programs");
export const benchCacheDir = path.join(root, ".cache", "bench");
