// On PostgreSQL a limited batch that locks its rows (FOR UPDATE SKIP LOCKED) must run once per statement:
// as a semi-join, a row changed concurrently makes PostgreSQL run it again for that row (EvalPlanQual)
// and take more rows than the limit (a webhook claim of 128 took 814 under the bench's load). Run once,
// it shows in the plan as an InitPlan.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type CompiledQuery } from 'kysely';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { keyInLockedBatch } from '../../src/store/key-in-locked-batch.ts';
import { ClaimStatement } from '../../src/webhooks/delivery/claim-statement.ts';
import { createWebhookTables } from '../../src/webhooks/webhook-tables.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';

if (!testDialects().includes('postgres')) {
  describe('locked batches on PostgreSQL', () => {
    it('needs TEST_DATABASE_URL', (ctx) => ctx.skip('TEST_DATABASE_URL is not set'));
  });
} else {
  describe('locked batches on PostgreSQL', () => {
    let database: TestDatabase;
    let store: Store;
    before(async () => {
      database = await createTestDatabase('postgres');
      store = createStore(database.url);
      await createWebhookTables(store.db, store.dialect);
      await sql`create table batch_rows (id integer primary key, v text)`.execute(store.db);
      await sql`insert into batch_rows select i, 'x' from generate_series(1, 2000) i`.execute(store.db);
      await sql`analyze batch_rows`.execute(store.db);
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    async function plan(query: CompiledQuery): Promise<string> {
      const { rows } = await store.db.executeQuery<{ 'QUERY PLAN': string }>({ ...query, sql: `explain ${query.sql}` });
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    }

    it('runs the batch of a delete once, as an InitPlan', async () => {
      const batch = store.db.selectFrom('batch_rows').select('id').orderBy('id').limit(10).forUpdate().skipLocked();
      const text = await plan(store.db.deleteFrom('batch_rows').where(keyInLockedBatch('id', batch)).compile());
      assert.match(text, /InitPlan/);
      assert.doesNotMatch(text, /Semi Join|Nested Loop/);
    });

    it('runs the candidates of a webhook claim once, as an InitPlan', async () => {
      const now = new Date().toISOString();
      const query = new ClaimStatement(store.db, store.dialect).bind({
        now,
        claimedUntil: now,
        token: 't',
        excludeTargets: ['a:1'],
        limit: 128,
      });
      const text = await plan(query);
      assert.match(text, /InitPlan/);
      assert.doesNotMatch(text, /Semi Join|Nested Loop/);
    });

    it('still takes no more than the limit, and only unclaimed rows', async () => {
      const { rows } = await store.db.executeQuery<{ id: number }>(
        store.db
          .deleteFrom('batch_rows')
          .where(
            keyInLockedBatch(
              'id',
              store.db.selectFrom('batch_rows').select('id').orderBy('id').limit(7).forUpdate().skipLocked(),
            ),
          )
          .returning('id')
          .compile(),
      );
      assert.deepEqual(
        rows.map((row) => row.id),
        [1, 2, 3, 4, 5, 6, 7],
      );
    });
  });
}
