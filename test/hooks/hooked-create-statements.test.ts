// What a hooked create sends PostgreSQL: a before-hook that only changes the values leaves the create
// one statement (no BEGIN, no COMMIT: a plain create's cost), while a hook that reads or writes through
// `records()` opens the write's transaction and the create joins it, so all of it commits or rolls back
// together. After-commit hooks see their caller either way.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { firstWordsOn, statementsDuring } from '../helpers/sent-statements.ts';
import { hooksModule, startHooksApp, type HooksApp } from './hooks-app.ts';

const HOOKS = hooksModule(`{
  articles: {
    async beforeCreate({ values }) {
      values.slug ??= values.title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    },
    async afterCreate({ event, caller }) {
      globalThis.__afterCreated?.push({ title: event.data.new.title, userId: caller.userId });
    },
  },
  orders: {
    async beforeCreate({ values, records }) {
      const product = await records('products').get(values.product_id);
      await records('products').update(product.id, { stock: product.stock - values.quantity });
      if (values.note === 'fail after the write') throw new Error('a failure after the hook wrote');
    },
  },
}`);

declare global {
  var __afterCreated: { title: string; userId: string }[] | undefined;
}

describe('hooked creates on PostgreSQL: a transaction only when a hook uses records()', {
  skip: process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set',
}, () => {
  let t: HooksApp;
  let user: string;
  before(async () => {
    t = await startHooksApp('postgres', HOOKS);
    user = await t.as('user', 'statements-user');
  });
  after(async () => {
    globalThis.__afterCreated = undefined;
    await t?.close();
  });

  const create = (resource: string, payload: Record<string, unknown>) =>
    t.request({ method: 'POST', url: `/v1/${resource}`, auth: user, payload });
  const stockOf = async (id: string) =>
    (await sql<{ stock: number }>`select stock from products where id = ${id}`.execute(t.ctx.store.db)).rows[0]!.stock;

  it('writes a create whose hook only changes its values in one statement, and runs its after hook', async () => {
    globalThis.__afterCreated = [];
    let created: Awaited<ReturnType<typeof create>> | undefined;
    const sent = await statementsDuring(async () => {
      created = await create('articles', { title: 'One Statement' });
    });
    assert.equal(created!.statusCode, 201, created!.body);
    assert.equal(created!.json().data.attributes.slug, 'one-statement');
    const insert = sent.find(({ text }) => /insert into "articles"/.test(text));
    assert.ok(insert, sent.map(({ text }) => text).join('\n'));
    assert.match(insert.text, /insert into "svc_events"/, 'the event in the same statement');
    const words = firstWordsOn(sent, insert.client);
    assert.ok(!words.includes('begin') && !words.includes('commit'), words.join(', '));
    for (let i = 0; i < 200 && globalThis.__afterCreated.length === 0; i++) await new Promise((r) => setImmediate(r));
    assert.deepEqual(globalThis.__afterCreated, [{ title: 'One Statement', userId: 'statements-user' }]);
  });

  it('opens the transaction for a hook that uses records(), and rolls all of it back on a later failure', async () => {
    const product = await create('products', { name: 'widget', stock: 10 });
    assert.equal(product.statusCode, 201, product.body);
    const productId = product.json().data.id as string;

    let ordered: Awaited<ReturnType<typeof create>> | undefined;
    const sent = await statementsDuring(async () => {
      ordered = await create('orders', { product_id: productId, quantity: 3 });
    });
    assert.equal(ordered!.statusCode, 201, ordered!.body);
    const insert = sent.find(({ text }) => /insert into "orders"/.test(text));
    assert.ok(insert, sent.map(({ text }) => text).join('\n'));
    const words = firstWordsOn(sent, insert.client);
    assert.equal(words[0], 'begin', words.join(', '));
    assert.ok(words.includes('commit'), words.join(', '));
    assert.equal(await stockOf(productId), 7);

    const failed = await create('orders', { product_id: productId, quantity: 2, note: 'fail after the write' });
    assert.equal(failed.statusCode, 500, failed.body);
    assert.equal(await stockOf(productId), 7, "the hook's update rolled back with the create");
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from orders`.execute(t.ctx.store.db);
    assert.equal(rows[0]!.n, 1);
  });
});
