// A million-row corpus for the read-cost benches (search-cost.ts, aggregate-cost.ts): one `articles`
// resource whose title and body are searchable; record i has the word `w<i % 100>` in its body and
// `t<i % 100>` in an indexed `topic` field, so `_search=w7` and `topic=t7` match the same 1%.
import type { ResourceDefinition } from '../src/config/config-types.ts';
import { buildApp, type BuiltApp } from '../src/server.ts';
import { loadConfigFromObject } from '../src/resources/config-loader.ts';
import { authorizationFor } from '../test/helpers/test-auth.ts';
import { createFreshDatabase } from './bench-database.ts';
import type { BenchDatabase } from './bench-options.ts';
import { encodeValues } from '../src/records/record-codec.ts';
import { uuidv7 } from '../src/store/uuid-v7.ts';

export const MARKERS = 100;
const BATCH = 500;
const WORDS = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', 'sed', 'tempor'];

export const ARTICLE_RESOURCES: Record<string, ResourceDefinition> = {
  articles: {
    fields: {
      title: { type: 'string', searchable: true },
      body: { type: 'text', searchable: true },
      topic: { type: 'string', sortable: true },
      words: { type: 'integer' },
    },
    permissions: { reader: { read: true } },
  },
};

/** Writes `rows` articles straight through the store, in transactions of 10,000. */
export async function seedArticles(ctx: BuiltApp['ctx'], rows: number): Promise<void> {
  const resource = ctx.registry.require('articles');
  const now = new Date().toISOString();
  for (let start = 0; start < rows; start += BATCH * 20) {
    await ctx.store.db.transaction().execute(async (trx) => {
      for (let batch = start; batch < Math.min(start + BATCH * 20, rows); batch += BATCH) {
        const values = [];
        for (let i = batch; i < Math.min(batch + BATCH, rows); i++) {
          const words = Array.from({ length: 12 }, (_, k) => WORDS[(i * 31 + k * 7) % WORDS.length]);
          values.push(
            encodeValues(resource, ctx.store.dialect, {
              id: uuidv7(),
              title: `Article ${i}`,
              body: `${words.join(' ')} w${i % MARKERS}`,
              topic: `t${i % MARKERS}`,
              words: 12 + (i % 7),
              created_at: now,
              updated_at: now,
            }),
          );
        }
        await trx.insertInto(resource.table).values(values).execute();
      }
    });
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * A fresh database with `rows` articles and svc built on it (no workers), handed to `measure` with a
 * real reader's Authorization header, as the test suites get theirs; dropped afterwards.
 */
export async function withArticles<T>(
  kind: BenchDatabase,
  rows: number,
  postgresUrl: string | undefined,
  measure: (app: BuiltApp['app'], ctx: BuiltApp['ctx'], authorization: string) => Promise<T>,
): Promise<T> {
  const database = await createFreshDatabase(kind, postgresUrl);
  try {
    const config = loadConfigFromObject({
      database: { url: database.url },
      server: { port: 0, host: '127.0.0.1' },
      adminToken: 'bench-admin-token-0123456789abcdef',
      dataDir: process.env.TMPDIR ?? '/tmp',
      resources: ARTICLE_RESOURCES,
    });
    const { app, ctx } = await buildApp({ config, startWorkers: false });
    await app.ready();
    try {
      await seedArticles(ctx, rows);
      return await measure(app, ctx, await authorizationFor(app, ctx, 'reader', 'bench-reader'));
    } finally {
      await app.close();
    }
  } finally {
    await database.drop();
  }
}
