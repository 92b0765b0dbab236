// The import graph of src/: every relative import, export-from and dynamic import() of each file,
// type-only ones included (a cycle of types is still a cycle in the design), as paths relative to src/.
import ts from 'typescript';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export type ImportGraph = ReadonlyMap<string, readonly string[]>;

export const SRC = resolve(import.meta.dirname, '../../src');

/** Every TypeScript source file below `dir` (declaration files left out). */
export function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** `a/b.ts` with forward slashes, whatever the platform. */
export function srcPath(file: string): string {
  return relative(SRC, file).split(sep).join('/');
}

/** The 1-based line of a position in a text. */
function lineOf(text: string, pos: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < pos; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** One import: the importing file, the imported file (both relative to src/) and the line it is on. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  readonly line: number;
}

/** Every relative import of every file under root, in file order. */
export function readImports(root: string = SRC): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(root)) {
    const text = readFileSync(file, 'utf8');
    // The compiler's own scanner: it knows every import form, and skips comments and strings.
    const { importedFiles } = ts.preProcessFile(text, true, true);
    for (const imported of importedFiles) {
      const specifier = imported.fileName;
      if (!specifier.startsWith('./') && !specifier.startsWith('../')) continue;
      edges.push({
        from: srcPath(file),
        to: srcPath(resolve(dirname(file), specifier)),
        line: lineOf(text, imported.pos),
      });
    }
  }
  return edges;
}

export function buildImportGraph(root: string = SRC): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) graph.set(srcPath(file), []);
  for (const edge of readImports(root)) {
    const targets = graph.get(edge.from)!;
    if (!targets.includes(edge.to)) targets.push(edge.to);
  }
  return graph;
}

/** The part a path under src/ belongs to: its top folder with a slash (`store/` for `store/sqlite/x.ts`), or a top file's own name. */
export function partOf(path: string): string {
  const slash = path.indexOf('/');
  return slash === -1 ? path : path.slice(0, slash + 1);
}

/** Every cycle, as its strongly connected set of files (Tarjan), each sorted; a file importing itself counts. */
export function findCycles(graph: ImportGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== node);
    if (members.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(members.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles;
}
