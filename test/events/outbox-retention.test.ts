// Outbox retention (`retention.events`): events go by age and by count, in bounded batches, never while
// inside their resource's replay window nor while younger than a minute; nodes may prune side by side.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { appendEvent, createOutboxTable, EVENTS_TABLE } from '../../src/events/outbox.ts';
import { countOutbox, pruneOutbox, type PruneOptions } from '../../src/events/outbox-pruner.ts';
import { replayFromOutbox } from '../../src/events/outbox-replay.ts';
import { deleteInBatches } from '../../src/store/delete-in-batches.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { fakeEvent } from '../helpers/fake-event.ts';

const NOW = Date.parse('2030-01-01T00:00:00.000Z');
const HOUR = 3_600_000;
const ago = (ms: number) => new Date(NOW - ms).toISOString();

for (const dialect of testDialects()) {
  describe(`outbox retention by age and count (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;

    /** Appends `count` events of `resource` created `age` ms before NOW; returns their ids, oldest first. */
    async function append(resource: string, count: number, age: number): Promise<string[]> {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const event = fakeEvent(resource, ago(age));
        await appendEvent(store, store.db, event);
        ids.push(event.id);
      }
      return ids;
    }

    async function remainingIds(resource: string): Promise<string[]> {
      const rows = await store.db
        .selectFrom(EVENTS_TABLE)
        .select('id')
        .where('resource', '=', resource)
        .orderBy('seq')
        .execute();
      return rows.map((row) => String(row.id));
    }

    const prune = (options: Partial<PruneOptions>) =>
      pruneOutbox(store.db, {
        resources: ['notes', 'tasks'],
        replayWindow: 2,
        maxAgeMs: 24 * HOUR,
        now: NOW,
        ...options,
      });

    before(async () => {
      database = await createTestDatabase(dialect);
      store = createStore(database.url);
      await createOutboxTable(store.db, store.dialect);
    });

    beforeEach(async () => {
      await store.db.deleteFrom(EVENTS_TABLE).execute();
    });

    after(async () => {
      await store?.close();
      await database?.drop();
    });

    it('deletes events older than maxAgeMs outside the replay window and keeps younger ones', async () => {
      const old = await append('notes', 4, 2 * HOUR);
      const recent = await append('notes', 3, 10 * 60_000);
      const deleted = await prune({ maxAgeMs: HOUR });
      assert.equal(deleted, 4);
      assert.deepEqual(await remainingIds('notes'), recent, `the 4 old ones (${old.length}) went, the 3 recent stayed`);
    });

    it('deletes the oldest events beyond maxCount, counted over the whole outbox, except each resource’s window', async () => {
      const notes = await append('notes', 6, 2 * HOUR);
      const tasks = await append('tasks', 4, 2 * HOUR);
      // The newest 5 are tasks 1-4 and notes 6; notes 1-5 are beyond the count, notes 5-6 are notes' window.
      const deleted = await prune({ maxCount: 5 });
      assert.equal(deleted, 4);
      assert.deepEqual(await remainingIds('notes'), notes.slice(4));
      assert.deepEqual(await remainingIds('tasks'), tasks);
      assert.equal(await countOutbox(store.db), 6, 'the windows win over the count');
    });

    it('keeps the replay window replayable whatever the age and count say', async () => {
      await append('notes', 5, 48 * HOUR);
      const deleted = await prune({ replayWindow: 3, maxAgeMs: HOUR, maxCount: 0 });
      assert.equal(deleted, 2);
      const kept = await remainingIds('notes');
      assert.equal(kept.length, 3);
      const replayed = await replayFromOutbox(store.db, 'notes', kept[0]!, 3);
      assert.deepEqual(
        replayed?.map(({ event }) => event.id),
        kept.slice(1),
        'Last-Event-ID of the oldest kept event still resumes',
      );
    });

    it('never deletes an event younger than a minute, even beyond the count', async () => {
      const old = await append('gone', 2, 2 * 60_000);
      const young = await append('gone', 3, 10_000);
      const deleted = await prune({ maxCount: 0 });
      assert.equal(deleted, 2, `only the two older than a minute (${old.length})`);
      assert.deepEqual(await remainingIds('gone'), young);
    });

    it('reads only the old prefix of the outbox: an event out of step with the ones ahead of it waits for them', async () => {
      await append('gone', 2, 2 * HOUR);
      const recent = await append('gone', 2, 10 * 60_000);
      // Older than the events ahead of it (svc appends events as it makes them; clocks of nodes differ).
      const straggler = await append('gone', 1, 3 * HOUR);
      assert.equal(await prune({ maxAgeMs: HOUR }), 2, 'the old prefix, not the straggler past it');
      assert.deepEqual(await remainingIds('gone'), [...recent, ...straggler]);
      assert.equal(
        await prune({ maxAgeMs: HOUR, now: NOW + HOUR }),
        3,
        'once the events ahead of it are old too, it goes with them',
      );
    });

    it('has no window for a resource that is no longer configured', async () => {
      await append('gone', 3, 2 * HOUR);
      await append('tasks', 3, 2 * HOUR);
      assert.equal(await prune({ maxAgeMs: HOUR }), 4);
      assert.equal(await countOutbox(store.db, 'gone'), 0);
      assert.equal(await countOutbox(store.db, 'tasks'), 2);
    });

    it('deletes in batches until nothing is left', async () => {
      await append('gone', 10, 2 * HOUR);
      assert.equal(await prune({ maxAgeMs: HOUR, batchSize: 3 }), 10);
      assert.equal(await countOutbox(store.db), 0);
    });

    it('ends a pass after the current batch once stopped (shutdown)', async () => {
      await append('gone', 10, 2 * HOUR);
      const deleted = await deleteInBatches(store.db, {
        table: EVENTS_TABLE,
        key: 'seq',
        where: (eb) => eb('resource', '=', 'gone'),
        batchSize: 3,
        skipLocked: store.dialect.supportsSkipLocked,
        stopped: () => true,
      });
      assert.equal(deleted, 3);
      assert.equal(await countOutbox(store.db), 7);
    });

    it('lets two nodes prune the same backlog side by side without error or double count', async () => {
      await store.db
        .insertInto(EVENTS_TABLE)
        .values(
          Array.from({ length: 400 }, () => {
            const event = fakeEvent('gone', ago(2 * HOUR));
            return {
              id: event.id,
              type: event.type,
              resource: 'gone',
              resource_id: event.resourceId,
              payload: JSON.stringify(event),
              created_at: event.createdAt,
            };
          }),
        )
        .execute();
      const other = createStore(database.url);
      try {
        const options = { resources: ['notes'], replayWindow: 2, maxAgeMs: HOUR, now: NOW, batchSize: 15 };
        const [a, b] = await Promise.all([
          pruneOutbox(store.db, { ...options, skipLocked: store.dialect.supportsSkipLocked }),
          pruneOutbox(other.db, { ...options, skipLocked: other.dialect.supportsSkipLocked }),
        ]);
        // A node that met the other's locked rows ends its pass early; the next pass takes the rest.
        const rest = await pruneOutbox(store.db, options);
        assert.equal(a + b + rest, 400);
        assert.equal(await countOutbox(store.db), 0);
      } finally {
        await other.close();
      }
    });
  });
}
