// Finds the Python interpreters a user could choose when the Python extension is not
// there to offer its own list: python, python3 and python3.N on PATH, and pyenv's
// versions. No runtime dependency on the `vscode` module, so it is tested under plain Node.

import * as fs from "fs";
import * as path from "path";
import { isExecutableFile } from "./interpreterCheck";

export interface DiscoveryPlaces {
  /** The PATH variable's value. */
  pathVariable: string;
  /** pyenv's root: $PYENV_ROOT, else ~/.pyenv. */
  pyenvRoot: string;
  platform: NodeJS.Platform;
}

export function placesOf(env: NodeJS.ProcessEnv, home: string, platform: NodeJS.Platform = process.platform): DiscoveryPlaces {
  return { pathVariable: env.PATH ?? env.Path ?? "", pyenvRoot: env.PYENV_ROOT || path.join(home, ".pyenv"), platform };
}

/** Whether a file name on PATH is a CPython launcher name: python, python3, python3.12 (with .exe on Windows). */
export function isInterpreterName(name: string, platform: NodeJS.Platform): boolean {
  return platform === "win32" ? /^python(3(\.\d+)?)?\.exe$/i.test(name) : /^python(3(\.\d+)?)?$/.test(name);
}

/**
 * The interpreters found, in the order a user would prefer them: PATH in its own order
 * (python3.N before python3 before python in each folder, newest first), then pyenv's
 * versions, newest first. The same file reached twice (python3 linking to python3.12)
 * is listed once, under the first name found.
 */
export async function discoverInterpreters(places: DiscoveryPlaces): Promise<string[]> {
  const candidates: string[] = [];
  for (const dir of places.pathVariable.split(places.platform === "win32" ? ";" : ":")) {
    if (dir === "") continue;
    const names = (await listDir(dir)).filter((name) => isInterpreterName(name, places.platform));
    candidates.push(...names.sort(byVersionDescending).map((name) => path.join(dir, name)));
  }
  const versions = (await listDir(path.join(places.pyenvRoot, "versions"))).sort(byVersionDescending);
  for (const version of versions) {
    const folder = path.join(places.pyenvRoot, "versions", version);
    candidates.push(places.platform === "win32" ? path.join(folder, "python.exe") : path.join(folder, "bin", "python3"));
  }

  const seen = new Set<string>();
  const found: string[] = [];
  for (const candidate of candidates) {
    if (!(await isExecutableFile(candidate))) continue;
    const real = await fs.promises.realpath(candidate).catch(() => candidate);
    if (seen.has(real)) continue;
    seen.add(real);
    found.push(candidate);
  }
  return found;
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await fs.promises.readdir(dir);
  } catch {
    return [];
  }
}

/** Orders names by the version numbers in them, highest first; a name without numbers last. */
export function byVersionDescending(a: string, b: string): number {
  const numbers = (name: string) => (name.match(/\d+/g) ?? []).map(Number);
  const [left, right] = [numbers(a), numbers(b)];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = (right[i] ?? -1) - (left[i] ?? -1);
    if (difference !== 0) return difference;
  }
  return a.localeCompare(b);
}

/** Where a chosen interpreter is written: the most specific scope that already sets dapper.python, else the user's settings. */
export type SettingScope = "workspaceFolder" | "workspace" | "global";

export function settingScope(inspection: { workspaceFolderValue?: unknown; workspaceValue?: unknown } | undefined): SettingScope {
  if (inspection?.workspaceFolderValue !== undefined) return "workspaceFolder";
  if (inspection?.workspaceValue !== undefined) return "workspace";
  return "global";
}
