// A hooks file may be a `.js` file in a folder whose package.json says "type": "module" (as an
// application's own code usually is), not only `.mjs`.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importHooksFile } from '../../src/hooks/load-hooks-file.ts';
import { hooksModule } from './hooks-app.ts';

describe('a .js hooks file', () => {
  it('is imported as ES module code when its package.json says "type": "module"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-hooks-js-'));
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
      const file = join(dir, 'svc.hooks.js');
      writeFileSync(file, hooksModule(`{ articles: { beforeCreate({ values }) { values.slug = 'from-js'; } } }`));
      const hooks = (await importHooksFile(file)) as { articles: { beforeCreate(ctx: unknown): void } };
      const values: Record<string, unknown> = {};
      hooks.articles.beforeCreate({ values });
      assert.equal(values.slug, 'from-js');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
