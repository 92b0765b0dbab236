// Adding and removing `searchable`, changing the language, and changing the columns a search index
// reads, on a live database between restarts: each is a planned change (`svc plan` prints the same
// plan), the index is made from the rows already there, and writes after it keep it exact.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp, type BuiltApp } from '../../src/server.ts';
import type { FieldDefinition, ResourceDefinition } from '../../src/config/config-types.ts';
import type { SearchLanguage } from '../../src/config/search-languages.ts';
import { planResourceSchema } from '../../src/cluster/resource-schema.ts';
import { ResourceRegistry } from '../../src/resources/resource-registry.ts';
import { createStore } from '../../src/store/create-store.ts';
import { authorizationFor } from '../helpers/test-auth.ts';
import { testConfig } from '../helpers/test-config.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';

const EDITOR = { editor: { read: true, create: true, update: true, delete: true } } as const;

function notes(fields: Record<string, FieldDefinition>, searchLanguage?: SearchLanguage) {
  const definition: ResourceDefinition = { fields, permissions: EDITOR };
  if (searchLanguage) definition.searchLanguage = searchLanguage;
  return { notes: definition };
}

const BOTH = { title: { type: 'string', searchable: true }, body: { type: 'text', searchable: true } } as const;

for (const dialect of testDialects()) {
  describe(`search index schema changes (${dialect})`, () => {
    const databases: TestDatabase[] = [];
    let app: BuiltApp | undefined;
    let auth = '';
    after(async () => {
      await app?.app.close();
      for (const database of databases) await database.drop();
    });
    const start = async (
      database: TestDatabase,
      resources: Record<string, ResourceDefinition>,
      destructive = false,
    ) => {
      await app?.app.close();
      app = undefined;
      const built = await buildApp({
        config: testConfig(database.url, { resources }),
        allowDestructive: destructive,
        startWorkers: false,
      });
      await built.app.ready();
      app = built;
      auth = await authorizationFor(built.app, built.ctx, 'editor', `editor-${databases.length}-${Date.now()}`);
    };
    const stop = async () => {
      await app?.app.close();
      app = undefined;
    };
    const fresh = async () => {
      const database = await createTestDatabase(dialect);
      databases.push(database);
      return database;
    };
    /** The plan's lines for `resources`, read with the app stopped, as `svc plan` does. */
    const planned = async (database: TestDatabase, resources: Record<string, ResourceDefinition>) => {
      await stop();
      const store = createStore(database.url);
      try {
        const plan = await planResourceSchema(store, new ResourceRegistry(testConfig(database.url, { resources })));
        return plan.changes.map((change) => change.text);
      } finally {
        await store.close();
      }
    };
    const create = async (attributes: object) => {
      const response = await app!.app.inject({
        method: 'POST',
        url: '/v1/notes',
        headers: { authorization: auth },
        payload: attributes,
      });
      assert.equal(response.statusCode, 201, response.body);
      return response.json().data.id as string;
    };
    const search = async (text: string) => {
      const response = await app!.app.inject({
        method: 'GET',
        url: `/v1/notes?_search=${encodeURIComponent(text)}`,
        headers: { authorization: auth },
      });
      return {
        status: response.statusCode,
        ids:
          response.statusCode === 200
            ? response
                .json()
                .data.map((r: { id: string }) => r.id)
                .sort()
            : [],
      };
    };

    it('indexes the rows already there when searchable is added, and plans it', async () => {
      const database = await fresh();
      const plain = { title: { type: 'string' }, body: { type: 'text' } } as const;
      await start(database, notes(plain));
      const first = await create({ title: 'old apple', body: 'crumble' });
      assert.equal((await search('apple')).status, 400, 'no searchable field yet');
      assert.deepEqual(await planned(database, notes(BOTH)), [
        'create search index on notes (title, body; language simple)',
      ]);
      await start(database, notes(BOTH));
      assert.deepEqual((await search('apple crumble')).ids, [first]);
      const second = await create({ title: 'new apple' });
      assert.deepEqual((await search('apple')).ids, [first, second].sort());
      assert.deepEqual(await planned(database, notes(BOTH)), [], 'a restart with the same definitions changes nothing');
    });

    it('rebuilds the index when a field stops being searchable, or the language changes', async () => {
      const database = await fresh();
      await start(database, notes(BOTH));
      const id = await create({ title: 'runs daily', body: 'secretword' });
      const titleOnly = { ...BOTH, body: { type: 'text' } } as const;
      assert.deepEqual(await planned(database, notes(titleOnly)), [
        'rebuild search index on notes (title; language simple)',
      ]);
      await start(database, notes(titleOnly));
      assert.deepEqual((await search('secretword')).ids, []);
      assert.deepEqual((await search('daily')).ids, [id]);
      assert.deepEqual((await search('running')).ids, [], 'simple does not stem');
      assert.deepEqual(await planned(database, notes(titleOnly, 'english')), [
        'rebuild search index on notes (title; language english)',
      ]);
      await start(database, notes(titleOnly, 'english'));
      assert.deepEqual((await search('running')).ids, [id], 'english stems runs and running alike');
    });

    it('drops the index when no field is searchable any more', async () => {
      const database = await fresh();
      await start(database, notes(BOTH));
      await create({ title: 'apple' });
      const plain = { title: { type: 'string' }, body: { type: 'text' } } as const;
      assert.deepEqual(await planned(database, notes(plain)), ['drop search index on notes']);
      await start(database, notes(plain));
      assert.equal((await search('apple')).status, 400);
      const columns = await app!.ctx.store.dialect.listColumns(app!.ctx.store.db, 'notes');
      assert.deepEqual(columns.map((c) => c.name).sort(), ['body', 'created_at', 'id', 'title', 'updated_at']);
      assert.equal(await app!.ctx.store.dialect.search.current(app!.ctx.store.db, 'notes'), null);
      // Back again: made from the rows.
      await start(database, notes(BOTH));
      assert.equal((await search('apple')).ids.length, 1);
    });

    it('makes the index again when a column it reads is dropped, and keeps it exact after', async () => {
      const database = await fresh();
      const withExtra = { ...BOTH, extra: { type: 'string', searchable: true } } as const;
      await start(database, notes(withExtra));
      const id = await create({ title: 'pear', body: 'tart', extra: 'gone' });
      assert.deepEqual(await planned(database, notes(BOTH)), [
        'drop column notes.extra',
        'rebuild search index on notes (title, body; language simple)',
      ]);
      await start(database, notes(BOTH), true);
      assert.deepEqual((await search('pear tart')).ids, [id]);
      assert.deepEqual((await search('gone')).ids, []);
      const later = await create({ title: 'plum', body: 'tart' });
      assert.deepEqual((await search('tart')).ids, [id, later].sort());
      const patched = await app!.app.inject({
        method: 'PATCH',
        url: `/v1/notes/${id}`,
        headers: { authorization: auth },
        payload: { body: 'jam' },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.deepEqual((await search('tart')).ids, [later]);
    });
  });
}
