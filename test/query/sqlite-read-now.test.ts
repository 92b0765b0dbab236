// Reads that skip Kysely on SQLite (Store.readNow) must never see another request's uncommitted rows:
// inside a transaction they decline, and the caller waits for the connection through Kysely.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import { createStore } from '../../src/store/create-store.ts';

describe('Store.readNow on SQLite', () => {
  it('reads at once outside a transaction and declines inside one, so no uncommitted row is seen', async () => {
    const store = createStore('sqlite::memory:');
    try {
      await sql`create table t (id integer primary key, name text)`.execute(store.db);
      await sql`insert into t (id, name) values (1, 'committed')`.execute(store.db);
      const select = CompiledQuery.raw('select id, name from t order by id', []);
      assert.deepEqual(store.readNow(select), [{ id: 1, name: 'committed' }]);

      let release!: () => void;
      let inside!: () => void;
      const entered = new Promise<void>((resolve) => (inside = resolve));
      const transaction = store.db.transaction().execute(async (trx) => {
        await sql`insert into t (id, name) values (2, 'uncommitted')`.execute(trx);
        inside();
        await new Promise<void>((resolve) => (release = resolve));
        throw new Error('roll back');
      });
      await entered;
      assert.equal(store.readNow(select), undefined);
      const waited = store.db.executeQuery(select);
      release();
      await assert.rejects(transaction, /roll back/);
      assert.deepEqual((await waited).rows, [{ id: 1, name: 'committed' }]);
      assert.deepEqual(store.readNow(select), [{ id: 1, name: 'committed' }]);
    } finally {
      await store.close();
    }
  });

  it('is never used on PostgreSQL', () => {
    const store = createStore('postgres://postgres@127.0.0.1:1/none');
    assert.equal(store.readNow(CompiledQuery.raw('select 1', [])), undefined);
    return store.close();
  });
});
