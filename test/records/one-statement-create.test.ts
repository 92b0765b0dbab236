// A create on PostgreSQL in one statement: the row, its event, the event's deliveries and its NOTIFY
// commit together in one round trip, and the event, built before the row is stored, carries the record
// exactly as PostgreSQL stores and returns it (jsonb reorders object keys).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EVENTS_TABLE } from '../../src/events/outbox.ts';
import { firstWordsOn, statementsDuring } from '../helpers/sent-statements.ts';
import { inJsonbOrder } from '../../src/store/postgres/jsonb-order.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const TAGS = { zeta: 1, b: { yy: [{ k2: 1, k: 2 }, 'x'], a: true }, é: 0, ab: 'x', '': null, aa: { '10': 1, '9': 2 } };

describe('create in one statement (postgres)', {
  skip: process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set',
}, () => {
  let t: TestApp;
  let editor: string;

  before(async () => {
    t = await startTestApp('postgres');
    editor = await t.as('editor');
  });

  after(async () => {
    await t?.close();
  });

  const create = (resource: string, attributes: Record<string, unknown>) =>
    t.request({ method: 'POST', url: `/v1/${resource}`, auth: editor, payload: attributes });

  it('answers, stores and reports the same record, every field kind included', async () => {
    const attributes = {
      title: 'One statement',
      body: 'Ünïcode body',
      status: 'published',
      views: 9_007_199_254_740_991,
      rating: 0.1 + 0.2,
      published: true,
      published_at: '2026-11-26T03:04:05.678+02:00',
      publish_on: '2026-02-28',
      external_id: '0195A3B2-C4D5-7E6F-8A9B-0C1D2E3F4A5B',
      contact: 'a@example.com',
      source: 'https://example.com/a?b=c',
      tags: TAGS,
      author_id: 'someone',
    };
    const created = await create('posts', attributes);
    assert.equal(created.statusCode, 201, created.body);
    const { id } = created.json().data;
    const read = await t.request({ method: 'GET', url: `/v1/posts/${id}`, auth: editor });
    assert.equal(read.statusCode, 200, read.body);
    assert.equal(
      JSON.stringify(created.json().data.attributes),
      JSON.stringify(read.json().data.attributes),
      'the answer is the row as stored',
    );

    const row = await t.ctx.store.db
      .selectFrom(EVENTS_TABLE)
      .select(['payload'])
      .where('resource_id', '=', id)
      .executeTakeFirstOrThrow();
    const event = JSON.parse(String(row.payload)) as { data: { new: Record<string, unknown> } };
    const stored = await t.ctx.store.db.selectFrom('posts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(JSON.stringify(event.data.new.tags), JSON.stringify(stored.tags), 'the event has jsonb’s key order');
    const { attributes: shown } = read.json().data as { attributes: Record<string, unknown> };
    for (const [name, value] of Object.entries(shown)) assert.deepEqual(event.data.new[name], value, name);
    assert.equal(event.data.new.published_at, '2026-11-26T01:04:05.678Z');
  });

  it('sends one statement, with no transaction around it', async () => {
    const sent = await statementsDuring(async () => {
      const created = await create('categories', { name: 'one round trip' });
      assert.equal(created.statusCode, 201, created.body);
    });
    // Other work may write meanwhile (the key usage flush): only the create's connection is looked at.
    const creates = sent.filter(({ text }) => /insert into "categories"/.test(text));
    assert.equal(creates.length, 1, creates.map(({ text }) => text).join('\n'));
    assert.match(creates[0]!.text, /^\s*with /i);
    assert.match(creates[0]!.text, /pg_notify/);
    const words = firstWordsOn(sent, creates[0]!.client);
    const at = words.indexOf('with');
    assert.ok(
      words[at - 1] !== 'begin' && words[at + 1] !== 'commit',
      `no BEGIN or COMMIT around it: ${words.join(', ')}`,
    );
  });

  it('creates with a reference in one statement, the reference checked by the statement itself', async () => {
    const category = (await create('categories', { name: 'referenced' })).json().data.id as string;
    const sent = await statementsDuring(async () => {
      const created = await create('posts', { title: 'with a reference', category_id: category });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json().data.attributes.category_id, category);
    });
    const inserts = sent.filter(({ text }) => /insert into "posts"/.test(text));
    assert.equal(inserts.length, 1, sent.map(({ text }) => text).join('\n'));
    assert.match(inserts[0]!.text, /exists \(select 1 from "categories" where "id" = \$\d+\)/);
    assert.ok(!firstWordsOn(sent, inserts[0]!.client).includes('begin'), 'no transaction');
    assert.ok(
      !sent.some(({ text }) => /^\s*select "id" from "categories"/.test(text)),
      'no read of the reference of its own',
    );
  });

  it('writes nothing and reports the field when a reference is missing or soft-deleted', async () => {
    const events = async (resource: string) =>
      (await t.ctx.store.db.selectFrom(EVENTS_TABLE).select('id').where('resource', '=', resource).execute()).length;
    const missing = await create('posts', { title: 'dangling', category_id: '0195a3b2-c4d5-7e6f-8a9b-0c1d2e3f4a5b' });
    assert.equal(missing.statusCode, 400, missing.body);
    assert.equal(missing.json().errors[0].code, 'RELATION_REFERENCE_ERROR');
    assert.equal(missing.json().errors[0].source.pointer, '/data/attributes/category_id');

    const post = (await create('posts', { title: 'soon deleted' })).json().data.id as string;
    assert.equal((await t.request({ method: 'DELETE', url: `/v1/posts/${post}`, auth: editor })).statusCode, 204);
    const before = await events('comments');
    const orphan = await create('comments', { post_id: post, body: 'too late' });
    assert.equal(orphan.statusCode, 400, orphan.body);
    assert.equal(orphan.json().errors[0].source.pointer, '/data/attributes/post_id');
    assert.equal(await events('comments'), before, 'no event for the refused create');
    const rows = await t.ctx.store.db.selectFrom('comments').select('id').where('post_id', '=', post).execute();
    assert.equal(rows.length, 0);
  });

  it('writes creates of one pass in one statement, each answered with its own record and event', async () => {
    const names = Array.from({ length: 8 }, (_, i) => `grouped ${i}`);
    let answers: Awaited<ReturnType<typeof create>>[] = [];
    const sent = await statementsDuring(async () => {
      answers = await Promise.all(names.map((name) => create('categories', { name })));
    });
    for (const answer of answers) assert.equal(answer.statusCode, 201, answer.body);
    assert.deepEqual(
      answers.map((answer) => answer.json().data.attributes.name),
      names,
      'each answer is its own record',
    );
    const inserts = sent.filter(({ text }) => /insert into "categories"/.test(text));
    assert.ok(inserts.length < names.length, `${inserts.length} statements for ${names.length} creates`);
    for (const answer of answers) {
      const { id } = answer.json().data;
      const events = await t.ctx.store.db
        .selectFrom(EVENTS_TABLE)
        .select(['payload'])
        .where('resource_id', '=', id)
        .execute();
      assert.equal(events.length, 1);
      assert.equal(
        (JSON.parse(String(events[0]!.payload)) as { data: { new: { name: string } } }).data.new.name,
        answer.json().data.attributes.name,
      );
    }
  });

  it('answers each create of a failed group on its own: the duplicate 409, the others written', async () => {
    assert.equal((await create('categories', { name: 'already here' })).statusCode, 201);
    const names = ['group a', 'already here', 'group b', 'group c'];
    let answers: Awaited<ReturnType<typeof create>>[] = [];
    const sent = await statementsDuring(async () => {
      answers = await Promise.all(names.map((name) => create('categories', { name })));
    });
    assert.ok(
      sent.some(({ text }) => /insert into "categories" .* values \([^)]*\), \(/.test(text)),
      'the creates were tried as a group first',
    );
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      [201, 409, 201, 201],
      answers.map((answer) => answer.body).join('\n'),
    );
    const stored = await t.ctx.store.db.selectFrom('categories').select('name').where('name', 'in', names).execute();
    assert.deepEqual(stored.map((row) => row.name).sort(), ['already here', 'group a', 'group b', 'group c']);
    const events = await t.ctx.store.db
      .selectFrom(EVENTS_TABLE)
      .select('resource_id')
      .where('resource', '=', 'categories')
      .execute();
    for (const answer of answers.filter((a) => a.statusCode === 201)) {
      assert.equal(events.filter((event) => event.resource_id === answer.json().data.id).length, 1);
    }
  });

  it('writes neither row nor event when the statement fails', async () => {
    assert.equal((await create('categories', { name: 'taken' })).statusCode, 201);
    const events = async () =>
      (await t.ctx.store.db.selectFrom(EVENTS_TABLE).select('id').where('resource', '=', 'categories').execute())
        .length;
    const before = await events();
    const duplicate = await create('categories', { name: 'taken' });
    assert.equal(duplicate.statusCode, 409, duplicate.body);
    assert.equal(await events(), before);
  });

  it('orders object keys as jsonb does', async () => {
    const values = [TAGS, { ü: 1, z: 2, zz: 3, '€': 4, yy: 5 }, [{ b: 1, a: [{ d: 1, c: 2 }] }], 'text', 3.5, null];
    const { driver } = t.ctx.store;
    if (driver.kind !== 'postgres') throw new Error('a PostgreSQL store was expected');
    for (const value of values) {
      const result: { rows: { value: unknown }[] } = await driver.pool.query('select $1::jsonb as value', [
        JSON.stringify(value),
      ]);
      assert.equal(JSON.stringify(inJsonbOrder(value)), JSON.stringify(result.rows[0]!.value), JSON.stringify(value));
    }
  });
});
