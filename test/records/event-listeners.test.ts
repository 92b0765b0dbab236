// A write's listeners (the stream hub, the webhook worker) hear of its events after it commits or rolls
// back; one listener's failure is logged and neither changes the write's answer nor keeps the others
// from hearing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceRegistry } from '../../src/resources/resource-registry.ts';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { applyResourceSchema } from '../../src/cluster/resource-schema.ts';
import { RecordService, type RequestMeta } from '../../src/records/record-service.ts';
import { createOutboxTable, EVENTS_TABLE } from '../../src/events/outbox.ts';
import type { RecordEvent } from '../../src/model/record-event.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';

const registry = new ResourceRegistry({
  resources: {
    notes: {
      fields: { text: { type: 'string', unique: true } },
      permissions: { writer: { read: true, create: true, update: true, delete: true } },
    },
  },
});
const META: RequestMeta = {
  principal: { kind: 'key', keyId: 'k1', userId: 'u1', role: 'writer', keyPermissions: null },
};

for (const dialect of testDialects()) {
  describe(`event listeners (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;
    let records: RecordService;
    const logged: { details: { err?: unknown; eventIds?: string[] }; message: string }[] = [];
    const heard: RecordEvent[][] = [];
    const discarded: RecordEvent[][] = [];

    before(async () => {
      database = await createTestDatabase(dialect);
      store = createStore(database.url);
      await applyResourceSchema(store, registry, { allowDestructive: false });
      await createOutboxTable(store.db, store.dialect);
      records = new RecordService(store, registry, { error: (details, message) => logged.push({ details, message }) });
      records.onCommitted(() => {
        throw new Error('the first listener fails');
      });
      records.onCommitted((events) => heard.push(events));
      records.onDiscarded(() => {
        throw new Error('a discard listener fails');
      });
      records.onDiscarded((events) => discarded.push(events));
    });

    after(async () => {
      await store?.close();
      await database?.drop();
    });

    it('answers a committed write and tells every listener when one of them throws', async () => {
      const notes = registry.require('notes');
      const created = await records.create(notes, META, { text: 'kept' });
      assert.equal(created.record.text, 'kept');
      assert.equal(heard.length, 1, 'the listener after the failing one heard of the event');
      assert.equal(heard[0]![0]!.resourceId, created.record.id);
      assert.equal(logged.length, 1);
      assert.equal(logged[0]!.message, 'a listener for committed events failed');
      assert.match(String(logged[0]!.details.err), /the first listener fails/);
      assert.deepEqual(logged[0]!.details.eventIds, [heard[0]![0]!.id]);

      const patched = await records.patch(notes, META, String(created.record.id), { text: 'changed' });
      assert.equal(patched.record.text, 'changed');
      assert.equal(heard.length, 2);
      const stored = await store.db
        .selectFrom(EVENTS_TABLE)
        .select('id')
        .where('resource_id', '=', String(created.record.id))
        .execute();
      assert.equal(stored.length, 2);
    });

    it('discards the event of a write that fails after its row hooks ran, so what they set aside goes', async () => {
      // A second service, so that its written-event hook (which sends every write through the
      // transaction path, on PostgreSQL too) does not change how the other tests write.
      const service = new RecordService(store, registry, { error() {} });
      const setAside: string[] = [];
      const gone: string[] = [];
      const committed: string[] = [];
      // What the webhook queue hook does when it leases attempts: something held per event.
      service.onEventRows((event) => {
        setAside.push(event.id);
        return undefined;
      });
      service.onEventWritten(async (_trx, event) => {
        if (event.data.new?.text === 'explode') throw new Error('a later step of the write failed');
      });
      service.onDiscarded((events) => gone.push(...events.map((event) => event.id)));
      service.onCommitted((events) => committed.push(...events.map((event) => event.id)));
      const notes = registry.require('notes');

      await assert.rejects(service.create(notes, META, { text: 'explode' }));
      assert.equal(setAside.length, 1);
      assert.deepEqual(gone, setAside, 'the failed write discards the event its row hooks saw');
      assert.deepEqual(committed, []);

      const kept = await service.create(notes, META, { text: 'kept by the second service' });
      assert.equal(setAside.length, 2);
      assert.deepEqual(committed, [setAside[1]], 'a committed write reports its event, and does not discard it');
      assert.deepEqual(gone, [setAside[0]]);
      const patched = service.patch(notes, META, String(kept.record.id), { text: 'explode' });
      await assert.rejects(patched);
      assert.deepEqual(
        gone,
        [setAside[0], setAside[2]],
        'an update that fails after its row hooks ran is discarded too',
      );
    });

    it('answers a failed write with its own error when a discard listener throws', async () => {
      const notes = registry.require('notes');
      await records.create(notes, META, { text: 'taken' });
      logged.length = 0;
      await assert.rejects(
        records.create(notes, META, { text: 'taken' }),
        (error: Error & { code?: string }) => error.code === 'CONFLICT',
      );
      if (dialect === 'postgres') {
        // The one-statement create builds its event first: it is discarded, and every listener hears.
        assert.equal(discarded.length, 1);
        assert.equal(logged[0]?.message, 'a listener for discarded events failed');
      }
    });
  });
}
