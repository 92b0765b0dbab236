// What a write's hooks set off, through HTTP on SQLite and PostgreSQL: the webhooks of the writes a hook
// makes (queued in the same transaction, delivered to a real receiver, none for a write that fails
// after its hook wrote), `'*'` hooks (every resource, before the resource's own, also for a hook's own
// writes), and the values a beforeUpdate leaves checked again against the field types.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { testDialects } from '../helpers/test-databases.ts';
import { hooksModule, startHooksApp, type HooksApp } from './hooks-app.ts';

const HOOKS = hooksModule(`{
  '*': {
    async beforeCreate({ resource, values }) {
      globalThis.__hookOrder?.push(resource + ': every resource');
    },
  },
  products: {
    async beforeCreate({ values }) {
      globalThis.__hookOrder?.push('products: its own');
    },
  },
  articles: {
    async beforeUpdate({ values }) {
      if (values.title === 'bad type on update') values.slug = 42;
    },
  },
  orders: {
    async beforeCreate({ values, records }) {
      const product = await records('products').get(values.product_id);
      await records('products').update(product.id, { stock: product.stock - values.quantity });
      await records('audit', { as: 'system' }).create({ message: 'order of ' + values.quantity });
      if (values.note === 'fail after the writes') throw new Error('failure after the hook wrote');
    },
  },
}`);

declare global {
  var __hookOrder: string[] | undefined;
}

/** The part of a delivery's payload these tests read. */
interface Delivered {
  type: string;
  resourceId: string;
}

