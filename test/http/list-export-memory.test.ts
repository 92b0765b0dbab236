// An export of 100,000 rows (about 110 MB of CSV) through a real socket keeps the process's RSS growth
// (read after a full collection every 10 MB) far below the size of what it sends: the rows stream in
// keyset batches, never held all at once. The output is checked as it arrives: one CRLF-ended line per row, ids in increasing order (none twice).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { uuidv7 } from '../../src/store/uuid-v7.ts';

// A full collection on demand: what stays in RSS after one is what the export holds, not garbage waiting.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

// `EXPORT_MEMORY_ROWS=1000000` runs the full size (about 1.1 GB of CSV; a few minutes).
const ROWS = Number(process.env.EXPORT_MEMORY_ROWS ?? 100_000);
const BODY = 'x'.repeat(1000);
/** Generous, yet half of the 110 MB sent: an export that held its rows or its text would pass it. */
const MAX_RSS_GROWTH = 50 * 1024 * 1024;

for (const dialect of testDialects()) {
  describe(`a ${ROWS.toLocaleString('en')}-row export on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    before(async () => {
      t = await startTestApp(dialect);
      editor = await t.as('editor');
      const db = t.ctx.store.db;
      const start = Date.UTC(2026, 0, 1);
      for (let done = 0; done < ROWS; done += 1000) {
        const rows = Array.from({ length: 1000 }, (_, i) => {
          const at = new Date(start + done + i).toISOString();
          return {
            id: uuidv7(start + done + i),
            created_at: at,
            updated_at: at,
            title: `Post ${done + i}`,
            body: BODY,
            views: i,
            status: 'published',
            published: dialect === 'sqlite' ? 0 : false,
          };
        });
        await db.insertInto('posts').values(rows).execute();
      }
      await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(() => t.close());

    it('streams every row with bounded RSS growth', async () => {
      const { port } = t.app.server.address() as AddressInfo;
      collect();
      const rssBefore = process.memoryUsage().rss;
      let peak = rssBefore;
      let lines = 0;
      let bytes = 0;
      let previousId = '';
      let ordered = true;
      let partial = '';
      await new Promise<void>((resolve, reject) => {
        const req = request(
          {
            port,
            host: '127.0.0.1',
            path: '/v1/posts?_format=csv&fields=title,body',
            headers: { authorization: editor },
          },
          (response) => {
            assert.equal(response.statusCode, 200);
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              // Every 10 MB received, garbage is collected before RSS is read.
              if (Math.floor((bytes + chunk.length) / 10_000_000) > Math.floor(bytes / 10_000_000)) collect();
              bytes += chunk.length;
              const text = partial + chunk;
              const parts = text.split('\r\n');
              partial = parts.pop()!;
              for (const line of parts) {
                lines++;
                if (lines === 1) continue; // the header
                const id = line.slice(0, line.indexOf(','));
                if (!(id > previousId)) ordered = false;
                previousId = id;
              }
              peak = Math.max(peak, process.memoryUsage().rss);
            });
            response.on('end', resolve);
            response.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end();
      });
      assert.equal(partial, '');
      assert.equal(lines, ROWS + 1);
      assert.ok(ordered, 'ids arrive in increasing order, none twice');
      assert.ok(bytes > 100_000_000, `${bytes} bytes sent`);
      const growth = peak - rssBefore;
      process.stdout.write(`# ${dialect}: ${bytes} bytes exported, RSS growth ${(growth / 1048576).toFixed(1)} MB\n`);
      assert.ok(growth < MAX_RSS_GROWTH, `RSS grew ${growth} bytes`);
    });
  });
}
