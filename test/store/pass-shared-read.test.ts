// A read shared by the callers of one event-loop pass: one read per key per pass, sent after the pass,
// never joined by a later pass. On PostgreSQL, the change mark a cached list checks: shared, and still
// newer than every commit made before a caller asked.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextPass } from 'node:timers/promises';
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { PassSharedRead } from '../../src/store/postgres/pass-shared-read.ts';
import { postgresDialect } from '../../src/store/postgres/postgres-dialect.ts';
import type { DynamicSchema } from '../../src/store/store-dialect.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';

describe('PassSharedRead', () => {
  it('reads once per key for the callers of one pass, after the pass, and again in the next', async () => {
    const reads: string[] = [];
    let asked = 0;
    const shared = new PassSharedRead(async (key: string) => {
      reads.push(`${key}@${asked}`);
      return `${key}:${reads.length}`;
    });
    const first = [shared.get('a'), shared.get('a'), shared.get('b')];
    asked = 3;
    const last = shared.get('a');
    assert.deepEqual(reads, [], 'nothing is read while the pass runs');
    assert.deepEqual(await Promise.all([...first, last]), ['a:1', 'a:1', 'b:2', 'a:1']);
    assert.deepEqual(reads, ['a@3', 'b@3'], 'read once per key, after every caller of the pass asked');
    assert.equal(await shared.get('a'), 'a:3', 'a later pass reads again');
  });

  it('gives every caller of the pass the read failure', async () => {
    const shared = new PassSharedRead(async (key: string) => {
      throw new Error(`cannot read ${key}`);
    });
    const results = await Promise.allSettled([shared.get('x'), shared.get('x')]);
    for (const result of results) {
      assert.equal(result.status, 'rejected');
      assert.match(String((result as PromiseRejectedResult).reason), /cannot read x/);
    }
  });

  it('never lets a caller join a read that is already on its way', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reads = 0;
    const shared = new PassSharedRead(async () => {
      reads++;
      const mine = reads;
      await gate;
      return mine;
    });
    const early = shared.get('k');
    await nextPass();
    await nextPass();
    assert.equal(reads, 1, 'the first read was sent');
    const late = shared.get('k');
    release();
    assert.deepEqual(await Promise.all([early, late]), [1, 2]);
  });
});

describe('change marks on PostgreSQL', { skip: !process.env.TEST_DATABASE_URL }, () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let db: Kysely<DynamicSchema>;
  const marks: CompiledQuery[] = [];
  before(async () => {
    database = await createTestDatabase('postgres');
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    db = new Kysely<DynamicSchema>({
      dialect: new PostgresDialect({ pool }),
      log: (event) => {
        if (event.query.sql.includes('pg_current_snapshot')) marks.push(event.query);
      },
    });
    await pool.query('create table t (id int primary key)');
  });
  after(async () => {
    await db.destroy();
    await database.drop();
  });

  it('reads one mark for the requests of one pass', async () => {
    marks.length = 0;
    const read = await Promise.all(Array.from({ length: 8 }, () => postgresDialect.changeMark(db)));
    assert.equal(new Set(read).size, 1);
    assert.equal(marks.length, 1, 'one query for eight callers');
  });

  it('changes the mark for a commit made on another connection before the caller asked', async () => {
    const before = await postgresDialect.changeMark(db);
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await other.query('insert into t values (1)');
    } finally {
      await other.end();
    }
    const after = await postgresDialect.changeMark(db);
    assert.notEqual(after, before);
    // A caller in the pass right after the commit, among others: it too sees the commit, and they share
    // one read. (The mark may have moved on since `after`: the snapshot is the whole server's, and other
    // test files commit on it meanwhile.)
    const [again, ...rest] = await Promise.all([
      postgresDialect.changeMark(db),
      postgresDialect.changeMark(db),
      postgresDialect.changeMark(db),
    ]);
    assert.notEqual(again, before);
    for (const mark of rest) assert.equal(mark, again);
  });

  it('reads a mark inside a transaction on the transaction, apart from the pool', async () => {
    marks.length = 0;
    await db.transaction().execute(async (trx) => {
      const [inside, outside] = await Promise.all([postgresDialect.changeMark(trx), postgresDialect.changeMark(db)]);
      assert.equal(typeof inside, 'string');
      assert.equal(typeof outside, 'string');
    });
    assert.equal(marks.length, 2, 'one read for the transaction, one for the pool');
  });
});
