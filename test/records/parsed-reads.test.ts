// The record service reads with queries http/ has parsed (http/routes/read-queries.ts): a ListQuery and a
// compound query, never the query string; a query string reaches it only through the parser.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceRegistry } from '../../src/resources/resource-registry.ts';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { applyResourceSchema } from '../../src/cluster/resource-schema.ts';
import { RecordService, type RequestMeta } from '../../src/records/record-service.ts';
import { createOutboxTable } from '../../src/events/outbox.ts';
import { parseListQuery } from '../../src/query/parse-list-query.ts';
import { DEFAULT_LIKE_PATTERN_LIMITS } from '../../src/query/like-pattern-limits.ts';
import { DEFAULT_INCLUDE_BOUNDS, NO_COMPOUND } from '../../src/query/parse-compound-query.ts';
import { ReadQueries } from '../../src/http/routes/read-queries.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';

const registry = new ResourceRegistry({
  resources: {
    notes: {
      fields: { text: { type: 'string' }, rank: { type: 'integer', sortable: true } },
      permissions: { writer: { read: true, create: true } },
    },
  },
});
const META: RequestMeta = {
  principal: { kind: 'key', keyId: 'k1', userId: 'u1', role: 'writer', keyPermissions: null },
};
const STRANGER: RequestMeta = {
  principal: { kind: 'key', keyId: 'k2', userId: 'u2', role: 'nobody', keyPermissions: null },
};

for (const dialect of testDialects()) {
  describe(`reads of parsed queries (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;
    let records: RecordService;
    const reads = new ReadQueries(registry, DEFAULT_LIKE_PATTERN_LIMITS, DEFAULT_INCLUDE_BOUNDS);

    before(async () => {
      database = await createTestDatabase(dialect);
      store = createStore(database.url);
      await applyResourceSchema(store, registry, { allowDestructive: false });
      await createOutboxTable(store.db, store.dialect);
      records = new RecordService(store, registry);
      const notes = registry.require('notes');
      for (let rank = 1; rank <= 5; rank++) await records.create(notes, META, { text: `n${rank}`, rank });
    });

    after(async () => {
      await store?.close();
      await database?.drop();
    });

    it('lists with the ListQuery it is handed', async () => {
      const notes = registry.require('notes');
      const query = parseListQuery(
        { rank__gte: '3', _sort: '-rank', _limit: '2' },
        notes,
        new Set(['text', 'rank']),
        DEFAULT_LIKE_PATTERN_LIMITS,
      );
      const result = await records.list(notes, META, { query, compound: NO_COMPOUND });
      assert.deepEqual(
        result.records.map((record) => record.rank),
        [5, 4],
      );
      assert.equal(result.total, 3);
    });

    it('parses in http/ with access checked first, then the query', async () => {
      const notes = registry.require('notes');
      const read = reads.list(notes, META.principal, { rank__lt: '3', _sort: 'rank' });
      assert.deepEqual(
        (await records.list(notes, META, read)).records.map((record) => record.rank),
        [1, 2],
      );
      assert.throws(() => reads.list(notes, META.principal, { rank__zz: '1' }), { code: 'INVALID_QUERY_PARAMS' });
      // A caller who may not read the resource hears that, not what is wrong with the query.
      assert.throws(
        () => reads.list(notes, STRANGER.principal, { rank__zz: '1' }),
        (error: Error & { code?: string }) => error.code !== 'INVALID_QUERY_PARAMS',
      );
    });
  });
}
