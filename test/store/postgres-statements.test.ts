// Named statements on PostgreSQL: described once per connection, yet every execution returns the rows
// and values pg alone would (parsers reused, timestamptz parsed by svc's fast path).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openPostgres } from '../../src/store/postgres/open-postgres.ts';
import type { NamingClient } from '../../src/store/postgres/naming-client.ts';
import { timestamptzParser } from '../../src/store/postgres/parse-timestamptz.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';

const pgParseDate = pg.types.getTypeParser(1184, 'text') as (text: string) => unknown;

describe('timestamptz parsing', () => {
  // The parser registered by open-postgres wraps pg's; the original is what every result must match.
  const reference = (text: string): unknown => {
    const value = pgParseDate(text);
    return value instanceof Date ? value.getTime() : value;
  };
  const parse = timestamptzParser((text) => `fallback:${text}`);
  const same = timestamptzParser(pgParseDate);

  it('makes the Date pg makes for every fraction length', () => {
    const samples = [
      '2026-11-24 10:11:12+00',
      '2026-01-02 03:04:05.009+00',
      '1999-12-31 23:59:59.999999+00',
      '2026-11-24 10:11:12.1+00',
      '0100-03-01 00:00:00.5+00',
    ];
    for (let ms = 0; ms < 1000; ms++) samples.push(`2026-02-28 23:59:59.${String(ms).padStart(3, '0')}+00`);
    for (let us = 0; us < 1_000_000; us += 997) samples.push(`2024-02-29 12:00:00.${String(us).padStart(6, '0')}+00`);
    for (const text of samples) {
      const value = same(text);
      assert.ok(value instanceof Date, text);
      assert.equal(value.getTime(), reference(text), text);
    }
  });

  it('leaves every other shape to pg', () => {
    for (const text of [
      '0099-01-01 00:00:00+00',
      '2026-01-01 00:00:00+01',
      '2026-01-01 00:00:00+05:30',
      '2026-01-01 00:00:00+00 BC',
      'infinity',
      '-infinity',
      '12026-01-01 00:00:00+00',
      '2026-01-01 00:00:00.+00',
      '2026-01-01 0a:00:00+00',
    ]) {
      assert.equal(parse(text), `fallback:${text}`, text);
    }
  });
});

describe('named statements on PostgreSQL', { skip: !process.env.TEST_DATABASE_URL }, () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  before(async () => {
    database = await createTestDatabase('postgres');
    const opened = openPostgres(database.url, 1);
    pool = opened.pool;
    await pool.query(`create table t (id bigint primary key, at timestamptz, label text, data jsonb)`);
    await pool.query(
      `insert into t values (1, '2026-11-24T10:11:12.345Z', 'one', '{"a":1}'), (2, null, null, '[1,2]')`,
    );
  });
  after(async () => {
    await pool.end();
    await database.drop();
  });

  it('returns the same rows on every execution, after the first has described the statement', async () => {
    const client = (await pool.connect()) as pg.PoolClient & NamingClient;
    try {
      const text = 'select id, at, label, data from t where id = $1';
      for (let i = 0; i < 3; i++) {
        const one = await client.query(text, [1]);
        assert.deepEqual(one.rows, [{ id: 1, at: new Date('2026-11-24T10:11:12.345Z'), label: 'one', data: { a: 1 } }]);
        assert.deepEqual(
          one.fields.map((f) => f.name),
          ['id', 'at', 'label', 'data'],
        );
        const two = await client.query(text, [2]);
        assert.deepEqual(two.rows, [{ id: 2, at: null, label: null, data: [1, 2] }]);
        const none = await client.query(text, [3]);
        assert.deepEqual(none.rows, []);
      }
      assert.equal(client.descriptions.size, 1);
    } finally {
      client.release();
    }
  });

  it('fails one execution whose value cannot be sent and keeps the connection usable', async () => {
    const client = await pool.connect();
    try {
      const text = 'select id, label from t where id = $1';
      assert.deepEqual((await client.query(text, [1])).rows, [{ id: 1, label: 'one' }]);
      const unsendable = {
        toPostgres: () => {
          throw new Error('cannot send');
        },
      };
      await assert.rejects(client.query(text, [unsendable]), /cannot send/);
      assert.deepEqual((await client.query(text, [2])).rows, [{ id: 2, label: null }]);
    } finally {
      client.release();
    }
  });

  it('answers statements without rows (no description) and server errors as before', async () => {
    const client = await pool.connect();
    try {
      for (let i = 0; i < 2; i++) {
        const updated = await client.query('update t set label = $1 where id = $2', ['two', 2]);
        assert.equal(updated.rowCount, 1);
        assert.deepEqual(updated.rows, []);
      }
      const text = 'select id from t where id = $1::bigint';
      await client.query(text, [1]);
      await assert.rejects(
        client.query(text, ['not a number']),
        (error: Error & { code?: string }) => error.code === '22P02',
      );
      assert.deepEqual((await client.query(text, [1])).rows, [{ id: 1 }]);
    } finally {
      client.release();
    }
  });
});
