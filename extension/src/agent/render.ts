// Bounded text for models: every value is cut at a stated size with the cut marked,
// secret-looking names are masked, and source lines are read for locations. Models pay
// for every character and cannot scroll, so nothing here returns an unbounded string.

import * as fs from "fs";
import * as path from "path";

/** Cuts text to max characters, saying how much was left out and how to see more. */
export function clip(text: string, max: number, how = "raise maxChars to see more"): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [${text.length - max} more chars cut; ${how}]`;
}

/** Words that, as a part of a name, mark its value as a secret (password, api_key, authToken, …). */
const SECRET_WORDS = new Set(["password", "passwd", "passphrase", "pwd", "secret", "secrets", "token", "apikey", "credential", "credentials", "privatekey", "cookie", "auth", "sessionkey"]);

/** Whether a variable's name looks like it holds a secret: its words, split on case and underscores. */
export function looksSecret(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "");
  for (let i = 0; i < words.length; i++) {
    if (SECRET_WORDS.has(words[i])) return true;
    // api_key, private_key, session_key: two words that mean one.
    if (i + 1 < words.length && SECRET_WORDS.has(words[i] + words[i + 1])) return true;
  }
  return false;
}

export const MASKED = "<masked: the name looks like a secret; the user can turn masking off>";

export const MASKED_ENVIRONMENT = "<masked: environment variables often hold secrets; the user can turn masking off>";

/** Whether a value's type is the process environment (os.environ, os.environb). */
export function isEnvironmentType(type: unknown): boolean {
  return typeof type === "string" && /(^|\.)_Environ$/.test(type);
}

/**
 * Whether an expression reads the environment (os.environ[...], os.getenv, environ.get):
 * its value is one of the environment's, whatever name it is bound to afterwards.
 */
export function readsEnvironment(expression: string): boolean {
  return /\b(environb?|getenvb?)\b/.test(expression);
}

/** The text of a file's 1-based line, trimmed, or undefined when the file cannot be read. */
export function sourceLine(file: string, line: number, max = 160): string | undefined {
  const lines = readLines(file);
  const text = lines?.[line - 1];
  return text === undefined ? undefined : clip(text.trim(), max, "the line goes on");
}

const lineCache = new Map<string, { mtimeMs: number; lines: string[] }>();

export function readLines(file: string): string[] | undefined {
  try {
    const stat = fs.statSync(file);
    const cached = lineCache.get(file);
    if (cached && cached.mtimeMs === stat.mtimeMs) return cached.lines;
    if (stat.size > 20 * 1024 * 1024) return undefined;
    const lines = fs.readFileSync(file, "utf8").split(/\r?\n/);
    lineCache.set(file, { mtimeMs: stat.mtimeMs, lines });
    return lines;
  } catch {
    return undefined;
  }
}

/** A path as the agent reads it best: relative to the base directory when inside it. */
export function shortPath(file: string, base: string): string {
  const relative = path.relative(base, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : file;
}

/** What a Python command line starts: a file, a module or code, its arguments and the interpreter. */
export interface PythonCommand {
  python?: string;
  program?: string;
  module?: string;
  code?: string;
  args: string[];
}

/**
 * Reads a command line as a shell would split it (quotes, backslashes) and as Python
 * would read it: `python -m mod a`, `python3.12 -X dev file.py a`, `file.py a`,
 * `pytest tests/x.py::t` (as `-m pytest`). Throws with the reason for anything else.
 */
export function parsePythonCommand(line: string): PythonCommand {
  const words = splitCommandLine(line);
  if (words.length === 0) throw new Error("the command line is empty");
  let python: string | undefined;
  let rest = words;
  if (/^python[0-9.]*(\.exe)?$/i.test(path.basename(words[0])) || /(^|[\\/])python[0-9.]*(\.exe)?$/i.test(words[0])) {
    python = words[0];
    rest = words.slice(1);
    // Interpreter options before what it runs are skipped: they are the interpreter's, not the program's.
    while (rest.length > 0 && rest[0].startsWith("-") && rest[0] !== "-m" && rest[0] !== "-c") {
      rest = /^-[WX]$/.test(rest[0]) ? rest.slice(2) : rest.slice(1);
    }
    if (rest[0] === "-m" && rest.length >= 2) return { python, module: rest[1], args: rest.slice(2) };
    if (rest[0] === "-c" && rest.length >= 2) return { python, code: rest[1], args: rest.slice(2) };
    if (rest.length === 0 || rest[0].startsWith("-")) throw new Error(`"${line}" runs no file, module or code`);
    return { python, program: rest[0], args: rest.slice(1) };
  }
  if (/^(pytest|py\.test)$/.test(words[0])) return { module: "pytest", args: words.slice(1) };
  if (/\.pyw?$/i.test(words[0])) return { program: words[0], args: words.slice(1) };
  throw new Error(`"${words[0]}" is not a Python interpreter, a .py file or pytest; give program or module instead`);
}

export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < line.length && /["\\$`]/.test(line[i + 1])) current += line[++i];
      else current += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < line.length) {
      current += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (quote !== undefined) throw new Error(`the command line has an unclosed ${quote}`);
  if (inWord) words.push(current);
  return words;
}
