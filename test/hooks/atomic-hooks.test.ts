// Hooks in an Atomic Operations batch (POST /v1/operations), through HTTP on SQLite and PostgreSQL: each
// operation runs its before-hooks inside the batch's one transaction, a refusal points at its operation
// and leaves nothing (no row, no event, nothing a hook wrote), and after-hooks run once the batch commits.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testDialects } from '../helpers/test-databases.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { hooksModule, SHOP_RESOURCES, startHooksApp, type HooksApp } from './hooks-app.ts';

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

const HOOKS = hooksModule(`{
  articles: {
    async beforeCreate({ values, records }) {
      if (values.title === 'refuse me') {
        globalThis.__refusals = (globalThis.__refusals ?? 0) + 1;
        throw new ApiError(422, 'TITLE_REFUSED', 'This title is refused', { pointer: '/data/attributes/title' });
      }
      values.slug ??= values.title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      await records('audit', { as: 'system' }).create({ message: 'created ' + values.title });
    },
    async beforeUpdate({ values }) {
      if (values.title !== undefined) values.slug = values.title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    },
    async beforeDelete({ previous }) {
      if (previous.slug === 'keep') throw new ApiError(403, 'KEEP_ARTICLE', 'Articles with slug keep stay');
    },
    async afterCreate({ event }) {
      globalThis.__batchAfter?.push(event.data.new.title);
    },
  },
  tags: {
    async beforeCreate({ values }) {
      globalThis.__tagHooks?.push('create ' + values.name);
    },
    async beforeUpdate({ values, previous }) {
      globalThis.__tagHooks?.push('update ' + previous.name);
      values.uses = (previous.uses ?? 0) + 1;
    },
  },
}`);

const RESOURCES: Record<string, ResourceDefinition> = {
  ...SHOP_RESOURCES,
  tags: {
    fields: { name: { type: 'string', required: true, unique: true }, uses: { type: 'integer' } },
    permissions: { user: { read: true, create: true, update: true } },
  },
};

declare global {
  var __batchAfter: string[] | undefined;
  var __refusals: number | undefined;
  var __tagHooks: string[] | undefined;
}

async function waitFor<T>(probe: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 2000; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`gave up waiting for ${what}`);
}

