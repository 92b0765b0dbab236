// Inserts and updates compiled once per table and column list must write exactly what Kysely would
// have written for each call's own values.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createStore } from '../../src/store/create-store.ts';
import { insertStatement, insertTogetherStatement, updateByIdStatement } from '../../src/store/write-statements.ts';
import {
  conditionalChangeStatement,
  conditionalChangesStatement,
} from '../../src/store/postgres/conditional-change-statements.ts';
import type { ChangeWithRows, ConditionalChange } from '../../src/store/one-statement-writes.ts';
import { appendEvent, createOutboxTable, EVENTS_TABLE } from '../../src/events/outbox.ts';
import { createTestDatabase, testDialects } from '../helpers/test-databases.ts';
import { fakeEvent } from '../helpers/fake-event.ts';

describe('compiled write statements', () => {
  it('reuses one SQL text per column list and binds each call its own values', async () => {
    const store = createStore('sqlite::memory:');
    try {
      const { db } = store;
      await sql`create table t (id text primary key, name text, n integer default 7)`.execute(db);
      const first = insertStatement(db, 't', [{ id: 'a', name: 'one', n: 1 }], ['id', 'name', 'n']);
      const second = insertStatement(db, 't', [{ id: 'b', name: 'two', n: 2 }], ['id', 'name', 'n']);
      assert.equal(second.sql, first.sql);
      assert.deepEqual(second.parameters, ['b', 'two', 2]);
      assert.deepEqual((await db.executeQuery(first)).rows, [{ id: 'a', name: 'one', n: 1 }]);
      assert.deepEqual((await db.executeQuery(second)).rows, [{ id: 'b', name: 'two', n: 2 }]);

      // Another column order is another statement; an undefined value leaves its column to the default.
      const reordered = insertStatement(db, 't', [{ name: 'three', id: 'c' }]);
      assert.notEqual(reordered.sql, first.sql);
      await db.executeQuery(insertStatement(db, 't', [{ id: 'd', name: 'four', n: undefined }]));
      await db.executeQuery(insertStatement(db, 't', [{ id: 'e', name: 'five', n: undefined }]));
      await db.executeQuery(reordered);

      // Several rows, and rows of differing columns (compiled as they come).
      await db.executeQuery(
        insertStatement(db, 't', [
          { id: 'f', name: 'six', n: 6 },
          { id: 'g', name: 'seven', n: 8 },
        ]),
      );
      const mixed = [
        { id: 'h', name: 'eight', n: undefined },
        { id: 'i', name: 'nine', n: 9 },
      ];
      const asKysely = db.insertInto('t').values(mixed).compile();
      const compiled = insertStatement(db, 't', mixed);
      assert.deepEqual([compiled.sql, compiled.parameters], [asKysely.sql, asKysely.parameters]);

      const updated = updateByIdStatement(db, 't', { name: 'ONE', n: 10 }, 'a', ['id', 'name', 'n']);
      assert.deepEqual((await db.executeQuery(updated)).rows, [{ id: 'a', name: 'ONE', n: 10 }]);
      const again = updateByIdStatement(db, 't', { name: 'TWO', n: 20 }, 'b', ['id', 'name', 'n']);
      assert.equal(again.sql, updated.sql);
      assert.deepEqual((await db.executeQuery(again)).rows, [{ id: 'b', name: 'TWO', n: 20 }]);
      await db.executeQuery(updateByIdStatement(db, 't', { name: 'SIX', n: undefined }, 'f'));

      const rows = await sql<{ id: string; name: string; n: number }>`select id, name, n from t order by id`.execute(
        db,
      );
      assert.deepEqual(rows.rows, [
        { id: 'a', name: 'ONE', n: 10 },
        { id: 'b', name: 'TWO', n: 20 },
        { id: 'c', name: 'three', n: 7 },
        { id: 'd', name: 'four', n: 7 },
        { id: 'e', name: 'five', n: 7 },
        { id: 'f', name: 'SIX', n: 6 },
        { id: 'g', name: 'seven', n: 8 },
      ]);
    } finally {
      await store.close();
    }
  });

  it('runs statements inside a record write at once, and outside one through Kysely', async () => {
    const store = createStore('sqlite::memory:');
    try {
      const { db } = store;
      await sql`create table t (id text primary key, name text)`.execute(db);
      const inside = await store.transact(async (trx) => {
        const rows = store.executeIn(trx, insertStatement(db, 't', [{ id: 'a', name: 'one' }], ['id']));
        assert.ok(Array.isArray(rows), 'answered synchronously inside the transaction');
        return rows;
      });
      assert.deepEqual(inside, [{ id: 'a' }]);
      const outside = store.executeIn(db, insertStatement(db, 't', [{ id: 'b', name: 'two' }], ['id']));
      assert.ok(outside instanceof Promise, 'the database itself goes through Kysely');
      assert.deepEqual(await outside, [{ id: 'b' }]);
    } finally {
      await store.close();
    }
  });
});

