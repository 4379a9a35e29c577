// GENERATED from core/src/messages.rs: do not edit. `BLESS=1 cargo test -p dapper-core
// --test messages` rewrites it after the table changes; the engine's tests fail while it
// is stale.
//
// The words for an interpreter Dapper cannot debug with, the same as the engine's.

export const PYTHON_UNUSABLE = "Dapper cannot debug with the Python interpreter \"{python}\" ({source}): it {problem}.";

export const PYTHON_SOURCES = {
  "launch configuration": "set as `python` in the launch configuration",
  "Python extension": "selected in the Python extension",
  "setting dapper.python": "set in the setting dapper.python",
  "python3 on PATH": "the default: no interpreter is selected in the Python extension or set in dapper.python",
  "default": "the default: the launch configuration names no `python`",
} as const;

export const PYTHON_PROBLEMS = {
  notOnPath: "was not found on PATH",
  missing: "does not exist",
  folder: "is a folder, not an interpreter (name the python executable inside it)",
  notExecutable: "is not executable (permission denied)",
  tooOld: "is Python {version}; Dapper needs 3.9 or newer",
  unreadableVersion: "reported the version {version}, which Dapper cannot read",
  notPython: "is not a Python interpreter: it printed {detail}",
  noAnswer: "did not print its version within {detail}",
  failed: "failed to run: {detail}",
} as const;

export type PythonProblem = keyof typeof PYTHON_PROBLEMS;

/** `template` with each `{name}` replaced by its value; names not given stay as written. */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}
