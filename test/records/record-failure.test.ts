// A write the database refuses comes out of the store classified (store/driver-failure.ts) and out of
// the record service as a typed RecordFailure: the rule broken and the field, with no status and no
// pointer, which only http/ adds (the http suites check the answers themselves).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceRegistry } from '../../src/resources/resource-registry.ts';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { applyResourceSchema } from '../../src/cluster/resource-schema.ts';
import { RecordService, type RequestMeta } from '../../src/records/record-service.ts';
import { RecordFailure } from '../../src/records/record-failure.ts';
import { classifyDriverError } from '../../src/store/driver-failure.ts';
import { createOutboxTable } from '../../src/events/outbox.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';

const registry = new ResourceRegistry({
  resources: {
    teams: {
      fields: { name: { type: 'string' } },
      permissions: { writer: { read: true, create: true, update: true, delete: true } },
    },
    notes: {
      fields: {
        text: { type: 'string', unique: true },
        team_id: { type: 'relation', resource: 'teams', onDelete: 'restrict' },
      },
      permissions: { writer: { read: true, create: true, update: true, delete: true } },
    },
  },
});
const META: RequestMeta = {
  principal: { kind: 'key', keyId: 'k1', userId: 'u1', role: 'writer', keyPermissions: null },
};
const MISSING_ID = '0190f0f0-0000-7000-8000-000000000000';

/** What `work` was rejected with. */
async function rejection(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  assert.fail('the work succeeded');
}

for (const dialect of testDialects()) {
  describe(`record failures (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;
    let records: RecordService;

    before(async () => {
      database = await createTestDatabase(dialect);
      store = createStore(database.url);
      await applyResourceSchema(store, registry, { allowDestructive: false });
      await createOutboxTable(store.db, store.dialect);
      records = new RecordService(store, registry);
    });

    after(async () => {
      await store?.close();
      await database?.drop();
    });

    it('classifies a taken unique value by its field and a refused reference, as the driver reported them', async () => {
      const notes = registry.require('notes');
      const row = (text: string, teamId: string | null) => ({
        id: crypto.randomUUID(),
        text,
        team_id: teamId,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      });
      const encoded = (values: Record<string, unknown>) =>
        Object.fromEntries(
          Object.entries(values).map(([name, value]) => [
            name,
            name.endsWith('_at') ? store.dialect.encode('timestamp', value) : value,
          ]),
        );
      await store.db
        .insertInto(notes.table)
        .values(encoded(row('raw', null)))
        .execute();
      const unique = await rejection(
        store.db
          .insertInto(notes.table)
          .values(encoded(row('raw', null)))
          .execute(),
      );
      assert.deepEqual(classifyDriverError(store.dialect, unique), { kind: 'unique', field: 'text' });
      const reference = await rejection(
        store.db
          .insertInto(notes.table)
          .values(encoded(row('other', MISSING_ID)))
          .execute(),
      );
      assert.deepEqual(classifyDriverError(store.dialect, reference), { kind: 'reference' });
      assert.deepEqual(classifyDriverError(store.dialect, new Error('something else')), { kind: 'other' });
    });

    it('raises a taken unique value as a RecordFailure naming the field, with no status or pointer', async () => {
      const notes = registry.require('notes');
      await records.create(notes, META, { text: 'taken' });
      const error = await rejection(records.create(notes, META, { text: 'taken' }));
      assert.ok(error instanceof RecordFailure, String(error));
      assert.equal(error.kind, 'unique');
      assert.equal(error.field, 'text');
      assert.equal(error.code, 'CONFLICT');
      assert.ok(!('status' in error) && !('issues' in error), 'no HTTP shape');
      assert.ok(store.dialect.isUniqueViolation(error.cause), 'the driver error is the cause');
    });
  });
}