describe('rows written with an event', () => {
  it("compiles one statement for several tables on PostgreSQL, reused per shape with each call's values", () => {
    // Compiled only: the text is what PostgreSQL runs (data-modifying WITH parts, then the last insert).
    const store = createStore('sqlite::memory:');
    try {
      const parts = (n: number) => [
        { table: 'a', rows: [{ id: `a${n}`, v: n }] },
        {
          table: 'b',
          rows: [
            { id: `b${n}`, a_id: `a${n}` },
            { id: `c${n}`, a_id: `a${n}` },
          ],
        },
        { table: 'c', rows: [{ id: `d${n}` }] },
      ];
      const first = insertTogetherStatement(store.db, parts(1), { sql: 'a.v + 1' });
      const second = insertTogetherStatement(store.db, parts(2), { sql: 'a.v + 1' });
      assert.match(
        first.sql,
        /^with "svc_part_0" as \(insert into "a" .* returning a\.v \+ 1 as "returned"\), "svc_part_1" as \(insert into "b" .*\) insert into "c" /,
      );
      assert.equal(second.sql, first.sql);
      assert.deepEqual(first.parameters, ['a1', 1, 'b1', 'a1', 'c1', 'a1', 'd1']);
      assert.deepEqual(second.parameters, ['a2', 2, 'b2', 'a2', 'c2', 'a2', 'd2']);
      assert.notEqual(insertTogetherStatement(store.db, parts(3), undefined).sql, first.sql);
    } finally {
      void store.close();
    }
  });

  it("compiles a conditional change once per shape, its parts reading the changed row, with each call's values in order", () => {
    const store = createStore('sqlite::memory:');
    try {
      const parts = (n: number) => [
        { table: 'e', rows: [{ id: `e${n}`, v: n }] },
        { table: 'd', rows: [{ id: `d${n}` }, { id: `f${n}` }] },
      ];
      const kinds = (n: number): ConditionalChange[] => [
        {
          kind: 'insert',
          table: 't',
          row: { id: `t${n}`, ref: `r${n}` },
          requires: [{ table: 'r', id: `r${n}`, live: true }],
        },
        {
          kind: 'update',
          table: 't',
          id: `t${n}`,
          version: `${n}`,
          values: { name: `n${n}` },
          requires: [{ table: 'r', id: `r${n}`, live: false }],
        },
        { kind: 'delete', table: 't', id: `t${n}`, version: `${n}` },
      ];
      const expected = [
        (n: number) => [`t${n}`, `r${n}`, `r${n}`, `e${n}`, n, `d${n}`, `f${n}`],
        (n: number) => [`n${n}`, `t${n}`, `${n}`, `r${n}`, `e${n}`, n, `d${n}`, `f${n}`],
        (n: number) => [`t${n}`, `${n}`, `e${n}`, n, `d${n}`, `f${n}`],
      ];
      kinds(1).forEach((change, i) => {
        const first = conditionalChangeStatement(store.db, change, parts(1), { sql: 'seq' }, ['id']);
        const second = conditionalChangeStatement(store.db, kinds(2)[i]!, parts(2), { sql: 'seq' }, ['id']);
        assert.equal(second.sql, first.sql, change.kind);
        assert.deepEqual(first.parameters, expected[i]!(1), change.kind);
        assert.deepEqual(second.parameters, expected[i]!(2), change.kind);
        assert.match(first.sql, /^with "svc_target_0" as \((insert into|update|delete from) "t" /);
        // Every part selects its values from the changed row: none is written when it was not changed.
        assert.equal(first.sql.match(/select .*? from "svc_target_0"/g)?.length, 4, first.sql);
        assert.match(first.sql, /\) select "id" from "svc_target_0"$/);
      });
      assert.match(
        conditionalChangeStatement(store.db, kinds(1)[0]!, parts(1), undefined, ['id']).sql,
        /where exists \(select 1 from "r" where "id" = \? and "deleted_at" is null\)/,
      );
      assert.match(
        conditionalChangeStatement(store.db, kinds(1)[1]!, parts(1), undefined, ['id']).sql,
        /where "id" = \? and "xmin" = \? and exists \(select 1 from "r" where "id" = \?\)/,
      );
    } finally {
      void store.close();
    }
  });

  it('compiles several conditional changes into one statement, each part reading its own change, answered in order', () => {
    const store = createStore('sqlite::memory:');
    try {
      const change = (n: number): ChangeWithRows => ({
        change: { kind: 'update', table: 't', id: `t${n}`, version: `${n}`, values: { name: `n${n}` }, requires: [] },
        parts: [{ table: 'e', rows: [{ id: `e${n}` }] }],
      });
      const first = conditionalChangesStatement(store.db, [change(1), change(2)], { sql: 'seq' }, ['id']);
      const second = conditionalChangesStatement(store.db, [change(3), change(4)], { sql: 'seq' }, ['id']);
      assert.equal(second.sql, first.sql);
      assert.deepEqual(second.parameters, ['n3', 't3', '3', 'e3', 'n4', 't4', '4', 'e4']);
      assert.match(
        first.sql,
        /^with "svc_target_0" as \(update "t" .*\), "svc_part_0_0" as \(insert into "e" .* from "svc_target_0" returning seq as "returned"\), "svc_target_1" as \(update "t" .*\), "svc_part_1_0" as \(insert into "e" .* from "svc_target_1" returning seq as "returned"\) select "id" from "svc_target_0" union all select "id" from "svc_target_1"$/,
      );
      assert.equal(
        conditionalChangeStatement(store.db, change(5).change, change(5).parts, { sql: 'seq' }, ['id']).sql.includes(
          'svc_target_1',
        ),
        false,
      );
    } finally {
      void store.close();
    }
  });

  for (const dialect of testDialects()) {
    it(`writes the event and the rows along with it, or none of them (${dialect})`, async () => {
      const database = await createTestDatabase(dialect);
      const store = createStore(database.url);
      try {
        await createOutboxTable(store.db, store.dialect);
        await sql`create table extra (id text primary key, event_id text not null)`.execute(store.db);
        const event = fakeEvent('notes');
        const alongside = [
          {
            table: 'extra',
            rows: [
              { id: 'x1', event_id: event.id },
              { id: 'x2', event_id: event.id },
            ],
          },
        ];
        // Inserts signal their commit where the database can (no one listens here; the listener is not started).
        store.commitSignal.listen({ warn() {} });
        await store.transact((trx) => appendEvent(store, trx, event, alongside));
        const events = await store.db.selectFrom(EVENTS_TABLE).select(['id']).execute();
        assert.deepEqual(
          events.map((row) => row.id),
          [event.id],
        );
        const extras = await sql<{ id: string; event_id: string }>`select id, event_id from extra order by id`.execute(
          store.db,
        );
        assert.deepEqual(extras.rows, [
          { id: 'x1', event_id: event.id },
          { id: 'x2', event_id: event.id },
        ]);

        // A row that cannot be written (duplicate key) takes the event with it.
        const second = fakeEvent('notes');
        await assert.rejects(
          store.transact((trx) =>
            appendEvent(store, trx, second, [{ table: 'extra', rows: [{ id: 'x1', event_id: second.id }] }]),
          ),
        );
        const after = await store.db.selectFrom(EVENTS_TABLE).select(['id']).execute();
        assert.deepEqual(
          after.map((row) => row.id),
          [event.id],
        );
      } finally {
        await store.close();
        await database.drop();
      }
    });
  }
});
