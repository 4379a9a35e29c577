// Finds the Python interpreters a user could choose when the Python extension is not
// there to offer its own list: python, python3 and python3.N on PATH, pyenv's versions
// (pyenv-win's on Windows), python.org's framework builds on macOS, and on Windows the
// interpreters registered as PEP 514 says (what the py launcher lists with `py -0p`, and
// the registry itself, for installs without the launcher). No runtime dependency on the
// `vscode` module, so it is tested under plain Node; the platform is a parameter, so that
// every platform's places are tested on any machine.

import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { isExecutableFile } from "./interpreterCheck";

export interface DiscoveryPlaces {
  /** The PATH variable's value. */
  pathVariable: string;
  /** pyenv's root: $PYENV_ROOT, else ~/.pyenv (pyenv-win's ~/.pyenv/pyenv-win on Windows). */
  pyenvRoot: string;
  platform: NodeJS.Platform;
  /** macOS: the folder of python.org's framework builds, one folder per version. */
  frameworkVersions?: string;
  /** Windows: the registered interpreters (PEP 514, py -0p); read by discoverInterpreters when absent. */
  registered?: string[];
}

/** The folder python.org's macOS installers put each version in (Versions/3.12/bin/python3). */
export const MACOS_FRAMEWORK_VERSIONS = "/Library/Frameworks/Python.framework/Versions";

export function placesOf(env: NodeJS.ProcessEnv, home: string, platform: NodeJS.Platform = process.platform): DiscoveryPlaces {
  const windows = platform === "win32";
  // pyenv-win lives in the pyenv-win folder of its clone and sets PYENV_ROOT to it.
  const pyenvRoot = env.PYENV_ROOT || (windows ? path.win32.join(home, ".pyenv", "pyenv-win") : path.join(home, ".pyenv"));
  return {
    pathVariable: env.PATH ?? env.Path ?? "",
    pyenvRoot,
    platform,
    ...(platform === "darwin" ? { frameworkVersions: MACOS_FRAMEWORK_VERSIONS } : {}),
  };
}

/** Whether a file name on PATH is a CPython launcher name: python, python3, python3.12 (with .exe on Windows). */
export function isInterpreterName(name: string, platform: NodeJS.Platform): boolean {
  return platform === "win32" ? /^python(3(\.\d+)?)?\.exe$/i.test(name) : /^python(3(\.\d+)?)?$/.test(name);
}

/**
 * The interpreters found, in the order a user would prefer them: PATH in its own order
 * (python3.N before python3 before python in each folder, newest first), then pyenv's
 * versions, newest first, then macOS's framework builds or Windows's registered ones.
 * The same file reached twice (python3 linking to python3.12) is listed once, under the
 * first name found.
 */
export async function discoverInterpreters(places: DiscoveryPlaces): Promise<string[]> {
  const registered = places.platform === "win32" ? (places.registered ?? (await readRegisteredInterpreters())) : [];
  const candidates = await candidateInterpreters({ ...places, registered }, listDir);
  const seen = new Set<string>();
  const found: string[] = [];
  for (const candidate of candidates) {
    if (!(await isExecutableFile(candidate))) continue;
    const real = await fs.promises.realpath(candidate).catch(() => candidate);
    const key = places.platform === "win32" ? real.toLowerCase() : real;
    if (seen.has(key)) continue;
    seen.add(key);
    found.push(candidate);
  }
  return found;
}

/** Every file that may be an interpreter, in the order of preference, before any is checked. */
export async function candidateInterpreters(places: DiscoveryPlaces, list: (dir: string) => Promise<string[]>): Promise<string[]> {
  const windows = places.platform === "win32";
  const paths = windows ? path.win32 : path.posix;
  const candidates: string[] = [];
  for (const dir of places.pathVariable.split(paths.delimiter)) {
    if (dir === "") continue;
    const names = (await list(dir)).filter((name) => isInterpreterName(name, places.platform));
    candidates.push(...names.sort(byVersionDescending).map((name) => paths.join(dir, name)));
  }
  const versions = (await list(paths.join(places.pyenvRoot, "versions"))).sort(byVersionDescending);
  for (const version of versions) {
    const folder = paths.join(places.pyenvRoot, "versions", version);
    candidates.push(windows ? paths.join(folder, "python.exe") : paths.join(folder, "bin", "python3"));
  }
  if (places.frameworkVersions !== undefined) {
    // "Current" is a link to one of the versions, listed under its own number.
    const frameworks = (await list(places.frameworkVersions)).filter((name) => /^\d+\.\d+$/.test(name)).sort(byVersionDescending);
    candidates.push(...frameworks.map((version) => paths.join(places.frameworkVersions as string, version, "bin", "python3")));
  }
  candidates.push(...(places.registered ?? []));
  return candidates;
}

/**
 * The interpreters `py -0p` lists: one a line, its tag (-V:3.12, or -3.12-64 from older
 * launchers), a `*` on the default, and its python.exe. Only CPython's interpreter names
 * are kept (a free-threaded python3.13t.exe is left out, as Dapper refuses it).
 */
export function parsePyLauncherList(text: string): string[] {
  const found: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const match = /((?:[A-Za-z]:|\\\\)\\.*?\.exe)\b/i.exec(line);
    if (match && isInterpreterName(path.win32.basename(match[1]), "win32")) found.push(match[1]);
  }
  return found;
}

/**
 * The interpreters `reg query <hive>\Software\Python /s` shows, as PEP 514 lays them out:
 * each Company\Tag\InstallPath key holds ExecutablePath, or else the folder (its default
 * value) whose python.exe is the interpreter.
 */
export function parseRegistryPythons(text: string): string[] {
  const found: string[] = [];
  let values: Map<string, string> | undefined;
  const finish = () => {
    if (values === undefined) return;
    const folder = values.get("(default)");
    const executable = values.get("executablepath") ?? (folder ? path.win32.join(folder, "python.exe") : undefined);
    if (executable && isInterpreterName(path.win32.basename(executable), "win32")) found.push(executable);
    values = undefined;
  };
  for (const line of text.split(/\r?\n/)) {
    if (/^HKEY_/i.test(line)) {
      finish();
      if (/\\InstallPath$/i.test(line.trim())) values = new Map();
      continue;
    }
    const value = /^\s+(\S.*?)\s+REG_(?:EXPAND_)?SZ\s+(.*?)\s*$/.exec(line);
    if (value && values) values.set(value[1].toLowerCase(), value[2]);
  }
  finish();
  return found;
}

/** The registry keys PEP 514 names: the user's, the machine's, and the machine's 32-bit view. */
export const PEP514_KEYS = ["HKCU\\Software\\Python", "HKLM\\Software\\Python", "HKLM\\Software\\WOW6432Node\\Python"] as const;

/** Windows: what the py launcher and the registry list; a missing launcher or key lists nothing. */
async function readRegisteredInterpreters(): Promise<string[]> {
  const [launcher, ...keys] = await Promise.all([outputOf("py", ["-0p"]), ...PEP514_KEYS.map((key) => outputOf("reg", ["query", key, "/s"]))]);
  return [...parsePyLauncherList(launcher), ...keys.flatMap(parseRegistryPythons)];
}

function outputOf(command: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(command, args, { encoding: "utf8", timeout: 5000, windowsHide: true }, (error, stdout) => resolve(error ? "" : stdout));
  });
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
