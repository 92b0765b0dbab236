// The applied-definitions table records the config file each set came from; a table made before that
// column existed gets it when a node starts, its old rows showing no file. Definitions a node applies
// are recorded before it serves them, so whoever sees them also sees where they came from.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  type AppliedRecord,
  appliedRecord,
  createDefinitionsTable,
  DEFINITIONS_TABLE,
  recordAppliedDefinitions,
} from '../../src/cluster/definitions-store.ts';
import { definitionsHash } from '../../src/resources/resource-registry.ts';
import { sequenceColumn } from '../../src/store/sequence-column.ts';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { buildApp } from '../../src/server.ts';
import { testConfig } from '../helpers/test-config.ts';

const OLD = { notes: { fields: { text: { type: 'text' as const } } } };
const NEW = { notes: { fields: { text: { type: 'text' as const }, title: { type: 'string' as const } } } };

for (const dialect of testDialects()) {
  describe(`applied definitions' source (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;
    before(async () => {
      database = await createTestDatabase(dialect);
      store = createStore(database.url);
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    it('adds the source column to a table made without it, and records the file of new versions', async () => {
      await store.db.schema
        .createTable(DEFINITIONS_TABLE)
        .addColumn('version', sequenceColumn(store.dialect))
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('definitions', 'text', (c) => c.notNull())
        .addColumn('applied_at', 'text', (c) => c.notNull())
        .execute();
      await store.db
        .insertInto(DEFINITIONS_TABLE)
        .values({
          hash: definitionsHash(OLD),
          definitions: JSON.stringify(OLD),
          applied_at: '2026-01-01T00:00:00.000Z',
        })
        .execute();

      // Two nodes starting at once both find the column missing.
      await Promise.all([
        createDefinitionsTable(store.db, store.dialect),
        createDefinitionsTable(store.db, store.dialect),
      ]);
      assert.deepEqual(await appliedRecord(store.db, { hash: definitionsHash(OLD) }), {
        version: 1,
        appliedAt: '2026-01-01T00:00:00.000Z',
        source: null,
      });

      assert.equal(await recordAppliedDefinitions(store.db, NEW, '/etc/svc/svc.config.yaml'), true);
      const recorded = await appliedRecord(store.db, { hash: definitionsHash(NEW) });
      assert.equal(recorded?.source, '/etc/svc/svc.config.yaml');
      assert.deepEqual(await appliedRecord(store.db, { version: recorded!.version }), recorded);
      assert.equal(await appliedRecord(store.db, { hash: 'no such hash' }), null);
    });
  });
}

for (const dialect of testDialects()) {
  describe(`definitions applied from a file (${dialect})`, () => {
    it('are recorded before they are served: a reader who sees them finds their file', async () => {
      const database = await createTestDatabase(dialect);
      const base = testConfig(database.url);
      const { app, ctx } = await buildApp({ config: { ...base, resources: OLD } });
      try {
        await app.ready();
        // Asked at the moment the new definitions are swapped in, as a request could.
        let seen: Promise<AppliedRecord | null> | undefined;
        const stop = ctx.registry.onReplaced(() => {
          seen ??= ctx.definitions.applied();
        });
        assert.equal(await ctx.definitions.apply(NEW, '/etc/svc/reloaded.yaml'), true);
        stop();
        assert.ok(seen, 'the registry was replaced');
        assert.equal((await seen)?.source, '/etc/svc/reloaded.yaml');
      } finally {
        await app.close();
        await database.drop();
      }
    });
  });
}
