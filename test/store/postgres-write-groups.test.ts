// Group commit on PostgreSQL (Store.transact): writes that arrive together share one transaction; each
// still succeeds or fails alone (a failure rolls the group back and the writes run again), none is
// reported before its commit, and a group does not wait long on a lock. Through the app: a write run
// again leaves exactly one event per change.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { sql } from 'kysely';
import { createStore, type Store } from '../../src/store/create-store.ts';
import type { Db } from '../../src/store/store-dialect.ts';
import { failedBeforeWriting } from '../../src/store/write-failure.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const skip = !process.env.TEST_DATABASE_URL;
if (skip) process.stdout.write('# SKIP PostgreSQL group commit: TEST_DATABASE_URL is not set\n');

async function transactionId(trx: Db): Promise<string> {
  return (await sql<{ id: string }>`select txid_current()::text as id`.execute(trx)).rows[0]!.id;
}

describe('Store.transact on PostgreSQL (group commit)', { skip }, () => {
  let database: TestDatabase;
  let store: Store;

  before(async () => {
    database = await createTestDatabase('postgres');
    store = createStore(database.url);
    await sql`create table t (id integer primary key, name text not null unique)`.execute(store.db);
    await sql`create table d (id integer primary key, ref integer references d (id) deferrable initially deferred)`.execute(store.db);
  });

  after(async () => {
    await store.close();
    await database.drop();
  });

  beforeEach(async () => {
    await sql`truncate t, d`.execute(store.db);
  });

  const insert = (id: number, name: string, runs?: Map<number, number>) =>
    store.transact(async (trx) => {
      runs?.set(id, (runs.get(id) ?? 0) + 1);
      await sql`insert into t (id, name) values (${id}, ${name})`.execute(trx);
      return transactionId(trx);
    });

  const rows = async () => (await sql<{ id: number; name: string }>`select id, name from t order by id`.execute(store.db)).rows;

  it('commits writes that arrive together in one transaction, which waits for locks briefly', async () => {
    const [ids, timeouts] = await Promise.all([
      Promise.all(Array.from({ length: 10 }, (_, i) => insert(i + 1, `n${i + 1}`))),
      Promise.all([1, 2].map(() => store.transact(async (trx) => (await sql<{ lock_timeout: string }>`show lock_timeout`.execute(trx)).rows[0]!.lock_timeout))),
    ]);
    assert.equal(new Set(ids).size, 1, 'one transaction for the ten writes');
    assert.deepEqual(timeouts, ['200ms', '200ms']);
    assert.equal((await rows()).length, 10);
    // A write alone is its own transaction, as before group commit, with no lock timeout of its own.
    const alone = await store.transact(async (trx) => (await sql<{ lock_timeout: string }>`show lock_timeout`.execute(trx)).rows[0]!.lock_timeout);
    assert.equal(alone, '0');
  });

  it('answers a write that failed before writing anything and commits the rest in the same transaction', async () => {
    const results = await Promise.allSettled([
      insert(1, 'a'),
      store.transact(async (trx) => {
        await sql`select id from t where id = 2`.execute(trx);
        throw failedBeforeWriting(new Error('no such target'));
      }),
      insert(3, 'c'),
    ]);
    assert.equal(results[0]!.status, 'fulfilled');
    assert.match(String((results[1] as PromiseRejectedResult).reason), /no such target/);
    assert.equal(results[2]!.status, 'fulfilled');
    assert.equal((results[0] as PromiseFulfilledResult<string>).value, (results[2] as PromiseFulfilledResult<string>).value);
    assert.deepEqual(await rows(), [{ id: 1, name: 'a' }, { id: 3, name: 'c' }]);
  });

  it('rolls the group back on any other failure, runs the failed write alone and the others again', async () => {
    const runs = new Map<number, number>();
    const results = await Promise.allSettled([
      insert(1, 'a', runs),
      store.transact(async (trx) => {
        await sql`insert into t (id, name) values (2, 'b')`.execute(trx);
        throw new Error('refused after writing');
      }),
      insert(3, 'c', runs),
    ]);
    assert.equal(results[0]!.status, 'fulfilled');
    assert.match(String((results[1] as PromiseRejectedResult).reason), /refused after writing/);
    assert.equal(results[2]!.status, 'fulfilled');
    assert.deepEqual(await rows(), [{ id: 1, name: 'a' }, { id: 3, name: 'c' }]);
    // Write 1 ran in the group that rolled back and again after it; write 3 never ran in the first group.
    assert.equal(runs.get(1), 2);
    assert.equal(runs.get(3), 1);
  });

  it('commits exactly one of two writes that conflict within a group', async () => {
    const results = await Promise.allSettled([insert(1, 'same'), insert(2, 'same')]);
    const failed = results.filter((result) => result.status === 'rejected');
    assert.equal(failed.length, 1);
    assert.match(String((failed[0] as PromiseRejectedResult).reason), /duplicate key/);
    const stored = await rows();
    assert.equal(stored.length, 1);
    assert.equal(stored[0]!.name, 'same');
  });

  it('fails every write of a group whose commit fails, and runs none of them again', async () => {
    const runs = new Map<number, number>();
    const write = (id: number, ref: number | null) =>
      store.transact(async (trx) => {
        runs.set(id, (runs.get(id) ?? 0) + 1);
        await sql`insert into d (id, ref) values (${id}, ${ref})`.execute(trx);
      });
    // The reference is checked at COMMIT (deferred): the group's commit fails, not a write.
    const results = await Promise.allSettled([write(1, null), write(2, 99)]);
    for (const result of results) {
      assert.equal(result.status, 'rejected');
      assert.match(String((result as PromiseRejectedResult).reason), /foreign key/);
    }
    assert.deepEqual([...runs.values()], [1, 1]);
    assert.equal((await sql<{ n: string }>`select count(*)::text as n from d`.execute(store.db)).rows[0]!.n, '0');
  });

  it('gives way when it waits on a lock past its timeout, and its writes then run alone until the lock is free', async () => {
    await insert(1, 'locked');
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select id from t where id = 1 for update');
      let released = false;
      const writes = Promise.all([
        store.transact(async (trx) => {
          await sql`update t set name = 'changed' where id = 1`.execute(trx);
          return released;
        }),
        insert(2, 'b'),
      ]);
      // Past the group's 200 ms lock timeout: the group has failed and the update waits alone.
      await new Promise((resolve) => setTimeout(resolve, 600));
      released = true;
      await other.query('commit');
      const [updatedAfterRelease] = await writes;
      assert.equal(updatedAfterRelease, true, 'the update ran (again) after the lock was released');
      assert.deepEqual(await rows(), [{ id: 1, name: 'changed' }, { id: 2, name: 'b' }]);
    } finally {
      await other.end();
    }
  });
});

