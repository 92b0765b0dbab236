// A batch's set-aside inserts on PostgreSQL (store/postgres/batched-insert-writer.ts): rows of several
// tables in one statement, cut into more only past the parameter limit, with the outbox rows in order
// and the commit signal on every statement that holds some.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { createStore } from '../../src/store/create-store.ts';
import { packStatements } from '../../src/store/postgres/batched-insert-writer.ts';
import { createOutboxTable, EVENTS_TABLE, eventRowOf } from '../../src/events/outbox.ts';
import { createTestDatabase } from '../helpers/test-databases.ts';
import { fakeEvent } from '../helpers/fake-event.ts';
import { statementsDuring } from '../helpers/sent-statements.ts';

const quiet = { warn() {} };
const rows = (n: number, make: (i: number) => Record<string, unknown>) => Array.from({ length: n }, (_, i) => make(i));

describe('batched inserts: packing rows into statements', () => {
  it('keeps every row in order, each statement within the limit, and marks the ones with outbox rows', () => {
    const events = { table: 'events', rows: rows(5, (i) => ({ id: `e${i}`, n: i })) };
    const notes = { table: 'notes', rows: rows(4, (i) => ({ id: `n${i}`, a: i, b: i })) };
    const statements = packStatements(events, [notes], 7);
    for (const statement of statements) {
      const used = statement.parts.reduce((sum, part) => sum + part.rows.length * Object.keys(part.rows[0]!).length, 0);
      assert.ok(used <= 7, `${used} parameters`);
    }
    const flat = (table: string) =>
      statements.flatMap((statement) =>
        statement.parts.filter((part) => part.table === table).flatMap((part) => part.rows),
      );
    assert.deepEqual(flat('events'), events.rows);
    assert.deepEqual(flat('notes'), notes.rows);
    assert.deepEqual(
      statements.map((statement) => statement.signalled),
      statements.map((statement) => statement.parts[0]!.table === 'events'),
    );
    assert.equal(statements[0]!.signalled, true);
    // Within the limit, one statement for everything.
    assert.equal(packStatements(events, [notes], 1000).length, 1);
  });

  it('gives a row wider than the limit a statement of its own rather than none', () => {
    const wide = { table: 'wide', rows: rows(3, (i) => ({ id: `w${i}`, a: 1, b: 2, c: 3 })) };
    const statements = packStatements({ table: 'events', rows: [] }, [wide], 2);
    assert.deepEqual(
      statements.map((statement) => statement.parts.map((part) => part.rows.length)),
      [[1], [1], [1]],
    );
    assert.equal(
      statements.some((statement) => statement.signalled),
      false,
    );
  });
});

describe('batched inserts on PostgreSQL', {
  skip: process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set',
}, () => {
  it('inserts the rows in one statement, or in several past the limit, with the outbox in order and signalled', async () => {
    const database = await createTestDatabase('postgres');
    const store = createStore(database.url);
    const reader = createStore(database.url);
    try {
      await createOutboxTable(store.db, store.dialect);
      await sql`create table notes (id text primary key, n integer)`.execute(store.db);
      const sending = store.commitSignal.listen(quiet);
      await sending?.close();
      const listener = reader.commitSignal.listen(quiet)!;
      const hints: string[] = [];
      await listener.start((hint) => {
        if (hint !== undefined) hints.push(hint);
      });
      const returning = () => store.commitSignal.returning();
      const insertAll = async (limit: number, label: string) => {
        const { PostgresBatchedInsertWriter } = await import('../../src/store/postgres/batched-insert-writer.ts');
        const writer = new PostgresBatchedInsertWriter(store.db, store.executeIn, returning, limit);
        const events = rows(20, () => eventRowOf(fakeEvent('notes')));
        const notes = rows(20, (i) => ({ id: `${label}-${i}`, n: i }));
        const sent = await statementsDuring(() =>
          store.transact((trx) =>
            writer.insert(trx, { table: EVENTS_TABLE, rows: events }, [{ table: 'notes', rows: notes }]),
          ),
        );
        return { events, sent: sent.filter(({ text }) => /insert into/i.test(text)) };
      };
      const together = await insertAll(65_535, 'one');
      assert.equal(together.sent.length, 1);
      // 20 outbox rows of 6 columns (120 parameters) and 20 rows of 2 (40) in statements of at most 30:
      // five outbox rows to a statement, then fifteen notes, then the last five.
      const apart = await insertAll(30, 'many');
      assert.equal(apart.sent.length, 6);
      const stored = await store.db.selectFrom(EVENTS_TABLE).select('id').orderBy('seq').execute();
      assert.deepEqual(
        stored.map((row) => row.id),
        [...together.events, ...apart.events].map((row) => row.id),
      );
      const notes = await store.db.selectFrom('notes').select(['id']).execute();
      assert.equal(notes.length, 40);
      const deadline = Date.now() + 3000;
      while (hints.length < 40 && Date.now() < deadline) await sleep(10);
      assert.equal(hints.length, 40, 'every outbox row is signalled at commit');
      await listener.close();
    } finally {
      await store.close();
      await reader.close();
      await database.drop();
    }
  });
});
