// The named-statement clients build on pg internals (store/postgres/pg-internals.ts). With the installed
// pg they are used; with a pg whose internals differ, pools get pg's plain client, statements run
// unnamed against a real PostgreSQL, and the store says so in one warning line.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { sql } from 'kysely';
import { openPostgres } from '../../src/store/postgres/open-postgres.ts';
import { choosePoolClient, poolClient } from '../../src/store/postgres/naming-client.ts';
import { loadPgInternals, pgInternalsProblem, type PgInternals } from '../../src/store/postgres/pg-internals.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';

const installed = loadPgInternals(pg);

/** pg's Query with one prototype method taken away. */
function queryWithout(method: string): unknown {
  const Lacking = class extends pg.Query {};
  Object.defineProperty(Lacking.prototype, method, { value: undefined });
  return Lacking;
}

/** pg's Query whose instances lack one field pg sets in its constructor. */
function queryLackingField(field: string): unknown {
  return class extends pg.Query {
    constructor(...args: ConstructorParameters<typeof pg.Query>) {
      super(...args);
      Reflect.deleteProperty(this, field);
    }
  };
}

describe('pg internals', () => {
  it('finds the shape the named-statement clients were built on in the installed pg', () => {
    assert.equal(pgInternalsProblem(installed), undefined);
    assert.equal(poolClient().fallback, undefined);
  });

  it('names what is missing when the shape differs', () => {
    const cases: [Partial<PgInternals>, RegExp][] = [
      [{ Query: queryWithout('prepare') }, /Query has no prepare\(\)/],
      [{ Query: queryWithout('_getRows') }, /Query has no _getRows\(\)/],
      [{ Query: queryLackingField('_result') }, /Query has no _result/],
      [{ Query: undefined }, /no Query class/],
      [{ prepareValue: undefined }, /prepareValue/],
    ];
    for (const [change, reason] of cases) {
      const choice = choosePoolClient({ ...installed, ...change });
      assert.match(choice.fallback ?? '', reason);
      assert.match(choice.fallback ?? '', new RegExp(`^pg ${installed.version.replaceAll('.', '\\.')}: `));
    }
  });
});

describe('pg internals on PostgreSQL', { skip: !process.env.TEST_DATABASE_URL }, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('postgres');
  });
  after(async () => {
    await database.drop();
  });

  /** Runs a parameterised select and an insert through Kysely; answers the statements the one connection prepared. */
  async function runThrough(opened: ReturnType<typeof openPostgres>): Promise<number> {
    const { db, pool } = opened;
    try {
      await sql`create table if not exists t (id bigint primary key, label text)`.execute(db);
      await db.deleteFrom('t').execute();
      for (let i = 1; i <= 3; i++)
        await db
          .insertInto('t')
          .values({ id: i, label: `n${i}` })
          .execute();
      for (let i = 1; i <= 3; i++) {
        const rows = await db.selectFrom('t').select(['id', 'label']).where('id', '=', i).execute();
        assert.deepEqual(rows, [{ id: i, label: `n${i}` }]);
      }
      const prepared = await sql<{ count: number }>`select count(*) as count from pg_prepared_statements`.execute(db);
      return Number(prepared.rows[0]!.count);
    } finally {
      await pool.end();
    }
  }

  it('names statements with the installed pg and warns of nothing', async () => {
    const warnings: string[] = [];
    const prepared = await runThrough(openPostgres(database.url, 1, { warn: (message) => warnings.push(message) }));
    assert.ok(prepared >= 2, `${prepared} prepared statements`);
    assert.deepEqual(warnings, []);
  });

  it('falls back to the plain client with one warning when pg lacks an internal, and still answers', async () => {
    const warnings: string[] = [];
    const client = choosePoolClient({ ...installed, Query: queryWithout('prepare') });
    const prepared = await runThrough(
      openPostgres(database.url, 1, { warn: (message) => warnings.push(message), client }),
    );
    assert.equal(prepared, 0, 'statements run unnamed');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /statements run unnamed.*Query has no prepare\(\)/);
  });
});