describe('record writes run again after a group rolled back (postgres)', { skip }, () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp('postgres', {
      resources: {
        tags: {
          fields: { label: { type: 'string', required: true, unique: true } },
          permissions: { editor: { read: true, create: true, update: true } },
        },
      },
    });
  });

  after(async () => {
    await app.close();
  });

  it('writes exactly one event for each committed change, and none for the refused one', async () => {
    const editor = await app.as('editor');
    const published: string[] = [];
    app.ctx.records.onCommitted((events) => published.push(...events.map((event) => event.resourceId)));
    const labels = ['a', 'b', 'dup', 'c', 'dup', 'd', 'e'];
    const answers = await Promise.all(
      labels.map((label) => app.request({ method: 'POST', url: '/v1/tags', auth: editor, payload: { label } })),
    );
    const statuses = answers.map((answer) => answer.statusCode).sort();
    assert.deepEqual(statuses, [201, 201, 201, 201, 201, 201, 409]);
    const created = answers.filter((answer) => answer.statusCode === 201).map((answer) => answer.json<{ data: { id: string } }>().data.id);
    const events = await sql<{ resource_id: string; type: string }>`select resource_id, type from svc_events where resource = 'tags'`.execute(app.ctx.store.db);
    assert.deepEqual(events.rows.map((row) => row.resource_id).sort(), [...created].sort());
    assert.ok(events.rows.every((row) => row.type === 'tags.created'));
    // Published at commit (streams): once each, though the writes of the rolled-back group ran twice.
    assert.deepEqual([...published].sort(), [...created].sort());
  });
});
