// A problem found in a config file, addressed by a dotted path (`resources.posts.fields.title.type`).

export interface ConfigProblem {
  /** Dotted path of the offending value; '' for the file as a whole. */
  path: string;
  message: string;
}

/** `path: message`, or the bare message for the file as a whole. */
export function formatProblem(problem: ConfigProblem): string {
  return problem.path ? `${problem.path}: ${problem.message}` : problem.message;
}

/** JSON pointer (as ajv's instancePath) of a list of keys. */
export function toPointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => `/${String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** Dotted path of a JSON pointer: `/resources/posts/fields` → `resources.posts.fields`. */
export function pointerToDotted(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
}

export function joinPath(base: string, ...segments: (string | number)[]): string {
  return [base, ...segments.map(String)].filter((s) => s !== '').join('.');
}

/**
 * Problems in the order their values appear in the config (depth first, keys in file order), so
 * that `svc check` reads like the file; a path that does not exist sorts with its nearest parent.
 */
export function sortProblemsByDocument(problems: readonly ConfigProblem[], tree: unknown): ConfigProblem[] {
  const rank = new Map<string, number>();
  const visit = (node: unknown, path: string): void => {
    if (rank.has(path)) return;
    rank.set(path, rank.size);
    if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) visit(child, joinPath(path, key));
    }
  };
  visit(tree, '');
  const rankOf = (path: string): number => {
    for (let prefix = path; ; prefix = prefix.slice(0, Math.max(prefix.lastIndexOf('.'), 0))) {
      const found = rank.get(prefix);
      if (found !== undefined) return found;
      if (prefix === '') return 0;
    }
  };
  return problems
    .map((problem, index) => ({ problem, index, rank: rankOf(problem.path) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((entry) => entry.problem);
}