for (const dialect of testDialects()) {
  describe(`hooks in atomic operations (${dialect})`, () => {
    let t: HooksApp;
    let user: string;
    before(async () => {
      t = await startHooksApp(dialect, HOOKS, { resources: RESOURCES });
      user = await t.as('user', 'batch-user');
    });
    after(async () => {
      globalThis.__batchAfter = undefined;
      globalThis.__refusals = undefined;
      globalThis.__tagHooks = undefined;
      await t.close();
    });

    const send = (operations: unknown[]) =>
      t.request({
        method: 'POST',
        url: '/v1/operations',
        auth: user,
        headers: { 'content-type': ATOMIC, accept: ATOMIC },
        payload: JSON.stringify({ 'atomic:operations': operations }),
      });
    const addArticle = (title: string, slug?: string) => ({
      op: 'add',
      data: { type: 'articles', attributes: slug === undefined ? { title } : { title, slug } },
    });
    const count = async (table: string) =>
      Number(
        (await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(t.ctx.store.db)).rows[0]!.n,
      );

    it('runs each operation’s before-hooks in the batch’s transaction, and after-hooks once it committed', async () => {
      globalThis.__batchAfter = [];
      const [articles, audits, events] = [await count('articles'), await count('audit'), await count('svc_events')];
      const response = await send([addArticle('Batch One'), addArticle('Batch Two')]);
      assert.equal(response.statusCode, 200, response.body);
      const results = response.json()['atomic:results'] as { data: { attributes: { slug: string } } }[];
      assert.deepEqual(
        results.map((result) => result.data.attributes.slug),
        ['batch-one', 'batch-two'],
      );
      assert.equal(await count('articles'), articles + 2);
      // Each hook's own write is part of the batch, with its event: two articles and two audit rows.
      assert.equal(await count('audit'), audits + 2);
      assert.equal(await count('svc_events'), events + 4);
      const heard = await waitFor(
        () => (globalThis.__batchAfter!.length === 2 ? globalThis.__batchAfter : undefined),
        'the after hooks of both creates',
      );
      assert.deepEqual([...heard].sort(), ['Batch One', 'Batch Two']);
    });

    it('a hook refusing the second operation stores nothing of the batch, emits no event, runs no after-hook', async () => {
      globalThis.__batchAfter = [];
      globalThis.__refusals = 0;
      const [articles, audits, events] = [await count('articles'), await count('audit'), await count('svc_events')];
      const response = await send([addArticle('Stored First'), addArticle('refuse me')]);
      // The refusal ends the batch at once: the hook ran once, and nothing after it ran.
      assert.equal(globalThis.__refusals, 1);
      assert.equal(response.statusCode, 422, response.body);
      assert.deepEqual(response.json().errors, [
        {
          status: '422',
          code: 'TITLE_REFUSED',
          title: 'Refused',
          detail: 'This title is refused',
          source: { pointer: '/atomic:operations/1/data/attributes/title' },
        },
      ]);
      // The first operation's row, its hook's audit row and both their events went with the transaction.
      assert.equal(await count('articles'), articles);
      assert.equal(await count('audit'), audits);
      assert.equal(await count('svc_events'), events);
      // A later batch's after-hook is heard, and it is the only one: the refused batch ran none.
      const later = await send([addArticle('After The Refusal')]);
      assert.equal(later.statusCode, 200, later.body);
      const heard = await waitFor(
        () => (globalThis.__batchAfter!.length > 0 ? globalThis.__batchAfter : undefined),
        'the later batch’s after hook',
      );
      assert.deepEqual(heard, ['After The Refusal']);
    });

    it('update and remove operations run their hooks; a refusal without a pointer points at its operation', async () => {
      const created = await send([addArticle('To Rename'), addArticle('Kept', 'keep')]);
      assert.equal(created.statusCode, 200, created.body);
      const [renamed, kept] = (created.json()['atomic:results'] as { data: { id: string } }[]).map(
        (result) => result.data.id,
      );
      const events = await count('svc_events');
      const response = await send([
        { op: 'update', data: { type: 'articles', id: renamed, attributes: { title: 'Renamed Now' } } },
        { op: 'remove', ref: { type: 'articles', id: kept } },
      ]);
      assert.equal(response.statusCode, 403, response.body);
      assert.equal(response.json().errors[0].code, 'KEEP_ARTICLE');
      assert.equal(response.json().errors[0].source.pointer, '/atomic:operations/1');
      assert.equal(await count('svc_events'), events);
      const unchanged = await t.request({ method: 'GET', url: `/v1/articles/${renamed}`, auth: user });
      assert.equal(unchanged.json().data.attributes.title, 'To Rename');

      const updated = await send([
        { op: 'update', data: { type: 'articles', id: renamed, attributes: { title: 'Renamed Now' } } },
      ]);
      assert.equal(updated.statusCode, 200, updated.body);
      assert.equal(updated.json()['atomic:results'][0].data.attributes.slug, 'renamed-now');
    });

    it('an upsert runs the hooks of the write it makes: the create’s, or the update’s, never both', async () => {
      globalThis.__tagHooks = [];
      const upsert = (name: string) => ({
        op: 'add',
        data: { type: 'tags', attributes: { name } },
        meta: { upsert: 'name' },
      });
      const first = await send([upsert('red')]);
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(globalThis.__tagHooks, ['create red']);
      const again = await send([upsert('red'), upsert('blue')]);
      assert.equal(again.statusCode, 200, again.body);
      assert.deepEqual(globalThis.__tagHooks, ['create red', 'update red', 'create blue']);
      assert.equal(again.json()['atomic:results'][0].data.attributes.uses, 1);
      const single = await t.request({
        method: 'POST',
        url: '/v1/tags?_upsert=name',
        auth: user,
        payload: { name: 'red' },
      });
      assert.equal(single.statusCode, 200, single.body);
      assert.equal(single.json().data.attributes.uses, 2);
      assert.deepEqual(globalThis.__tagHooks.slice(3), ['update red']);
    });
  });
}
