// Group commit on SQLite (Store.transact): writes that arrive together share one transaction and one
// commit, each still succeeds or fails alone, and none is reported before its commit.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../../src/store/sqlite/sqlite-driver.ts';
import { sql } from 'kysely';
import { createStore, type Store } from '../../src/store/create-store.ts';

async function withFileStore(run: (store: Store, path: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-groups-'));
  const path = join(dir, 'db.sqlite');
  const store = createStore(`sqlite:${path}`);
  try {
    await sql`create table t (id integer primary key, name text not null unique)`.execute(store.db);
    await run(store, path);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function insert(store: Store, id: number, name: string): Promise<number> {
  return store.transact(async (trx) => {
    await sql`insert into t (id, name) values (${id}, ${name})`.execute(trx);
    return id;
  });
}

describe('Store.transact on SQLite (group commit)', () => {
  it('commits writes that arrive together in one transaction', async () => {
    await withFileStore(async (store, path) => {
      const other = new Database(path, { readonly: true });
      try {
        const before = Number(other.pragma('data_version', { simple: true }));
        const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => insert(store, i + 1, `n${i + 1}`)));
        assert.deepEqual(
          ids,
          Array.from({ length: 20 }, (_, i) => i + 1),
        );
        // Another connection's data_version moves once per commit it did not make.
        const after = Number(other.pragma('data_version', { simple: true }));
        assert.equal(after - before, 1, 'one commit for the twenty writes');
        assert.equal((other.prepare('select count(*) as n from t').get() as { n: number }).n, 20);
      } finally {
        other.close();
      }
    });
  });

  it('rolls back only the write that failed; the others of its group commit', async () => {
    await withFileStore(async (store) => {
      const results = await Promise.allSettled([
        insert(store, 1, 'a'),
        insert(store, 2, 'a'), // unique violation: only this one fails
        store.transact(async (trx) => {
          await sql`insert into t (id, name) values (3, 'c')`.execute(trx);
          throw new Error('refused after writing');
        }),
        insert(store, 4, 'd'),
      ]);
      assert.equal(results[0]!.status, 'fulfilled');
      assert.equal(results[1]!.status, 'rejected');
      assert.match(String((results[1] as PromiseRejectedResult).reason), /UNIQUE/);
      assert.equal(results[2]!.status, 'rejected');
      assert.match(String((results[2] as PromiseRejectedResult).reason), /refused after writing/);
      assert.equal(results[3]!.status, 'fulfilled');
      const rows = await sql<{ id: number; name: string }>`select id, name from t order by id`.execute(store.db);
      assert.deepEqual(rows.rows, [
        { id: 1, name: 'a' },
        { id: 4, name: 'd' },
      ]);
    });
  });

  it('reports a write only once another connection can read it', async () => {
    await withFileStore(async (store, path) => {
      const other = new Database(path, { readonly: true });
      try {
        const seen: number[] = [];
        await Promise.all(
          [1, 2, 3].map((id) =>
            insert(store, id, `n${id}`).then(() => {
              seen.push((other.prepare('select count(*) as n from t where id = ?').get(id) as { n: number }).n);
            }),
          ),
        );
        assert.deepEqual(seen, [1, 1, 1]);
      } finally {
        other.close();
      }
    });
  });

  it('fails every write of a group whose commit fails, and keeps none of them', async () => {
    await withFileStore(async (store) => {
      // A deferred foreign key is checked at COMMIT: one bad row makes the whole commit fail.
      await sql`create table child (id integer primary key, parent integer references t(id) deferrable initially deferred)`.execute(
        store.db,
      );
      const results = await Promise.allSettled([
        insert(store, 1, 'a'),
        store.transact(async (trx) => {
          await sql`insert into child (id, parent) values (1, 999)`.execute(trx);
        }),
        insert(store, 2, 'b'),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['rejected', 'rejected', 'rejected'],
      );
      for (const result of results) assert.match(String((result as PromiseRejectedResult).reason), /FOREIGN KEY/);
      const rows = await sql<{ n: number }>`select count(*) as n from t`.execute(store.db);
      assert.equal(rows.rows[0]!.n, 0);
      // The connection is usable afterwards.
      assert.equal(await insert(store, 3, 'c'), 3);
    });
  });

  it('fails the writes SQLite took back with a failed one (a full disk), and runs the rest in the next group', async () => {
    await withFileStore(async (store) => {
      await insert(store, 100, 'seed');
      const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(store.db)).rows[0]!.page_count;
      // No page can be added: a small row still fits, a 100 KB one fails with SQLITE_FULL, which ends
      // the whole transaction, not just the statement.
      await sql.raw(`pragma max_page_count = ${pages}`).execute(store.db);
      const results = await Promise.allSettled([
        insert(store, 1, 'a'),
        insert(store, 2, 'x'.repeat(100_000)),
        insert(store, 3, 'c'),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['rejected', 'rejected', 'fulfilled'],
      );
      assert.match(String((results[0] as PromiseRejectedResult).reason), /full/);
      assert.match(String((results[1] as PromiseRejectedResult).reason), /full/);
      const rows = await sql<{ id: number }>`select id from t order by id`.execute(store.db);
      assert.deepEqual(
        rows.rows.map((r) => r.id),
        [3, 100],
      );
    });
  });

  it('runs a group without savepoints first, and again with them when one write fails: the others commit once', async () => {
    await withFileStore(async (store) => {
      const runs = new Map<number, number>();
      const counted = (id: number, name: string) =>
        store.transact(async (trx) => {
          runs.set(id, (runs.get(id) ?? 0) + 1);
          await sql`insert into t (id, name) values (${id}, ${name})`.execute(trx);
          return id;
        });
      // A group that fails nothing runs once.
      await Promise.all([counted(1, 'a'), counted(2, 'b'), counted(3, 'c')]);
      assert.deepEqual([...runs.values()], [1, 1, 1]);
      runs.clear();
      const results = await Promise.allSettled([counted(4, 'd'), counted(5, 'a'), counted(6, 'f')]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.match(String((results[1] as PromiseRejectedResult).reason), /UNIQUE/);
      // The first run stopped at the failure and was rolled back as a whole; then every write ran in
      // its savepoint (the one after the failure for the first time).
      assert.deepEqual(
        [...runs.entries()],
        [
          [4, 2],
          [5, 2],
          [6, 1],
        ],
      );
      const rows = await sql<{ id: number }>`select id from t order by id`.execute(store.db);
      assert.deepEqual(
        rows.rows.map((r) => r.id),
        [1, 2, 3, 4, 6],
      );
      // The groups after a failure start with savepoints: a write runs once even when a neighbour fails.
      runs.clear();
      const next = await Promise.allSettled([counted(7, 'g'), counted(8, 'a')]);
      assert.deepEqual(
        next.map((r) => r.status),
        ['fulfilled', 'rejected'],
      );
      assert.deepEqual(
        [...runs.entries()],
        [
          [7, 1],
          [8, 1],
        ],
      );
    });
  });

  it('runs a lone write without a savepoint and keeps later writes working after a failure', async () => {
    await withFileStore(async (store) => {
      await insert(store, 1, 'a');
      await assert.rejects(insert(store, 2, 'a'), /UNIQUE/);
      assert.equal(await insert(store, 2, 'b'), 2);
    });
  });
});
