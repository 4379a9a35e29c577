// Which Python interpreter a launch configuration without `python` runs under: the one
// selected in the Python extension (ms-python.python) when it is installed and answers,
// else the `dapper.python` setting, else none, so the engine runs python3 on PATH.
//
// This module has no runtime dependency on the `vscode` module: the VS Code side passes
// in small functions, which keeps the choice itself testable under plain Node.

/** Where an interpreter choice came from; logged so a user can see why a Python ran. */
export type InterpreterSource = "launch configuration" | "Python extension" | "setting dapper.python" | "python3 on PATH";

export interface InterpreterChoice {
  /** The executable to put into the configuration, or undefined to leave it to the engine. */
  python: string | undefined;
  source: InterpreterSource;
  /** Why a source higher in the order was passed over, for the log; empty when none was. */
  notes: string[];
}

/**
 * Expands what VS Code does not expand in settings but users write there:
 * `${workspaceFolder}` (when there is one) and a leading `~`. A path that still holds
 * `${workspaceFolder}` is returned unchanged, for the engine to report as not found.
 */
export function expandSettingPath(value: string, places: { workspaceFolder: string | undefined; home: string }): string {
  let expanded = value.trim();
  if (places.workspaceFolder !== undefined) expanded = expanded.split("${workspaceFolder}").join(places.workspaceFolder);
  if (expanded === "~" || expanded.startsWith("~/")) expanded = places.home + expanded.slice(1);
  return expanded;
}

export interface InterpreterSources {
  /** The Python extension's active interpreter for the resource, or undefined when it has none. */
  pythonExtension: () => Promise<string | undefined>;
  /** The `dapper.python` setting (any type: settings.json is hand-edited). */
  setting: () => unknown;
  /** How long the Python extension may take to answer, in milliseconds. */
  timeoutMs: number;
}

/**
 * Chooses the interpreter for a launch configuration. A `python` the user wrote always
 * wins, even when it is not a string: the engine's validation reports that clearly, and
 * silently replacing it would hide the mistake.
 */
export async function chooseInterpreter(configured: unknown, sources: InterpreterSources): Promise<InterpreterChoice> {
  const notes: string[] = [];
  if (configured !== undefined && configured !== null && configured !== "") {
    return { python: typeof configured === "string" ? configured : undefined, source: "launch configuration", notes };
  }

  try {
    const fromExtension = await withTimeout(sources.pythonExtension(), sources.timeoutMs);
    if (fromExtension === timedOut) notes.push(`the Python extension did not answer within ${sources.timeoutMs} ms`);
    else if (typeof fromExtension === "string" && fromExtension.trim() !== "")
      return { python: fromExtension, source: "Python extension", notes };
    else if (fromExtension !== undefined) notes.push("the Python extension returned no interpreter path");
  } catch (error) {
    notes.push(`the Python extension failed: ${error instanceof Error ? error.message : String(error)}`);
  }

  const setting = sources.setting();
  if (typeof setting === "string" && setting.trim() !== "") return { python: setting, source: "setting dapper.python", notes };
  if (setting !== undefined && setting !== null && setting !== "") {
    notes.push(`the setting dapper.python is not a string (${JSON.stringify(setting)}) and was ignored`);
  }
  return { python: undefined, source: "python3 on PATH", notes };
}

const timedOut: unique symbol = Symbol("timed out");

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | typeof timedOut> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof timedOut>((resolve) => {
    timer = setTimeout(() => resolve(timedOut), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

// The parts of the Python extension's public API used here, as its documentation
// describes them (`environments.getActiveEnvironmentPath` and `resolveEnvironment`).
// Declared locally so Dapper needs no dependency and still works when the extension is
// absent or older.
export interface EnvironmentPath {
  id?: string;
  path?: string;
}
export interface ResolvedEnvironment {
  executable?: { uri?: { fsPath?: string } | undefined; sysPrefix?: string };
}
export interface PythonEnvironmentsApi {
  getActiveEnvironmentPath(resource?: unknown): EnvironmentPath | undefined;
  resolveEnvironment?(environment: EnvironmentPath | string): Promise<ResolvedEnvironment | undefined>;
}

/**
 * The executable of the Python extension's active environment. The active path may name
 * an environment folder instead of an executable, so it is resolved when the API can;
 * the raw path is the answer only when resolution gives nothing better.
 */
export async function activeInterpreterOf(environments: PythonEnvironmentsApi, resource: unknown): Promise<string | undefined> {
  const active = environments.getActiveEnvironmentPath(resource);
  if (active === undefined || typeof active.path !== "string" || active.path === "") return undefined;
  if (typeof environments.resolveEnvironment === "function") {
    const resolved = await environments.resolveEnvironment(active);
    const executable = resolved?.executable?.uri?.fsPath;
    if (typeof executable === "string" && executable !== "") return executable;
  }
  return active.path;
}
