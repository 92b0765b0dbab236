// The n-th newest key, found in bounded steps: the same answer as one `offset n-1` walk, and the event
// loop turns between steps (on SQLite a statement holds the loop for as long as it walks).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { nthNewestKey } from '../../src/store/nth-newest-key.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { loopTurnsDuring } from '../helpers/loop-turns.ts';

const TABLE = 'nth_newest_rows';

for (const dialect of testDialects()) {
  describe(`the n-th newest key, walked in steps (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;

    before(async () => {
      database = await createTestDatabase(dialect);
      store = createStore(database.url);
      await store.db.schema
        .createTable(TABLE)
        .addColumn('k', 'integer', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .execute();
      // Keys 1..95 but every 7th: 82 rows, with gaps; kind alternates.
      const rows = Array.from({ length: 95 }, (_, i) => ({
        k: i + 1,
        kind: i % 2 === 0 ? 'even-index' : 'odd-index',
      })).filter((row) => row.k % 7 !== 0);
      await store.db.insertInto(TABLE).values(rows).execute();
    });

    after(async () => {
      await store?.close();
      await database?.drop();
    });

    async function byOffset(n: number, kind?: string): Promise<unknown> {
      let query = store.db.selectFrom(TABLE).select('k');
      if (kind !== undefined) query = query.where('kind', '=', kind);
      const row = await query
        .orderBy('k', 'desc')
        .limit(1)
        .offset(n - 1)
        .executeTakeFirst();
      return row?.k;
    }

    it('answers what one offset walk answers, for any n and step, with and without a condition', async () => {
      for (const stepRows of [1, 4, 10, 1000]) {
        for (const n of [1, 3, 4, 5, 40, 82, 83, 100]) {
          assert.equal(
            await nthNewestKey(store.db, { table: TABLE, key: 'k', n, stepRows }),
            await byOffset(n),
            `n ${n}, step ${stepRows}`,
          );
          const where = (eb: Parameters<NonNullable<Parameters<typeof nthNewestKey>[1]['where']>>[0]) =>
            eb('kind', '=', 'odd-index');
          assert.equal(
            await nthNewestKey(store.db, { table: TABLE, key: 'k', n, stepRows, where }),
            await byOffset(n, 'odd-index'),
            `n ${n}, step ${stepRows}, odd`,
          );
        }
      }
      assert.equal(
        await nthNewestKey(store.db, { table: TABLE, key: 'k', n: 83 }),
        undefined,
        'fewer rows than n (82 rows)',
      );
    });

    it('lets the event loop turn between steps', async () => {
      const { result: key, turns } = await loopTurnsDuring(() =>
        nthNewestKey(store.db, { table: TABLE, key: 'k', n: 80, stepRows: 8 }),
      );
      assert.equal(key, await byOffset(80));
      assert.ok(turns >= 9, `10 steps leave at least 9 turns to others (${turns})`);
    });
  });
}
