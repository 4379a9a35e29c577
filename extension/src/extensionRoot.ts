// Finds the extension's root directory: the nearest ancestor of the running script that
// holds Dapper's package.json. One rule for every layout: the repository (dist/ and the
// tests' out/extension/src/), and the installed .vsix, whose root holds package.json,
// dist/ and extension/python side by side.

import * as fs from "fs";
import * as path from "path";

const PACKAGE_NAME = "dapper";

export interface ExtensionRoot {
  directory: string;
  version: string;
}

export function findExtensionRoot(start: string = __dirname): ExtensionRoot | undefined {
  let directory = path.resolve(start);
  for (;;) {
    const manifest = readManifest(path.join(directory, "package.json"));
    if (manifest !== undefined && manifest.name === PACKAGE_NAME) {
      return { directory, version: typeof manifest.version === "string" ? manifest.version : "0.0.0" };
    }
    const parent = path.dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
}

/** The directory that contains the `dapper` Python package, below an extension root. */
export function pythonPackageDirOf(root: string): string {
  return path.join(root, "extension", "python");
}

function readManifest(file: string): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as { name?: unknown; version?: unknown };
  } catch {
    return undefined;
  }
}
