// Counting a SQLite table by a column in rowid steps: the same counts as one `group by`, with the
// event loop turning between steps (a statement holds it for as long as it reads).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { countByInSteps } from '../../src/store/sqlite/count-in-steps.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';
import { loopTurnsDuring } from '../helpers/loop-turns.ts';

const TABLE = 'counted_rows';

describe('counting by a column in rowid steps (sqlite)', () => {
  let database: TestDatabase;
  let store: Store;

  before(async () => {
    database = await createTestDatabase('sqlite');
    store = createStore(database.url);
    await store.db.schema
      .createTable(TABLE)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('status', 'text', (c) => c.notNull())
      .execute();
  });

  after(async () => {
    await store?.close();
    await database?.drop();
  });

  async function byGroupBy(): Promise<Map<string, number>> {
    const rows = await store.db
      .selectFrom(TABLE)
      .select(['status', sql<number>`count(*)`.as('n')])
      .groupBy('status')
      .execute();
    return new Map(rows.map((row) => [String(row.status), Number(row.n)]));
  }

  it('counts nothing in an empty table', async () => {
    assert.deepEqual(await countByInSteps(store.db, TABLE, 'status', 3), new Map());
  });

  it('gives the counts one group by gives, across gaps and for any step', async () => {
    const statuses = ['success', 'failed', 'pending'];
    await store.db
      .insertInto(TABLE)
      .values(Array.from({ length: 103 }, (_, i) => ({ id: `r${i}`, status: statuses[(i * i) % 3]! })))
      .execute();
    // Gaps: the oldest rows and a run in the middle were pruned.
    await store.db.deleteFrom(TABLE).where(sql<boolean>`rowid <= 5 or rowid between 40 and 61`).execute();
    const expected = await byGroupBy();
    assert.equal(
      [...expected.values()].reduce((a, b) => a + b, 0),
      76,
    );
    for (const step of [1, 7, 10, 50, 10_000])
      assert.deepEqual(await countByInSteps(store.db, TABLE, 'status', step), expected, `step ${step}`);
  });

  it('lets the event loop turn between steps', async () => {
    const { turns } = await loopTurnsDuring(() => countByInSteps(store.db, TABLE, 'status', 10));
    assert.ok(turns >= 9, `about 10 steps over rowids 6-103 leave at least 9 turns to others (${turns})`);
  });
});
