// Upsert by a unique field, as POST /v1/:resource?_upsert=<field> and as an atomic add with
// meta.upsert, on SQLite and PostgreSQL: created or updated (and the event says which), race-free,
// with create permission always and update permission (and its row filter) when it updates.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { BLOG_RESOURCES } from '../helpers/test-config.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import type { RecordEvent } from '../../src/model/record-event.ts';

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

const LABELS: ResourceDefinition = {
  enableSoftDelete: true,
  fields: {
    slug: { type: 'string', required: true, unique: true, maxLength: 100 },
    label: { type: 'string' },
    owner: { type: 'string' },
  },
  permissions: {
    editor: { read: true, create: true, update: true, delete: true },
    creator: { read: true, create: true },
    owner: {
      read: true,
      create: { fields: ['slug', 'label'], preset: { owner: '$userId' } },
      update: { fields: ['label'], filter: { owner: { eq: '$userId' } } },
    },
  },
};

interface ErrorObject {
  code: string;
  source?: { pointer?: string; parameter?: string };
}

for (const dialect of testDialects()) {
  describe(`upsert (${dialect})`, () => {
    let t: TestApp;
    let editor: string;
    const events: RecordEvent[] = [];

    before(async () => {
      t = await startTestApp(dialect, { resources: { ...BLOG_RESOURCES, labels: LABELS } });
      editor = await t.as('editor');
      t.ctx.records.onCommitted((committed) => events.push(...committed));
    });
    after(() => t?.close());

    const upsert = (attributes: Record<string, unknown>, auth = editor, field = 'slug') =>
      t.request({ method: 'POST', url: `/v1/labels?_upsert=${field}`, auth, payload: attributes });
    const rowsWithSlug = async (slug: string) =>
      t.ctx.store.db
        .selectFrom('labels')
        .selectAll()
        .where('slug', '=', slug)
        .where('deleted_at', 'is', null)
        .execute();

    it('creates with 201 and Location, then updates the same record with 200; the events say which', async () => {
      const first = events.length;
      const created = await upsert({ slug: 'one', label: 'first' });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json<{ data: { id: string } }>().data.id;
      assert.equal(created.headers.location, `/v1/labels/${id}`);
      const updated = await upsert({ slug: 'one', label: 'second' });
      assert.equal(updated.statusCode, 200, updated.body);
      assert.equal(updated.headers.location, undefined);
      assert.equal(updated.json<{ data: { id: string; attributes: { label: string } } }>().data.id, id);
      assert.equal(updated.json<{ data: { attributes: { label: string } } }>().data.attributes.label, 'second');
      assert.deepEqual(
        events.slice(first).map((event) => [event.kind, event.resourceId]),
        [
          ['created', id],
          ['updated', id],
        ],
      );
      assert.equal((await rowsWithSlug('one')).length, 1);
    });

    it('gives one row for concurrent upserts of the same key', async () => {
      const first = events.length;
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => upsert({ slug: 'raced', label: `writer ${i}` })),
      );
      for (const answer of answers) assert.ok(answer.statusCode === 200 || answer.statusCode === 201, answer.body);
      assert.equal(answers.filter((answer) => answer.statusCode === 201).length, 1);
      assert.equal((await rowsWithSlug('raced')).length, 1);
      const kinds = events.slice(first).map((event) => event.kind);
      assert.equal(kinds.filter((kind) => kind === 'created').length, 1);
      assert.equal(kinds[0], 'created');
    });

    it('creates a new record when the only holder of the key is soft-deleted', async () => {
      const created = await upsert({ slug: 'reborn', label: 'old' });
      const id = created.json<{ data: { id: string } }>().data.id;
      assert.equal((await t.request({ method: 'DELETE', url: `/v1/labels/${id}`, auth: editor })).statusCode, 204);
      const again = await upsert({ slug: 'reborn', label: 'new' });
      assert.equal(again.statusCode, 201, again.body);
      assert.notEqual(again.json<{ data: { id: string } }>().data.id, id);
    });

    it('needs create, and update (with its row filter and fields) only when it updates', async () => {
      const creator = await t.as('creator');
      assert.equal((await upsert({ slug: 'by-creator' }, creator)).statusCode, 201);
      const refused = await upsert({ slug: 'by-creator', label: 'changed' }, creator);
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal((await rowsWithSlug('by-creator'))[0]!.label, null);

      const owner = await t.as('owner', 'owner-1');
      const mine = await upsert({ slug: 'owned', label: 'a' }, owner);
      assert.equal(mine.statusCode, 201, mine.body);
      assert.equal(mine.json<{ data: { attributes: { owner: string } } }>().data.attributes.owner, 'owner-1');
      assert.equal((await upsert({ slug: 'owned', label: 'b' }, owner)).statusCode, 200);
      const stranger = await t.as('owner', 'owner-2');
      const outside = await upsert({ slug: 'owned', label: 'c' }, stranger);
      assert.equal(outside.statusCode, 403, outside.body);
      assert.equal((await rowsWithSlug('owned'))[0]!.label, 'b');
    });

    it('refuses an _upsert that names no unique field, and a body without the key', async () => {
      for (const field of ['label', 'nothing', '__proto__', 'constructor']) {
        const response = await upsert({ slug: 'x' }, editor, field);
        assert.equal(response.statusCode, 400, response.body);
        const [error] = response.json<{ errors: ErrorObject[] }>().errors;
        assert.equal(error!.code, 'INVALID_QUERY_PARAMS');
        assert.equal(error!.source?.parameter, '_upsert');
      }
      const missing = await upsert({ label: 'no slug' });
      assert.equal(missing.statusCode, 400, missing.body);
      assert.equal(missing.json<{ errors: ErrorObject[] }>().errors[0]!.source?.pointer, '/data/attributes/slug');
    });

    it('upserts as an atomic add with meta.upsert, in the batch transaction', async () => {
      await upsert({ slug: 'batched', label: 'before' });
      const first = events.length;
      const response = await t.request({
        method: 'POST',
        url: '/v1/operations',
        auth: editor,
        headers: { 'content-type': ATOMIC },
        payload: JSON.stringify({
          'atomic:operations': [
            {
              op: 'add',
              data: { type: 'labels', lid: 'b', attributes: { slug: 'batched', label: 'after' } },
              meta: { upsert: 'slug' },
            },
            { op: 'add', data: { type: 'labels', attributes: { slug: 'batched-new' } }, meta: { upsert: 'slug' } },
            {
              op: 'update',
              ref: { type: 'labels', lid: 'b' },
              data: { type: 'labels', lid: 'b', attributes: { owner: 'x' } },
            },
          ],
        }),
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(
        events.slice(first).map((event) => event.kind),
        ['updated', 'created', 'updated'],
      );
      assert.equal((await rowsWithSlug('batched'))[0]!.label, 'after');
      const bad = await t.request({
        method: 'POST',
        url: '/v1/operations',
        auth: editor,
        headers: { 'content-type': ATOMIC },
        payload: JSON.stringify({
          'atomic:operations': [
            { op: 'add', data: { type: 'labels', attributes: { slug: 'z' } }, meta: { upsert: 'label' } },
          ],
        }),
      });
      assert.equal(bad.statusCode, 400, bad.body);
      assert.equal(
        bad.json<{ errors: ErrorObject[] }>().errors[0]!.source?.pointer,
        '/atomic:operations/0/meta/upsert',
      );
    });

    it('replays an upsert under its Idempotency-Key', async () => {
      const send = () =>
        t.request({
          method: 'POST',
          url: '/v1/labels?_upsert=slug',
          auth: editor,
          headers: { 'idempotency-key': 'up-1' },
          payload: { slug: 'idem', label: 'x' },
        });
      const first = await send();
      assert.equal(first.statusCode, 201, first.body);
      const again = await send();
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotency-replayed'], 'true');
      assert.equal(again.body, first.body);
    });
  });
}
