// The host's TypeScript import graph, for the test that keeps it free of cycles and keeps
// its layers apart (imports.test.ts). Imports are read with TypeScript's own
// pre-processor, which finds every form (import, import type, export … from, require,
// import()) and ignores comments and strings.

import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

/** Every .ts file below a directory and what each imports; paths relative, with "/". */
export interface ImportGraph {
  /** File → the files below the directory it imports. */
  readonly local: Map<string, string[]>;
  /** File → everything else it imports, as written (packages, node modules, paths outside). */
  readonly external: Map<string, string[]>;
}

export function readImportGraph(directory: string): ImportGraph {
  const files = new Map<string, string>();
  for (const file of tsFilesBelow(directory)) {
    files.set(path.relative(directory, file).split(path.sep).join("/"), fs.readFileSync(file, "utf8"));
  }
  return importGraphOf(files);
}

/** The graph of files given as relative path → source text. */
export function importGraphOf(files: ReadonlyMap<string, string>): ImportGraph {
  const local = new Map<string, string[]>();
  const external = new Map<string, string[]>();
  for (const [file, text] of files) {
    const locals: string[] = [];
    const externals: string[] = [];
    for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
      const target = specifier.startsWith(".") ? resolveLocal(file, specifier, files) : undefined;
      if (target !== undefined) locals.push(target);
      else externals.push(specifier);
    }
    local.set(file, locals);
    external.set(file, externals);
  }
  return { local, external };
}

function resolveLocal(from: string, specifier: string, files: ReadonlyMap<string, string>): string | undefined {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  return [`${base}.ts`, `${base}/index.ts`, base].find((candidate) => files.has(candidate));
}

function tsFilesBelow(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return tsFilesBelow(full);
    return entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

/**
 * One cycle for every strongly connected group of files (Tarjan's algorithm), each as the
 * path that closes it: ["a.ts", "b.ts", "a.ts"]. Empty when the graph has no cycle.
 */
export function findCycles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const successors = (node: string) => edges.get(node) ?? [];

  const connect = (node: string) => {
    index.set(node, index.size);
    lowLink.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const next of successors(node)) {
      if (!index.has(next)) {
        connect(next);
        lowLink.set(node, Math.min(lowLink.get(node) as number, lowLink.get(next) as number));
      } else if (onStack.has(next)) {
        lowLink.set(node, Math.min(lowLink.get(node) as number, index.get(next) as number));
      }
    }
    if (lowLink.get(node) !== index.get(node)) return;
    const group: string[] = [];
    for (;;) {
      const member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
      if (member === node) break;
    }
    if (group.length > 1 || successors(node).includes(node)) groups.push(group);
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) connect(node);
  return groups.map((group) => cycleThrough(group, successors)).sort((a, b) => a[0].localeCompare(b[0]));
}

/** The shortest path from the group's first file (by name) back to itself, within the group. */
function cycleThrough(group: string[], successors: (node: string) => readonly string[]): string[] {
  const members = new Set(group);
  const start = [...group].sort()[0];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const next of successors(node)) {
      if (!members.has(next)) continue;
      if (next === start) {
        const cycle = [start];
        for (let at: string | undefined = node; at !== start && at !== undefined; at = cameFrom.get(at)) cycle.splice(1, 0, at);
        return [...cycle, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}
