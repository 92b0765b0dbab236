// Which events queue deliveries: pattern matching, enabled subscriptions only, and only for changes
// that commit (the deliveries are written in the change's transaction). Two workers on one database
// never send the same attempt.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { buildApp } from '../../src/server.ts';
import { createStore } from '../../src/store/create-store.ts';
import { DELIVERIES_TABLE } from '../../src/webhooks/webhook-tables.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { startReceiver } from './fixtures/receiver.ts';
import { startWebhookTestApp, type WebhookTestApp } from './fixtures/webhook-test-app.ts';

for (const dialect of testDialects()) {
  describe(`webhook queueing (${dialect})`, () => {
    let t: WebhookTestApp;
    const cleanups: (() => Promise<unknown>)[] = [];
    before(async () => {
      t = await startWebhookTestApp(dialect);
    });
    after(async () => {
      await t.close();
    });
    async function cleanUp() {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    }
    async function webhook(body: Record<string, unknown>) {
      const created = await t.createWebhook({ name: 'queueing', ...body });
      cleanups.push(() => t.request({ method: 'DELETE', url: `/admin/webhooks/${created.id}`, auth: t.admin }));
      return created;
    }
    const rowsOf = async (webhookId: string) => {
      const row = await t.ctx.store.db
        .selectFrom(DELIVERIES_TABLE)
        .select(sql<number>`count(*)`.as('n'))
        .where('webhook_id', '=', webhookId)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    };

    it('delivers each event to the enabled subscriptions whose pattern matches it', async (ctx) => {
      ctx.after(cleanUp);
      const receiver = await startReceiver();
      cleanups.push(() => receiver.close());
      const table: [pattern: string, enabled: boolean, expected: string[]][] = [
        ['*', true, ['categories.created', 'posts.created', 'posts.deleted', 'posts.updated']],
        ['posts.*', true, ['posts.created', 'posts.deleted', 'posts.updated']],
        ['*.created', true, ['categories.created', 'posts.created']],
        ['posts.deleted', true, ['posts.deleted']],
        ['categories.updated', true, []],
        ['*', false, []],
      ];
      for (const [index, [pattern, enabled]] of table.entries())
        await webhook({ url: receiver.url(`/${index}`), eventPattern: pattern, enabled });

      const editor = await t.as('editor');
      const postId = await t.createPost({ title: 'matched' });
      assert.equal(
        (await t.request({ method: 'PATCH', url: `/v1/posts/${postId}`, auth: editor, payload: { title: 'changed' } }))
          .statusCode,
        200,
      );
      // A write that changes nothing emits no event, so it queues nothing.
      assert.equal(
        (await t.request({ method: 'PATCH', url: `/v1/posts/${postId}`, auth: editor, payload: { title: 'changed' } }))
          .statusCode,
        200,
      );
      assert.equal((await t.request({ method: 'DELETE', url: `/v1/posts/${postId}`, auth: editor })).statusCode, 204);
      assert.equal(
        (await t.request({ method: 'POST', url: '/v1/categories', auth: editor, payload: { name: 'matched' } }))
          .statusCode,
        201,
      );

      const expectedTotal = table.reduce((sum, [, , expected]) => sum + expected.length, 0);
      await receiver.waitForRequests(expectedTotal);
      await new Promise((resolve) => setTimeout(resolve, 300)); // nothing more arrives
      for (const [index, [pattern, enabled, expected]] of table.entries()) {
        const events = receiver.requests
          .filter((r) => r.path === `/${index}`)
          .map((r) => String(r.headers['x-service-event']));
        assert.deepEqual(events.sort(), expected, `${pattern}${enabled ? '' : ' (disabled)'}`);
      }
    });

    it('picks up subscription changes at once: disabling stops deliveries, enabling resumes them', async (ctx) => {
      ctx.after(cleanUp);
      const receiver = await startReceiver();
      cleanups.push(() => receiver.close());
      const { id } = await webhook({ url: receiver.url(), eventPattern: 'posts.created' });
      await t.createPost({ title: 'first' });
      await receiver.waitForRequests(1);
      await t.request({ method: 'PATCH', url: `/admin/webhooks/${id}`, auth: t.admin, payload: { enabled: false } });
      await t.createPost({ title: 'while disabled' });
      await t.request({
        method: 'PATCH',
        url: `/admin/webhooks/${id}`,
        auth: t.admin,
        payload: { enabled: true, url: receiver.url('/moved') },
      });
      await t.createPost({ title: 'again' });
      const requests = await receiver.waitForRequests(2);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(
        receiver.requests.map((r) => [r.path, JSON.parse(r.body).event.data.new.title]),
        [
          ['/hook', 'first'],
          ['/moved', 'again'],
        ],
      );
      assert.equal(requests.length, 2);
      assert.equal(await rowsOf(id), 2);
    });

    it('queues nothing for a change that fails validation, a check rule, or rolls back after its deliveries were written', async (ctx) => {
      ctx.after(cleanUp);
      const receiver = await startReceiver();
      cleanups.push(() => receiver.close());
      const { id } = await webhook({ url: receiver.url(), eventPattern: 'posts.created' });
      // Runs after the webhook hook, in the same transaction: failing it rolls back rows already queued.
      t.ctx.records.onEventWritten(async (_trx, event) => {
        if (event.data.new?.title === 'explode') throw new Error('a later step of the write failed');
      });

      const invalid = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: await t.as('editor'),
        payload: { body: 'no title' },
      });
      assert.equal(invalid.statusCode, 400);
      const unchecked = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: await t.as('author'),
        payload: { title: 'published', status: 'published' },
      });
      assert.equal(unchecked.statusCode, 403, unchecked.body);
      const rolledBack = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: await t.as('editor'),
        payload: { title: 'explode' },
      });
      assert.equal(rolledBack.statusCode, 500);
      assert.equal(await rowsOf(id), 0);

      await t.createPost({ title: 'committed' });
      const [request] = await receiver.waitForRequests(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(receiver.requests.length, 1);
      assert.equal(JSON.parse(request?.body ?? '').event.data.new.title, 'committed');
      assert.equal(await rowsOf(id), 1);
    });

    it("never sends one attempt twice when two processes' workers share the database", async (ctx) => {
      ctx.after(cleanUp);
      const receiver = await startReceiver();
      cleanups.push(() => receiver.close());
      await webhook({ url: receiver.url(), eventPattern: 'categories.created' });
      // A second app with its own connection, as another process would have.
      const store = createStore(t.config.database.url);
      const other = await buildApp({ config: t.config, store });
      ctx.after(async () => {
        await other.app.close();
        await store.close();
      });
      const count = 150;
      const editor = await t.as('editor');
      for (let i = 0; i < count; i++) {
        const response = await t.request({
          method: 'POST',
          url: '/v1/categories',
          auth: editor,
          payload: { name: `shared ${i}` },
        });
        assert.equal(response.statusCode, 201);
      }
      await receiver.waitForRequests(count, { timeoutMs: 8000 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const ids = receiver.requests.map((r) => String(r.headers['x-service-delivery-id']));
      assert.equal(ids.length, count);
      assert.equal(new Set(ids).size, count);
    });
  });
}
