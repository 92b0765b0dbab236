// Dependencies point one way (ARCHITECTURE.md): tools/ below everything; errors/ and config/ import
// nothing from the domain; store/ is told plans and column lists, never a Resource; no import cycles.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildImportGraph, findCycles, partOf, type ImportGraph } from './import-graph.ts';

/** Parts that may be imported only from the listed parts (themselves included). */
const MAY_IMPORT_ONLY: Readonly<Record<string, readonly string[]>> = {
  tools: ['tools'],
  errors: ['errors', 'tools'],
  config: ['config', 'errors', 'tools'],
};

/** Parts that must not import the listed parts. */
const MUST_NOT_IMPORT: Readonly<Record<string, readonly string[]>> = {
  store: ['resources'],
};

/**
 * Imports that point the wrong way in files other branches of the architecture work move or rewrite;
 * each is removed when that work lands. `from -> to`, paths under src/.
 */
const KNOWN_WRONG_WAY: ReadonlyMap<string, string> = new Map([]);

/** Cycles in files that other work splits (the CLI moves to src/cli/ and its two files stop importing each other). */
const KNOWN_CYCLES: readonly string[] = [];

function wrongWayImports(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    const part = partOf(from);
    for (const to of targets) {
      const target = partOf(to);
      const allowed = MAY_IMPORT_ONLY[part];
      const forbidden = MUST_NOT_IMPORT[part];
      if ((allowed && !allowed.includes(target)) || forbidden?.includes(target)) found.push(`${from} -> ${to}`);
    }
  }
  return found.sort();
}

describe('import direction', () => {
  const graph = buildImportGraph();

  it('reads the imports of src/', () => {
    // A parser that found nothing would pass every rule below.
    assert.ok(graph.size > 200, `only ${graph.size} files`);
    assert.ok(graph.get('runtime.ts')?.includes('resources/resource-registry.ts'), 'runtime.ts imports the registry');
    assert.ok(graph.get('cli/cli.ts')?.includes('cli/check-config.ts'), 'dynamic import() counts');
  });

  it('finds cycles and wrong-way imports when there are some', () => {
    const sample = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['d.ts']],
      ['e.ts', ['a.ts']],
    ]);
    assert.deepEqual(findCycles(sample), [['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
    const layered = new Map([
      ['config/x.ts', ['resources/y.ts', 'tools/z.ts']],
      ['store/s.ts', ['resources/y.ts', 'config/x.ts']],
      ['tools/z.ts', []],
    ]);
    assert.deepEqual(wrongWayImports(layered), ['config/x.ts -> resources/y.ts', 'store/s.ts -> resources/y.ts']);
  });

  it('has no import that points the wrong way', () => {
    const unexpected = wrongWayImports(graph).filter((edge) => !KNOWN_WRONG_WAY.has(edge));
    assert.deepEqual(unexpected, [], 'config/, errors/ and tools/ import nothing from the domain; store/ does not import resources/');
  });

  it('has no import cycle', () => {
    const unexpected = findCycles(graph)
      .map((cycle) => cycle.join(', '))
      .filter((cycle) => !KNOWN_CYCLES.includes(cycle));
    assert.deepEqual(unexpected, []);
  });

  it('lists as known only exceptions that still exist', () => {
    // When a move lands, its exception goes from the list, so the list cannot hide a new one.
    const edges = new Set(wrongWayImports(graph));
    const cycles = new Set(findCycles(graph).map((cycle) => cycle.join(', ')));
    assert.deepEqual([...KNOWN_WRONG_WAY.keys()].filter((edge) => !edges.has(edge)), []);
    assert.deepEqual(KNOWN_CYCLES.filter((cycle) => !cycles.has(cycle)), []);
  });
});
