// HTTP sits on top of the model: routes, documents, guards and the OpenAPI description (http/openapi/)
// import the parts they serve, and no part below imports back. Only the entry points that mount or print
// the HTTP API (app.ts, server.ts, cli/) may import from http/.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildImportGraph, partOf } from './import-graph.ts';

/** What may import from http/: http/ itself and the entry points above it. */
const ABOVE_HTTP: ReadonlySet<string> = new Set(['http', 'cli']);
const TOP_FILES: ReadonlySet<string> = new Set(['app.ts', 'server.ts']);

describe('http/ on top', () => {
  it('is imported only by itself and the entry points, type imports included', () => {
    const wrong: string[] = [];
    for (const [file, targets] of buildImportGraph()) {
      if (ABOVE_HTTP.has(partOf(file)) || TOP_FILES.has(file)) continue;
      for (const target of targets) if (partOf(target) === 'http') wrong.push(`${file} imports ${target}`);
    }
    assert.deepEqual(wrong, []);
  });

  it('holds the OpenAPI description, which the model layer no longer does', () => {
    const files = [...buildImportGraph().keys()];
    assert.ok(files.includes('http/openapi/openapi-document.ts'));
    assert.deepEqual(files.filter((file) => file.includes('openapi') && partOf(file) !== 'http'), []);
  });
});