/** A webhook target on loopback that keeps what it receives. */
async function startReceiver(): Promise<{ url: string; received: Delivered[]; close(): Promise<void> }> {
  const received: Delivered[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const { event } = JSON.parse(body) as { event: Delivered };
      received.push({ type: event.type, resourceId: event.resourceId });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const dialect of testDialects()) {
  describe(`what hooks set off (${dialect})`, () => {
    let t: HooksApp;
    let user: string;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    before(async () => {
      t = await startHooksApp(dialect, HOOKS);
      user = await t.as('user', 'effects-user');
      receiver = await startReceiver();
      const subscribed = await t.request({
        method: 'POST',
        url: '/admin/webhooks',
        auth: t.admin,
        payload: { name: 'everything', url: receiver.url, eventPattern: '*' },
      });
      assert.equal(subscribed.statusCode, 201, subscribed.body);
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    const create = async (resource: string, attributes: Record<string, unknown>) =>
      t.request({
        method: 'POST',
        url: `/v1/${resource}`,
        auth: user,
        payload: attributes,
      });
    const deliveryRows = async (eventType: string) => {
      const { rows } = await sql<{ n: number | string }>`
        select count(*) as n from svc_webhook_deliveries where event_type = ${eventType}`.execute(t.ctx.store.db);
      return Number(rows[0]!.n);
    };

    it("delivers a webhook for each write a hook makes, queued in the write's transaction", async () => {
      const product = await create('products', { name: 'lamp', stock: 10 });
      assert.equal(product.statusCode, 201, product.body);
      const productId = (JSON.parse(product.body) as { data: { id: string } }).data.id;
      const before = {
        created: await deliveryRows('orders.created'),
        updated: await deliveryRows('products.updated'),
        audit: await deliveryRows('audit.created'),
      };
      const delivered = receiver.received.length;
      const order = await create('orders', { product_id: productId, quantity: 2 });
      assert.equal(order.statusCode, 201, order.body);
      const orderId = (JSON.parse(order.body) as { data: { id: string } }).data.id;
      // One row per event, there as soon as the create has answered: they committed with it.
      assert.equal(await deliveryRows('orders.created'), before.created + 1);
      assert.equal(await deliveryRows('products.updated'), before.updated + 1);
      assert.equal(await deliveryRows('audit.created'), before.audit + 1);
      const arrived = () => receiver.received.slice(delivered);
      const count = (type: string, resourceId?: string) =>
        arrived().filter((d) => d.type === type && (resourceId === undefined || d.resourceId === resourceId)).length;
      await until(
        () =>
          count('orders.created', orderId) > 0 &&
          count('products.updated', productId) > 0 &&
          count('audit.created') > 0,
        'the order, the product update and the audit record at the receiver',
      );
      // A sentinel written after: once it has arrived, a second delivery of any of them would have too.
      const sentinel = await create('products', { name: 'after the order', stock: 1 });
      const sentinelId = (JSON.parse(sentinel.body) as { data: { id: string } }).data.id;
      await until(() => count('products.created', sentinelId) > 0, 'the sentinel at the receiver');
      assert.deepEqual(
        [count('orders.created', orderId), count('products.updated', productId), count('audit.created')],
        [1, 1, 1],
      );
    });

    it('delivers nothing of a write that fails after its hook wrote', async () => {
      const product = await create('products', { name: 'desk', stock: 10 });
      const productId = (JSON.parse(product.body) as { data: { id: string } }).data.id;
      await until(() => receiver.received.some((d) => d.resourceId === productId), 'the product at the receiver');
      const counts = async () => [
        await deliveryRows('orders.created'),
        await deliveryRows('products.updated'),
        await deliveryRows('audit.created'),
      ];
      const before = await counts();
      const delivered = receiver.received.length;
      const order = await create('orders', { product_id: productId, quantity: 3, note: 'fail after the writes' });
      assert.equal(order.statusCode, 500, order.body);
      assert.deepEqual(await counts(), before);
      // A sentinel write after it: once it arrives, anything the failed write had queued would have too.
      const sentinel = await create('products', { name: 'sentinel', stock: 1 });
      const sentinelId = (JSON.parse(sentinel.body) as { data: { id: string } }).data.id;
      await until(() => receiver.received.some((d) => d.resourceId === sentinelId), 'the sentinel at the receiver');
      // Only products were created since (the sentinel, and perhaps a late delivery of an earlier one).
      const since = receiver.received.slice(delivered).map((d) => d.type);
      assert.deepEqual(
        since.filter((type) => type !== 'products.created'),
        [],
      );
      assert.ok(since.includes('products.created'));
    });

    it("runs '*' hooks for every resource, before the resource's own, and for a hook's own writes", async () => {
      globalThis.__hookOrder = [];
      try {
        const product = await create('products', { name: 'chair', stock: 5 });
        assert.equal(product.statusCode, 201, product.body);
        assert.deepEqual(globalThis.__hookOrder, ['products: every resource', 'products: its own']);
        globalThis.__hookOrder = [];
        const productId = (JSON.parse(product.body) as { data: { id: string } }).data.id;
        const order = await create('orders', { product_id: productId, quantity: 1 });
        assert.equal(order.statusCode, 201, order.body);
        // The order's own create, then the audit record its hook creates as the system.
        assert.deepEqual(globalThis.__hookOrder, ['orders: every resource', 'audit: every resource']);
      } finally {
        globalThis.__hookOrder = undefined;
      }
    });

    it('checks the values a beforeUpdate leaves against the field types: 400 at the field, nothing stored', async () => {
      const article = await create('articles', { title: 'First title' });
      assert.equal(article.statusCode, 201, article.body);
      const id = (JSON.parse(article.body) as { data: { id: string } }).data.id;
      const response = await t.request({
        method: 'PATCH',
        url: `/v1/articles/${id}`,
        auth: user,
        payload: { title: 'bad type on update' },
      });
      assert.equal(response.statusCode, 400, response.body);
      const { errors } = JSON.parse(response.body) as { errors: { source?: { pointer?: string } }[] };
      assert.ok(
        errors.some((e) => e.source?.pointer === '/data/attributes/slug'),
        response.body,
      );
      const stored = await t.request({ method: 'GET', url: `/v1/articles/${id}`, auth: user });
      assert.equal(
        (JSON.parse(stored.body) as { data: { attributes: { title: string } } }).data.attributes.title,
        'First title',
      );
    });
  });
}
