// The tools' input schemas (a small subset of JSON Schema, the part models and MCP
// clients read) and the check of a call's arguments against them. Neither MCP's
// low-level server nor VS Code validates a tool call's input, and a model's mistakes
// should come back as one sentence that says what to send instead.

export type PropertySchema =
  | { type: "string"; description: string; enum?: readonly string[] }
  | { type: "integer" | "number"; description: string; minimum?: number; maximum?: number }
  | { type: "boolean"; description: string }
  | { type: "array"; description: string; items: { type: "string" } };

export interface InputSchema {
  type: "object";
  properties: Record<string, PropertySchema>;
  required?: readonly string[];
  additionalProperties: false;
}

/** A tool call the caller can correct: its message says what was wrong and what to do. */
export class ToolError extends Error {}

export type Arguments = Record<string, unknown>;

/** Checks a call's arguments; throws a ToolError naming the first problem. */
export function checkArguments(schema: InputSchema, input: unknown): Arguments {
  if (input === undefined || input === null) input = {};
  if (typeof input !== "object" || Array.isArray(input)) throw new ToolError(`The arguments must be a JSON object, not ${describe(input)}.`);
  const args = input as Arguments;
  const known = Object.keys(schema.properties);
  for (const key of Object.keys(args)) {
    if (!(key in schema.properties)) {
      throw new ToolError(`Unknown argument "${key}". This tool takes: ${known.join(", ") || "no arguments"}.`);
    }
  }
  for (const key of schema.required ?? []) {
    if (args[key] === undefined || args[key] === null) throw new ToolError(`The argument "${key}" is required: ${schema.properties[key].description}`);
  }
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    const problem = propertyProblem(schema.properties[key], value);
    if (problem !== undefined) throw new ToolError(`The argument "${key}" ${problem}.`);
  }
  return args;
}

function propertyProblem(schema: PropertySchema, value: unknown): string | undefined {
  switch (schema.type) {
    case "string":
      if (typeof value !== "string") return `must be a string, not ${describe(value)}`;
      if (schema.enum && !schema.enum.includes(value)) return `must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}, not ${JSON.stringify(value)}`;
      return undefined;
    case "integer":
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) return `must be a number, not ${describe(value)}`;
      if (schema.type === "integer" && !Number.isInteger(value)) return `must be a whole number, not ${value}`;
      if (schema.minimum !== undefined && value < schema.minimum) return `must be at least ${schema.minimum}, not ${value}`;
      if (schema.maximum !== undefined && value > schema.maximum) return `must be at most ${schema.maximum}, not ${value}`;
      return undefined;
    case "boolean":
      return typeof value === "boolean" ? undefined : `must be true or false, not ${describe(value)}`;
    case "array":
      if (!Array.isArray(value)) return `must be an array of strings, not ${describe(value)}`;
      return value.every((item) => typeof item === "string") ? undefined : "must hold strings only";
  }
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value)}`;
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}

export const str = (args: Arguments, key: string): string | undefined => (typeof args[key] === "string" ? (args[key] as string) : undefined);
export const num = (args: Arguments, key: string): number | undefined => (typeof args[key] === "number" ? (args[key] as number) : undefined);
export const bool = (args: Arguments, key: string): boolean | undefined => (typeof args[key] === "boolean" ? (args[key] as boolean) : undefined);
export const strings = (args: Arguments, key: string): string[] | undefined => (Array.isArray(args[key]) ? (args[key] as string[]) : undefined);
