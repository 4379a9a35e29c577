// Whether Dapper runs a configuration written for debugpy, and the configuration it runs.
// VS Code picks a session's adapter by the configuration's `type`, so a `debugpy` (or
// older `python`) configuration becomes a `dapper` one here, saying which type it had;
// the engine translates its options (core/src/config/debugpy.rs).
//
// No runtime dependency on the `vscode` module, so that these rules are tested under
// plain Node; debugpyConfigurations.ts asks VS Code what they need.

import { DEBUGPY_TYPES, FROM_TYPE_KEY } from "../host/debugpy";
import { DEBUG_TYPE, type LaunchConfiguration } from "./fileConfiguration";

/** The values of the `dapper.debugpyConfigurations` setting. */
export const DEBUGPY_SETTING_VALUES = ["ask", "always", "never"] as const;
export type DebugpySetting = (typeof DEBUGPY_SETTING_VALUES)[number];

/** Who runs debugpy configurations, as the user answered the question in a workspace. */
export type DebugpyChoice = "dapper" | "debugpy";

/** What the extension needs to know to decide. */
export interface DebugpySituation {
  /** The setting's value, as VS Code gives it (anything, if the user wrote nonsense). */
  setting: unknown;
  /** The answer remembered for this workspace, if the user was asked before. */
  remembered: DebugpyChoice | undefined;
  /** Whether the Python Debugger extension, debugpy's, is installed. */
  debugpyInstalled: boolean;
}

/** Whether the configuration's type is one of debugpy's. */
export function isDebugpyConfiguration(config: { type?: unknown }): boolean {
  return typeof config.type === "string" && DEBUGPY_TYPES.includes(config.type);
}

/**
 * Who runs a debugpy configuration, or "ask" when the user is to choose. Without the
 * Python Debugger extension nothing else could run it, so asking would only be in the way.
 */
export function decide({ setting, remembered, debugpyInstalled }: DebugpySituation): DebugpyChoice | "ask" {
  if (setting === "always") return "dapper";
  if (setting === "never") return "debugpy";
  if (!debugpyInstalled) return "dapper";
  return remembered ?? "ask";
}

/**
 * The configuration Dapper runs for a debugpy one: the `dapper` type, the type it had in
 * a private key, and what VS Code itself must see before any adapter does (its request
 * must be launch or attach: the old `test` is a launch for Debug Test).
 * `debugpyJustMyCode` is the `debugpy.debugJustMyCode` setting, which debugpy reads
 * when the configuration has no `justMyCode`.
 */
export function handOver(config: LaunchConfiguration, debugpyJustMyCode: unknown): LaunchConfiguration {
  const handed: LaunchConfiguration = { ...config, type: DEBUG_TYPE, [FROM_TYPE_KEY]: config.type };
  if (config.request === "test") {
    const purpose = Array.isArray(config.purpose) ? config.purpose : [];
    handed.request = "launch";
    handed.purpose = [...purpose, "debug-test"];
  }
  if (config.justMyCode === undefined && config.debugStdLib === undefined && typeof debugpyJustMyCode === "boolean") {
    handed.justMyCode = debugpyJustMyCode;
  }
  return handed;
}

/** The Python extension's key in the configuration of a Debug Test session (newer versions). */
const TEST_SESSION_MARKER_KEY = "__vscodeTestSessionMarker";

/** The keys a Debug Test configuration keeps from the Python extension: what to run. */
const TEST_RUN_KEYS = new Set(["type", "request", "name", "program", "module", "code", "args", "purpose"]);

/** Whether the Python extension started the configuration for the Testing view's Debug Test. */
export function isDebugTest(config: Record<string, unknown>): boolean {
  return TEST_SESSION_MARKER_KEY in config || (Array.isArray(config.purpose) && config.purpose.includes("debug-test"));
}

/**
 * The Python extension takes the settings of Debug Test from a launch.json configuration
 * of debugpy's types with `"purpose": ["debug-test"]`; a `dapper` one counts too. Its
 * options (justMyCode, env, rules, …) go over the test run's, which keeps what to run
 * (the extension's test launcher and its arguments) and the pipes of its environment.
 */
export function withTestConfiguration(config: LaunchConfiguration, launchConfigurations: unknown): LaunchConfiguration {
  if (!isDebugTest(config) || !Array.isArray(launchConfigurations)) return config;
  const own = launchConfigurations.find(
    (candidate): candidate is Record<string, unknown> =>
      typeof candidate === "object" &&
      candidate !== null &&
      (candidate as Record<string, unknown>).type === DEBUG_TYPE &&
      Array.isArray((candidate as Record<string, unknown>).purpose) &&
      ((candidate as Record<string, unknown>).purpose as unknown[]).includes("debug-test"),
  );
  if (own === undefined) return config;
  const merged: LaunchConfiguration = { ...config };
  for (const [key, value] of Object.entries(own)) {
    if (TEST_RUN_KEYS.has(key)) continue;
    merged[key] = key === "env" && isRecord(value) && isRecord(config.env) ? { ...config.env, ...value } : value;
  }
  return merged;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
