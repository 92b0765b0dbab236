// A patch or delete on PostgreSQL in two round trips: the row is read without a lock, then changed
// together with its event, the event's deliveries and its NOTIFY by one statement that applies only
// if the row is still the version read. A row changed in between is written the usual way, in a
// transaction that locks it, and nothing of the stale statement is kept.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { EVENTS_TABLE } from '../../src/events/outbox.ts';
import { firstWordsOn, statementsDuring } from '../helpers/sent-statements.ts';
import { DELIVERIES_TABLE } from '../../src/webhooks/webhook-tables.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { BLOG_RESOURCES } from '../helpers/test-config.ts';
import { startReceiver, type Receiver } from '../webhooks/fixtures/receiver.ts';

const TAGS = { zeta: 1, b: { yy: [{ k2: 1, k: 2 }, 'x'], a: true }, é: 0, ab: 'x', aa: { '10': 1, '9': 2 } };

/** Resources besides the blog's: one soft-deleted that nothing references. */
const NOTES: ResourceDefinition = {
  enableSoftDelete: true,
  fields: { text: { type: 'string', unique: true } },
  permissions: {
    editor: { read: true, create: true, update: true, delete: true },
    // A check rule: decided before the statement; a write it refuses is answered by the transaction.
    checked: {
      read: true,
      create: { check: { text: { neq: 'blocked' } } },
      update: { check: { text: { nin: ['blocked', 'also blocked'] } } },
    },
  },
};

