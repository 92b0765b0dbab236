// `svc import FILE --resource R` against a listening svc on SQLite and PostgreSQL: NDJSON and CSV rows
// loaded in batches through POST /v1/operations, refused rows in the report with their errors and the
// rest stored, a rerun that stores nothing twice, and --skip to resume.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/cli.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

for (const dialect of testDialects()) {
  describe(`svc import (${dialect})`, () => {
    let t: TestApp;
    let address: string;
    let dir: string;

    before(async () => {
      t = await startTestApp(dialect);
      address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      process.env.SVC_API_KEY = (await t.as('editor')).slice('Bearer '.length);
      dir = mkdtempSync(join(tmpdir(), 'svc-import-'));
    });
    after(async () => {
      delete process.env.SVC_API_KEY;
      await t?.close();
    });

    const count = async (table: string, where?: [string, string]) => {
      let query = t.ctx.store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n'));
      if (where) query = query.where(where[0], 'like', where[1]);
      return Number((await query.executeTakeFirstOrThrow()).n);
    };

    it('loads NDJSON in batches and reports the refused rows with their errors', async () => {
      const file = join(dir, 'categories.ndjson');
      const lines: string[] = [];
      for (let i = 1; i <= 250; i++) {
        if (i === 17) lines.push(JSON.stringify({ description: 'no name' }));
        else if (i === 120) lines.push(JSON.stringify({ name: 'nd-1' }));
        else if (i === 201) lines.push(JSON.stringify({ name: 'nd-201', color: 'red' }));
        else lines.push(JSON.stringify({ name: `nd-${i}`, description: `row ${i}` }));
        if (i === 100) lines.push('');
      }
      writeFileSync(file, `${lines.join('\n')}\n`);
      const code = await main(['import', file, '--resource', 'categories', '--url', address, '--batch', '50']);
      assert.equal(code, 1);
      assert.equal(await count('categories', ['name', 'nd-%']), 247);
      const report = readFileSync(`${file}.refused.ndjson`, 'utf8')
        .trim()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as {
              line: number;
              row: Record<string, unknown>;
              errors: { code: string; pointer?: string }[];
            },
        );
      assert.deepEqual(
        report.map((entry) => entry.line),
        [17, 120, 201],
      );
      assert.deepEqual(
        report[0]!.errors.map((error) => [error.code, error.pointer]),
        [['INVALID_RESOURCE_DATA', '/data/attributes/name']],
      );
      assert.equal(report[1]!.errors[0]!.code, 'CONFLICT');
      assert.equal(report[2]!.errors[0]!.pointer, '/data/attributes/color');
      assert.deepEqual(report[2]!.row, { name: 'nd-201', color: 'red' });

      // The report, fixed, is imported as it is: its lines stand for their rows.
      const fixed = join(dir, 'fixed.ndjson');
      writeFileSync(fixed, `${JSON.stringify({ ...report[0], row: { name: 'nd-17' } })}\n`);
      assert.equal(await main(['import', fixed, '--resource', 'categories', '--url', address]), 0);
      assert.equal(await count('categories', ['name', 'nd-17']), 1);
    });

    it('loads CSV with values typed by the resource, stores nothing twice on a rerun, and resumes with --skip', async () => {
      const file = join(dir, 'posts.csv');
      const rows = ['title,views,published,tags'];
      for (let i = 1; i <= 30; i++) rows.push(`"csv post, ${i}",${i},${i % 2 === 0},"{""n"":${i}}"`);
      writeFileSync(file, `${rows.join('\n')}\n`);
      assert.equal(await main(['import', file, '--resource', 'posts', '--url', address, '--batch', '10']), 0);
      assert.equal(await count('posts', ['title', 'csv post,%']), 30);
      const stored = await t.ctx.store.db
        .selectFrom('posts')
        .select(['views', 'published', 'tags'])
        .where('title', '=', 'csv post, 4')
        .executeTakeFirstOrThrow();
      assert.equal(Number(stored.views), 4);
      assert.ok(stored.published === true || stored.published === 1, String(stored.published));
      assert.deepEqual(typeof stored.tags === 'string' ? JSON.parse(stored.tags) : stored.tags, { n: 4 });
      // A rerun sends the same batches under the same Idempotency-Keys: answered, not stored again.
      assert.equal(await main(['import', file, '--resource', 'posts', '--url', address, '--batch', '10']), 0);
      assert.equal(await count('posts', ['title', 'csv post,%']), 30);
      // Resuming after row 20 of a longer file: only the rows after it go.
      const longer = join(dir, 'more.csv');
      writeFileSync(longer, `${['title', ...Array.from({ length: 25 }, (_, i) => `more ${i + 1}`)].join('\n')}\n`);
      assert.equal(await main(['import', longer, '--resource', 'posts', '--url', address, '--skip', '20']), 0);
      assert.equal(await count('posts', ['title', 'more %']), 5);
    });

    it('stops with the resume point when the service refuses the whole request', async () => {
      const file = join(dir, 'unknown.ndjson');
      writeFileSync(file, `${JSON.stringify({ name: 'x' })}\n`);
      assert.equal(await main(['import', file, '--resource', 'categories', '--url', address, '--batch', '0']), 1);
      process.env.SVC_API_KEY = 'svc_not-a-key';
      try {
        assert.equal(await main(['import', file, '--resource', 'categories', '--url', address]), 1);
      } finally {
        process.env.SVC_API_KEY = (await t.as('editor')).slice('Bearer '.length);
      }
      assert.equal(await count('categories', ['name', 'x']), 0);
    });
  });
}
