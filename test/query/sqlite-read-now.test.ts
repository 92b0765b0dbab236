// Reads that skip Kysely on SQLite (Store.readNow) must never see another request's uncommitted rows:
// inside a transaction they decline, and the caller waits for the connection through Kysely.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database, type SqliteDatabase } from '../../src/store/sqlite/sqlite-driver.ts';
import { CompiledQuery, sql } from 'kysely';
import { createStore, type Store } from '../../src/store/create-store.ts';

const nextPass = () => new Promise<void>((resolve) => setImmediate(resolve));

function rawOf(store: Store): SqliteDatabase {
  assert.equal(store.driver.kind, 'sqlite');
  return (store.driver as { database: SqliteDatabase }).database;
}

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

  it('shares one read transaction among the reads of a pass and ends it with the pass', async () => {
    const store = createStore('sqlite::memory:');
    try {
      await sql`create table t (id integer primary key, name text)`.execute(store.db);
      await sql`insert into t (id, name) values (1, 'one')`.execute(store.db);
      const raw = rawOf(store);
      const select = CompiledQuery.raw('select name from t where id = ?', [1]);
      assert.equal(raw.inTransaction, false);
      assert.deepEqual(store.readNow(select), [{ name: 'one' }]);
      assert.equal(raw.inTransaction, true, 'the read opened the pass transaction');
      assert.deepEqual(store.readNow(select), [{ name: 'one' }]);
      await nextPass();
      assert.equal(raw.inTransaction, false, 'the pass ended it');
    } finally {
      await store.close();
    }
  });

  it('ends the read transaction before a write, so the write commits at once and is seen by other connections', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-read-pass-'));
    const file = join(dir, 'data.db');
    const store = createStore(`sqlite:${file}`);
    const other = new Database(file);
    try {
      await sql`create table t (id integer primary key, name text)`.execute(store.db);
      const raw = rawOf(store);
      const count = () => (other.prepare('select count(*) as n from t').get() as { n: number }).n;
      const select = CompiledQuery.raw('select count(*) as n from t', []);

      // A write outside a transaction, in the same pass as a read.
      assert.deepEqual(store.readNow(select), [{ n: 0 }]);
      await sql`insert into t (id, name) values (1, 'autocommit')`.execute(store.db);
      assert.equal(raw.inTransaction, false, 'the write did not run inside the read transaction');
      assert.equal(count(), 1, 'committed before the pass ended');

      // A transaction begun in the same pass as a read.
      assert.deepEqual(store.readNow(select), [{ n: 1 }]);
      await store.db.transaction().execute(async (trx) => {
        await sql`insert into t (id, name) values (2, 'in a transaction')`.execute(trx);
      });
      assert.equal(count(), 2);

      // A write with RETURNING is a reader but not a read.
      assert.deepEqual(store.readNow(select), [{ n: 2 }]);
      const returned = await sql<{ id: number }>`insert into t (id, name) values (3, 'returning') returning id`.execute(
        store.db,
      );
      assert.deepEqual(returned.rows, [{ id: 3 }]);
      assert.equal(count(), 3);

      // A schema change.
      assert.deepEqual(store.readNow(select), [{ n: 3 }]);
      await sql`create table u (id integer primary key)`.execute(store.db);
      assert.equal(raw.inTransaction, false);
      assert.equal(
        (other.prepare(`select count(*) as n from sqlite_master where name = 'u'`).get() as { n: number }).n,
        1,
      );

      // Reads of a later pass see what other connections committed meanwhile.
      assert.deepEqual(store.readNow(select), [{ n: 3 }]);
      other.prepare(`insert into t (id, name) values (4, 'elsewhere')`).run();
      await nextPass();
      assert.deepEqual(store.readNow(select), [{ n: 4 }]);
    } finally {
      other.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is never used on PostgreSQL', () => {
    const store = createStore('postgres://postgres@127.0.0.1:1/none');
    assert.equal(store.readNow(CompiledQuery.raw('select 1', [])), undefined);
    return store.close();
  });
});
