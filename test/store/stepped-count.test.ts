// meta.total on SQLite: a count is taken whole until one is slow, then in rowid steps that read the
// table in rowid order (not by an index) with the event loop turning between them; the count is the same.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type CompiledQuery, type RawBuilder, type SqlBool } from 'kysely';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { countByPlan, countPlanOf, type CountPlan } from '../../src/store/sqlite/stepped-count.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';
import { loopTurnsDuring } from '../helpers/loop-turns.ts';

const TABLE = 'counted_posts';

describe('counting a list in rowid steps (sqlite)', () => {
  let database: TestDatabase;
  let store: Store;

  before(async () => {
    database = await createTestDatabase('sqlite');
    store = createStore(database.url);
    await store.db.schema
      .createTable(TABLE)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('published', 'integer', (c) => c.notNull())
      .addColumn('author', 'text', (c) => c.notNull())
      .addColumn('views', 'integer', (c) => c.notNull())
      .execute();
    await store.db.schema.createIndex('ix_counted_posts_published').on(TABLE).column('published').execute();
    const rows = Array.from({ length: 120 }, (_, i) => ({
      id: `p${i}`,
      published: i % 3 === 0 ? 1 : 0,
      author: `u${i % 4}`,
      views: i,
    }));
    await store.db.insertInto(TABLE).values(rows).execute();
    // Gaps in the rowids, as deletes leave them.
    await store.db.deleteFrom(TABLE).where(sql<boolean>`_rowid_ between 30 and 47 or _rowid_ <= 3`).execute();
  });

  after(async () => {
    await store?.close();
    await database?.drop();
  });

  const read = async <R>(query: CompiledQuery<R>): Promise<R[]> => (await store.db.executeQuery(query)).rows;

  function planFor(conditions: RawBuilder<SqlBool>[]): CountPlan {
    let whole = store.db.selectFrom(TABLE).select(sql<number>`count(*)`.as('total'));
    for (const condition of conditions) whole = whole.where(condition);
    return countPlanOf(store.db, TABLE, conditions, whole.compile());
  }

  const visible = sql<SqlBool>`(published = ${1} or author = ${'u1'})`;
  const requested = sql<SqlBool>`views >= ${10}`;

  async function expected(conditions: RawBuilder<SqlBool>[]): Promise<number> {
    let query = store.db.selectFrom(TABLE).select(sql<number>`count(*)`.as('n'));
    for (const condition of conditions) query = query.where(condition);
    return Number((await query.executeTakeFirstOrThrow()).n);
  }

  it('counts whole until a count is slow, then in steps, with the same result for any step', async () => {
    const plan = planFor([visible, requested]);
    const total = await expected([visible, requested]);
    assert.ok(total > 20);
    assert.equal(await countByPlan(read, plan, { slowMs: 60_000 }), total);
    assert.equal(plan.stepped, false, 'a fast count stays whole');
    assert.equal(await countByPlan(read, plan, { slowMs: 0 }), total);
    assert.equal(plan.stepped, true, 'a slow one switches the list to steps');
    for (const stepRows of [1, 7, 50, 10_000])
      assert.equal(await countByPlan(read, plan, { stepRows }), total, `step ${stepRows}`);
  });

  it('keeps a condition whole in steps: an `or` at its top level binds as it does alone', async () => {
    const bare = sql<SqlBool>`published = ${1} or author = ${'u1'}`;
    const plan = planFor([bare, requested]);
    plan.stepped = true;
    assert.equal(await countByPlan(read, plan, { stepRows: 9 }), await expected([sql<SqlBool>`(${bare})`, requested]));
  });

  it('reads the table in rowid order in each step, not the whole index once per step', async () => {
    const plan = planFor([sql<SqlBool>`published = ${1}`]);
    const explained = await store.db.executeQuery<{ detail: string }>({
      ...plan.range,
      sql: `explain query plan ${plan.range.sql}`,
    });
    const details = explained.rows.map((row) => row.detail).join('; ');
    assert.match(details, /INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/, details);
    assert.doesNotMatch(details, /ix_counted_posts_published/, details);
  });

  it('lets the event loop turn between steps, and counts an empty table as 0', async () => {
    const plan = planFor([visible]);
    plan.stepped = true;
    const { result, turns } = await loopTurnsDuring(() => countByPlan(read, plan, { stepRows: 10 }));
    assert.equal(result, await expected([visible]));
    assert.ok(turns >= 9, `about 12 steps over rowids 4-120 leave at least 9 turns to others (${turns})`);

    await store.db.schema
      .createTable('empty_posts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .execute();
    const empty = countPlanOf(
      store.db,
      'empty_posts',
      [],
      store.db.selectFrom('empty_posts').select(sql<number>`count(*)`.as('total')).compile(),
    );
    empty.stepped = true;
    assert.equal(await countByPlan(read, empty), 0);
  });
});