describe('patch and delete by version (postgres)', {
  skip: process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set',
}, () => {
  let t: TestApp;
  let editor: string;
  let receiver: Receiver;
  let other: pg.Client;

  before(async () => {
    t = await startTestApp('postgres', { resources: { ...BLOG_RESOURCES, notes: NOTES } });
    editor = await t.as('editor');
    receiver = await startReceiver();
    const subscribed = await t.request({
      method: 'POST',
      url: '/admin/webhooks',
      auth: t.admin,
      payload: { name: 'all', url: receiver.url(), eventPattern: '*' },
    });
    assert.equal(subscribed.statusCode, 201, subscribed.body);
    other = new pg.Client({ connectionString: t.database.url });
    await other.connect();
  });

  after(async () => {
    await other?.end();
    await t?.close();
    await receiver?.close();
  });

  const VERSIONED = /^\s*with "svc_target_0" as/;

  const create = async (resource: string, attributes: Record<string, unknown>): Promise<string> => {
    const created = await t.request({ method: 'POST', url: `/v1/${resource}`, auth: editor, payload: attributes });
    assert.equal(created.statusCode, 201, created.body);
    return created.json().data.id as string;
  };
  const patch = (resource: string, id: string, attributes: Record<string, unknown>) =>
    t.request({ method: 'PATCH', url: `/v1/${resource}/${id}`, auth: editor, payload: attributes });
  const remove = (resource: string, id: string) =>
    t.request({ method: 'DELETE', url: `/v1/${resource}/${id}`, auth: editor });

  async function eventsOf(
    id: string,
  ): Promise<
    { id: string; type: string; data: { old: Record<string, unknown> | null; new: Record<string, unknown> | null } }[]
  > {
    const rows = await t.ctx.store.db
      .selectFrom(EVENTS_TABLE)
      .select(['id', 'type', 'payload'])
      .where('resource_id', '=', id)
      .orderBy('seq')
      .execute();
    return rows.map((row) => ({
      id: String(row.id),
      type: String(row.type),
      data: (JSON.parse(String(row.payload)) as { data: never }).data,
    }));
  }

  async function deliveriesOf(eventIds: string[]): Promise<number> {
    if (eventIds.length === 0) return 0;
    return (await t.ctx.store.db.selectFrom(DELIVERIES_TABLE).select('id').where('event_id', 'in', eventIds).execute())
      .length;
  }

  it('patches in two statements, with no transaction around them', async () => {
    const id = await create('categories', { name: 'two round trips' });
    const sent = await statementsDuring(async () => {
      const patched = await patch('categories', id, { description: 'changed' });
      assert.equal(patched.statusCode, 200, patched.body);
    });
    const change = sent.find(({ text }) => VERSIONED.test(text));
    assert.ok(change, sent.map(({ text }) => text).join('\n'));
    assert.match(change.text, /update "categories"/);
    assert.match(change.text, /insert into "svc_events"/);
    assert.match(change.text, /pg_notify/);
    const words = firstWordsOn(sent, change.client);
    assert.ok(!words.includes('begin') && !words.includes('commit'), words.join(', '));
    const reads = sent.filter(({ text }) => /^\s*select .* from "categories"/is.test(text) && /xmin/.test(text));
    assert.equal(reads.length, 1, 'one read of the row, with its version');
    assert.doesNotMatch(reads[0]!.text, /for update/i);
  });

  it('answers, stores and reports the same record, and queues its deliveries', async () => {
    const id = await create('posts', {
      title: 'before',
      views: 1,
      tags: { a: 1 },
      published_at: '2026-01-01T00:00:00Z',
    });
    const patched = await patch('posts', id, {
      title: 'after',
      tags: TAGS,
      published_at: '2026-11-26T03:04:05.678+02:00',
      rating: 0.1 + 0.2,
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const read = await t.request({ method: 'GET', url: `/v1/posts/${id}`, auth: editor });
    assert.equal(
      JSON.stringify(patched.json().data.attributes),
      JSON.stringify(read.json().data.attributes),
      'the answer is the row as stored',
    );
    const events = await eventsOf(id);
    assert.deepEqual(
      events.map(({ type }) => type),
      ['posts.created', 'posts.updated'],
    );
    const { old, new: next } = events[1]!.data;
    assert.equal(old?.title, 'before');
    assert.deepEqual(old?.tags, { a: 1 });
    const stored = await t.ctx.store.db.selectFrom('posts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(JSON.stringify(next?.tags), JSON.stringify(stored.tags), 'the event has jsonb’s key order');
    for (const [name, value] of Object.entries(read.json().data.attributes as Record<string, unknown>))
      assert.deepEqual(next?.[name], value, name);
    assert.equal(next?.published_at, '2026-11-26T01:04:05.678Z');
    assert.equal(await deliveriesOf([events[1]!.id]), 1, 'the subscription’s delivery is queued with the event');
  });

  it('writes the usual way, with nothing of the stale statement, when the row changes after it was read', async () => {
    const id = await create('posts', { title: 'raced', views: 1 });
    const sent = await statementsDuring(
      async () => {
        const patched = await patch('posts', id, { title: 'patched' });
        assert.equal(patched.statusCode, 200, patched.body);
        assert.equal(patched.json().data.attributes.views, 7, 'the answer has the other change too');
      },
      VERSIONED,
      () => other.query('update posts set views = 7 where id = $1', [id]),
    );
    const words = sent.map(({ text }) => text.trim().split(/\s/)[0]!.toLowerCase());
    assert.ok(words.includes('begin'), `then in a transaction: ${words.join(', ')}`);
    const events = await eventsOf(id);
    assert.deepEqual(
      events.map(({ type }) => type),
      ['posts.created', 'posts.updated'],
      'one event for the one change',
    );
    assert.equal(events[1]!.data.old?.views, 7, 'its old values are the row as it was when written');
    assert.equal(events[1]!.data.new?.title, 'patched');
    assert.equal(
      await deliveriesOf(events.map((event) => event.id)),
      2,
      'one delivery per event, none for the stale statement',
    );
  });

  it('writes nothing when the row is deleted after it was read', async () => {
    const id = await create('categories', { name: 'gone meanwhile' });
    const patched = await statementsDuring(
      () =>
        patch('categories', id, { description: 'late' }).then((response) =>
          assert.equal(response.statusCode, 404, response.body),
        ),
      VERSIONED,
      () => other.query('delete from categories where id = $1', [id]),
    );
    assert.ok(patched.some(({ text }) => VERSIONED.test(text)));
    assert.deepEqual(
      (await eventsOf(id)).map(({ type }) => type),
      ['categories.created'],
    );
  });

  it('writes neither change nor event when the statement fails', async () => {
    await create('notes', { text: 'taken' });
    const id = await create('notes', { text: 'free' });
    const refused = await patch('notes', id, { text: 'taken' });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.deepEqual(
      (await eventsOf(id)).map(({ type }) => type),
      ['notes.created'],
    );
  });

  it('keeps the unchanged write without an event', async () => {
    const id = await create('categories', { name: 'unchanged' });
    const same = await patch('categories', id, { name: 'unchanged' });
    assert.equal(same.statusCode, 200, same.body);
    assert.deepEqual(
      (await eventsOf(id)).map(({ type }) => type),
      ['categories.created'],
    );
  });

  it('deletes in two statements, with its event and deliveries', async () => {
    const id = await create('categories', { name: 'deleted' });
    const sent = await statementsDuring(async () => assert.equal((await remove('categories', id)).statusCode, 204));
    const change = sent.find(({ text }) => VERSIONED.test(text));
    assert.ok(change, sent.map(({ text }) => text).join('\n'));
    assert.match(change.text, /delete from "categories"/);
    assert.ok(!firstWordsOn(sent, change.client).includes('begin'));
    const events = await eventsOf(id);
    assert.deepEqual(
      events.map(({ type }) => type),
      ['categories.created', 'categories.deleted'],
    );
    assert.equal(events[1]!.data.old?.name, 'deleted');
    assert.equal(events[1]!.data.new, null);
    assert.equal(await deliveriesOf([events[1]!.id]), 1);
    assert.equal((await t.request({ method: 'GET', url: `/v1/categories/${id}`, auth: editor })).statusCode, 404);
  });

  it('refuses to delete a row still referenced, with no event', async () => {
    const category = await create('categories', { name: 'still used' });
    await create('posts', { title: 'uses it', category_id: category });
    const refused = await remove('categories', category);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.deepEqual(
      (await eventsOf(category)).map(({ type }) => type),
      ['categories.created'],
    );
  });

  it('soft-deletes in two statements where nothing references the resource', async () => {
    const id = await create('notes', { text: 'soft' });
    const sent = await statementsDuring(async () => assert.equal((await remove('notes', id)).statusCode, 204));
    const change = sent.find(({ text }) => VERSIONED.test(text));
    assert.ok(change, sent.map(({ text }) => text).join('\n'));
    assert.match(change.text, /update "notes" set "deleted_at"/);
    const events = await eventsOf(id);
    assert.deepEqual(
      events.map(({ type }) => type),
      ['notes.created', 'notes.deleted'],
    );
    assert.match(String(events[1]!.data.new?.deleted_at), /^\d{4}-\d\d-\d\dT/);
    const row = await t.ctx.store.db
      .selectFrom('notes')
      .select('deleted_at')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.notEqual(row.deleted_at, null, 'the row is kept, marked deleted');
    assert.equal((await remove('notes', id)).statusCode, 404);
  });

  it('keeps the transaction for a soft delete whose onDelete rules apply to other resources', async () => {
    const post = await create('posts', { title: 'has comments' });
    await create('comments', { post_id: post, body: 'first' });
    const sent = await statementsDuring(async () => assert.equal((await remove('posts', post)).statusCode, 204));
    assert.ok(!sent.some(({ text }) => VERSIONED.test(text)), 'not versioned');
    assert.ok(sent.some(({ text }) => /^\s*begin/i.test(text)));
    assert.deepEqual(
      (await eventsOf(post)).map(({ type }) => type),
      ['posts.created', 'posts.deleted'],
    );
  });

  it('patches a reference in two statements; a missing one writes nothing and is reported', async () => {
    const id = await create('posts', { title: 'moves' });
    const category = await create('categories', { name: 'target' });
    const sent = await statementsDuring(async () =>
      assert.equal((await patch('posts', id, { category_id: category })).statusCode, 200),
    );
    const change = sent.find(({ text }) => VERSIONED.test(text));
    assert.ok(change, sent.map(({ text }) => text).join('\n'));
    assert.match(change.text, /exists \(select 1 from "categories" where "id" = \$\d+\)/);
    const missing = await patch('posts', id, { category_id: '0195a3b2-c4d5-7e6f-8a9b-0c1d2e3f4a5b' });
    assert.equal(missing.statusCode, 400, missing.body);
    assert.equal(missing.json().errors[0].code, 'RELATION_REFERENCE_ERROR');
    assert.equal(missing.json().errors[0].source.pointer, '/data/attributes/category_id');
    const events = await eventsOf(id);
    assert.deepEqual(
      events.map(({ type }) => type),
      ['posts.created', 'posts.updated'],
    );
    assert.equal(events[1]!.data.new?.category_id, category);
  });

  it('writes under a check rule in one statement when the rule holds, and refuses with nothing written when not', async () => {
    const checked = await t.as('checked');
    let id = '';
    const sent = await statementsDuring(async () => {
      const created = await t.request({ method: 'POST', url: '/v1/notes', auth: checked, payload: { text: 'fine' } });
      assert.equal(created.statusCode, 201, created.body);
      id = created.json().data.id as string;
      const patched = await t.request({
        method: 'PATCH',
        url: `/v1/notes/${id}`,
        auth: checked,
        payload: { text: 'still fine' },
      });
      assert.equal(patched.statusCode, 200, patched.body);
    });
    // Only the notes' statements: the webhook worker shares the pool and may claim deliveries meanwhile.
    const writes = sent.filter(({ text }) => /^\s*with /.test(text) && /"notes"/.test(text));
    assert.equal(writes.length, 2, sent.map(({ text }) => text).join('\n'));
    for (const write of writes) {
      const onClient = sent.filter(({ client }) => client === write.client);
      const at = onClient.indexOf(write);
      const around = [onClient[at - 1], onClient[at + 1]].map((statement) => statement?.text.trim().split(/\s/)[0]);
      assert.ok(!around.includes('begin') && !around.includes('commit'), `a transaction around: ${around.join(', ')}`);
    }

    const refusedCreate = await t.request({
      method: 'POST',
      url: '/v1/notes',
      auth: checked,
      payload: { text: 'blocked' },
    });
    assert.equal(refusedCreate.statusCode, 403, refusedCreate.body);
    const refusedPatch = await t.request({
      method: 'PATCH',
      url: `/v1/notes/${id}`,
      auth: checked,
      payload: { text: 'also blocked' },
    });
    assert.equal(refusedPatch.statusCode, 403, refusedPatch.body);
    const row = await t.ctx.store.db.selectFrom('notes').select('text').where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.text, 'still fine');
    assert.deepEqual(
      (await eventsOf(id)).map(({ type }) => type),
      ['notes.created', 'notes.updated'],
    );
    const blocked = await t.ctx.store.db.selectFrom('notes').select('id').where('text', '=', 'blocked').execute();
    assert.equal(blocked.length, 0);
  });

  it('writes the patches and deletes of one pass together, each answered for itself', async () => {
    const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => create('notes', { text: `grouped ${i}` })));
    let patched: Awaited<ReturnType<typeof patch>>[] = [];
    const sent = await statementsDuring(async () => {
      patched = await Promise.all(ids.map((id, i) => patch('notes', id, { text: `grouped ${i} changed` })));
    });
    assert.deepEqual(
      patched.map((answer) => answer.statusCode),
      ids.map(() => 200),
    );
    assert.deepEqual(
      patched.map((answer) => answer.json().data.attributes.text),
      ids.map((_, i) => `grouped ${i} changed`),
    );
    assert.ok(
      sent.some(({ text }) => /"svc_target_1" as \(update "notes"/.test(text)),
      'several patches in one statement',
    );
    for (const id of ids) {
      const events = await eventsOf(id);
      assert.deepEqual(
        events.map(({ type }) => type),
        ['notes.created', 'notes.updated'],
      );
      assert.equal(await deliveriesOf([events[1]!.id]), 1);
    }
    const removed = await Promise.all(ids.map((id) => remove('notes', id)));
    assert.deepEqual(
      removed.map((answer) => answer.statusCode),
      ids.map(() => 204),
    );
    for (const id of ids)
      assert.deepEqual(
        (await eventsOf(id)).map(({ type }) => type),
        ['notes.created', 'notes.updated', 'notes.deleted'],
      );
  });

  it('answers each patch of a failed group on its own: the duplicate 409, the others written', async () => {
    await create('notes', { text: 'kept by another' });
    const ids = await Promise.all([1, 2, 3].map((i) => create('notes', { text: `to rename ${i}` })));
    const targets = ['renamed 1', 'kept by another', 'renamed 3'];
    let answers: Awaited<ReturnType<typeof patch>>[] = [];
    const sent = await statementsDuring(async () => {
      answers = await Promise.all(ids.map((id, i) => patch('notes', id, { text: targets[i] })));
    });
    assert.ok(
      sent.some(({ text }) => /"svc_target_1" as \(update "notes"/.test(text)),
      'the patches were tried as a group first',
    );
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      [200, 409, 200],
      answers.map((answer) => answer.body).join('\n'),
    );
    assert.deepEqual(
      (await eventsOf(ids[1]!)).map(({ type }) => type),
      ['notes.created'],
    );
    assert.deepEqual(
      (await eventsOf(ids[2]!)).map(({ type }) => type),
      ['notes.created', 'notes.updated'],
    );
  });

  it('creates with references together, and answers a missing one on its own', async () => {
    const category = await create('categories', { name: 'shared target' });
    const bodies = [
      { title: 'ref 1', category_id: category },
      { title: 'ref 2', category_id: '0195a3b2-c4d5-7e6f-8a9b-0c1d2e3f4a5b' },
      { title: 'ref 3', category_id: category },
    ];
    let answers: Awaited<ReturnType<typeof t.request>>[] = [];
    const sent = await statementsDuring(async () => {
      answers = await Promise.all(
        bodies.map((body) => t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: body })),
      );
    });
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      [201, 400, 201],
      answers.map((answer) => answer.body).join('\n'),
    );
    assert.ok(
      sent.some(({ text }) => /"svc_target_1" as \(insert into "posts"/.test(text)),
      'the creates shared a statement',
    );
    for (const answer of [answers[0]!, answers[2]!]) {
      assert.deepEqual(
        (await eventsOf(answer.json().data.id)).map(({ type }) => type),
        ['posts.created'],
      );
    }
  });

  it('serializes concurrent patches of one row: every change kept, one event each, in order', async () => {
    const id = await create('posts', { title: 'counter', views: 0 });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => patch('posts', id, { title: `t${i}`, body: `b${i}` })),
    );
    for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
    const events = (await eventsOf(id)).slice(1);
    assert.equal(events.length, 12);
    // Each event's old values are the previous event's new ones: no change was written over a stale read.
    for (let i = 1; i < events.length; i++)
      assert.equal(events[i]!.data.old?.title, events[i - 1]!.data.new?.title, `event ${i}`);
  });
});
