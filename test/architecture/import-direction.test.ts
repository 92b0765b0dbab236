// Imports point one way (ARCHITECTURE.md): every import in src/, type-only ones included, must be one
// that the layer table in ARCHITECTURE.md allows for its part, the table itself must order the parts
// (no part reaches back up), and no file may import a file that imports it back.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildImportGraph, findCycles, partOf, readImports, SRC, type ImportEdge } from './import-graph.ts';
import { parseLayerTable, readLayerTable, type LayerTable } from './layer-table.ts';

/** Each import its part's row does not allow, as `file:line imports target (part may import …)`. */
function importsAgainst(table: LayerTable, edges: readonly ImportEdge[]): string[] {
  const found: string[] = [];
  for (const { from, to, line } of edges) {
    const part = partOf(from);
    const target = partOf(to);
    const allowed = table.get(part);
    if (part === target || allowed?.has(target)) continue;
    const rule = allowed
      ? `${part} may import ${[...allowed].join(', ') || 'nothing'}`
      : `${part} has no row in the table`;
    found.push(`src/${from}:${line} imports ${to} (${rule})`);
  }
  return found;
}

/** Parts of the table that reach back to themselves through the allowed imports: a table that is not an order. */
function tableCycles(table: LayerTable): string[][] {
  return findCycles(new Map([...table].map(([part, allowed]) => [part, [...allowed]])));
}

describe('import direction', () => {
  const table = readLayerTable();
  const edges = readImports();

  it('reads the imports of src/ and the layer table', () => {
    // A reader that found nothing would pass every rule below.
    const graph = buildImportGraph();
    assert.ok(graph.size > 200, `only ${graph.size} files`);
    assert.ok(graph.get('runtime.ts')?.includes('resources/resource-registry.ts'), 'runtime.ts imports the registry');
    assert.ok(graph.get('cli/cli.ts')?.includes('cli/check-config.ts'), 'dynamic import() counts');
    assert.ok(
      edges.some((edge) => edge.from === 'records/record-service.ts' && edge.to === 'model/principal.ts'),
      'import type counts',
    );
    assert.ok(table.size >= 20, `only ${table.size} parts in the table`);
    assert.deepEqual(table.get('tools/'), new Set(), 'tools/ imports nothing');
    // The OpenAPI description lives with the routes it describes (the table keeps the rest from importing it).
    assert.ok(graph.has('http/openapi/openapi-document.ts'));
    assert.deepEqual(
      [...graph.keys()].filter((file) => file.includes('openapi') && partOf(file) !== 'http/'),
      [],
    );
  });

  it('reports an import against the table with its file and line', () => {
    const sample = parseLayerTable(
      [
        '| Part | May import | Holds |',
        '| --- | --- | --- |',
        '| `query/` | `store/` | q |',
        '| `store/` | nothing | s |',
      ].join('\n'),
    );
    const found = importsAgainst(sample, [
      { from: 'query/a.ts', to: 'store/b.ts', line: 3 },
      { from: 'query/a.ts', to: 'query/c.ts', line: 4 },
      { from: 'store/b.ts', to: 'query/a.ts', line: 7 },
      { from: 'http/x.ts', to: 'store/b.ts', line: 1 },
    ]);
    assert.deepEqual(found, [
      'src/store/b.ts:7 imports query/a.ts (store/ may import nothing)',
      'src/http/x.ts:1 imports store/b.ts (http/ has no row in the table)',
    ]);
    assert.deepEqual(tableCycles(sample), []);
    const ring = parseLayerTable(
      ['| Part | May import |', '| --- | --- |', '| `a/` | `b/` |', '| `b/` | `a/` |'].join('\n'),
    );
    assert.deepEqual(tableCycles(ring), [['a/', 'b/']]);
  });

  it('has no import the layer table does not allow', () => {
    assert.deepEqual(importsAgainst(table, edges), []);
  });

  it('has a layer table that orders the parts one way', () => {
    assert.deepEqual(tableCycles(table), []);
  });

  it('has a row for every part of src/ and no row for a part that is not there', () => {
    const parts = new Set([...buildImportGraph().keys()].map(partOf));
    assert.deepEqual([...parts].filter((part) => !table.has(part)).sort(), [], 'parts with no row');
    const named = new Set([...table.keys(), ...[...table.values()].flatMap((allowed) => [...allowed])]);
    assert.deepEqual(
      [...named].filter((part) => !existsSync(join(SRC, part))).sort(),
      [],
      'rows naming what does not exist',
    );
  });

  it('has no import cycle', () => {
    assert.deepEqual(findCycles(buildImportGraph()), []);
  });
});
