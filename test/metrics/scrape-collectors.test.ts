// Values read at scrape time: the webhook queue from svc_webhook_deliveries, the outbox lag from this
// process's read position, and open stream connections from the event hub.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server.ts';
import type { AppContext } from '../../src/app-context.ts';
import { DeliveryRepository } from '../../src/webhooks/delivery/delivery-repository.ts';
import { DELIVERIES_TABLE } from '../../src/webhooks/webhook-tables.ts';
import { EVENTS_TABLE } from '../../src/events/outbox.ts';
import { uuidv7 } from '../../src/store/uuid-v7.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { testConfig, TEST_ADMIN_TOKEN } from '../helpers/test-config.ts';
import { startStreamTestApp, adminAuthorization, type StreamTestApp } from '../helpers/stream-test-app.ts';
import { SseClient } from '../helpers/sse-client.ts';
import { parseExposition, sampleValue, type Family } from '../helpers/prometheus-text.ts';

async function scrape(app: FastifyInstance, authorization: string): Promise<Map<string, Family>> {
  const response = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization } });
  assert.equal(response.statusCode, 200, response.body);
  return parseExposition(response.body);
}

async function eventually(condition: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const isoAgo = (ms: number) => new Date(Date.now() - ms).toISOString();

for (const dialect of testDialects()) {
  // Without workers nothing sends deliveries or reads the outbox, so what the test writes stays put.
  describe(`metrics read from the database, workers stopped (${dialect})`, () => {
    let database: TestDatabase;
    let app: FastifyInstance;
    let ctx: AppContext;
    const admin = `Bearer ${TEST_ADMIN_TOKEN}`;
    before(async () => {
      database = await createTestDatabase(dialect);
      ({ app, ctx } = await buildApp({ config: testConfig(database.url), startWorkers: false }));
      await app.ready();
    });
    after(async () => {
      await app.close();
      await database.drop();
    });

    it('reports deliveries by status, the queue depth, attempts in flight and how overdue the oldest is', async () => {
      const attempt = (dueAt: string) => ({
        id: uuidv7(),
        webhookId: 'wh-metrics',
        eventId: uuidv7(),
        eventType: 'posts.created',
        attemptNumber: 1,
        requestPayload: '{}',
        targetUrl: 'http://127.0.0.1:9/hook',
        dueAt,
      });
      const overdue = attempt(isoAgo(60_000));
      const scheduled = attempt(new Date(Date.now() + 3_600_000).toISOString());
      const succeeded = attempt(isoAgo(1000));
      const failed = attempt(isoAgo(1000));
      await new DeliveryRepository(ctx.store).queue([overdue, scheduled, succeeded, failed]);
      const { db, dialect: storeDialect } = ctx.store;
      const settle = (id: string, status: string) =>
        db.updateTable(DELIVERIES_TABLE).set({ status, due_at: null }).where('id', '=', id).execute();
      await settle(succeeded.id, 'success');
      await settle(failed.id, 'failed');
      // A worker elsewhere holds the overdue attempt under a live lease.
      const lease = storeDialect.encode('timestamp', new Date(Date.now() + 30_000).toISOString());
      await db
        .updateTable(DELIVERIES_TABLE)
        .set({ claimed_until: lease, claim_token: 'other-worker' })
        .where('id', '=', overdue.id)
        .execute();

      const families = await scrape(app, admin);
      assert.equal(sampleValue(families, 'svc_webhook_deliveries', { status: 'pending' }), 2);
      assert.equal(sampleValue(families, 'svc_webhook_deliveries', { status: 'success' }), 1);
      assert.equal(sampleValue(families, 'svc_webhook_deliveries', { status: 'failed' }), 1);
      assert.equal(sampleValue(families, 'svc_webhook_queue_depth'), 2);
      assert.equal(sampleValue(families, 'svc_webhook_in_flight'), 1);
      const oldest = sampleValue(families, 'svc_webhook_oldest_pending_seconds')!;
      assert.ok(oldest >= 59 && oldest < 120, `the overdue attempt is about a minute late (got ${oldest})`);
    });

    it('reports the age of the oldest event the outbox reader has not read, and 0 once it has caught up', async () => {
      await ctx.store.db
        .insertInto(EVENTS_TABLE)
        .values({
          id: uuidv7(),
          type: 'posts.created',
          resource: 'posts',
          resource_id: 'r1',
          payload: '{}',
          created_at: isoAgo(30_000),
        })
        .execute();
      const lag = sampleValue(await scrape(app, admin), 'svc_outbox_lag_seconds')!;
      assert.ok(lag >= 29 && lag < 90, `the unread event is about 30 s old (got ${lag})`);

      // Starting the hub takes the outbox's current end as read.
      await ctx.events.start();
      assert.equal(sampleValue(await scrape(app, admin), 'svc_outbox_lag_seconds'), 0);
    });

    it('counts a collector that fails and still answers the scrape', async () => {
      await ctx.store.db.schema.dropTable(DELIVERIES_TABLE).execute();
      const families = await scrape(app, admin);
      assert.equal(
        sampleValue(families, 'svc_metrics_collector_failures_total', { collector: 'webhook_deliveries' }),
        1,
      );
      assert.ok(families.has('svc_http_requests_total'));
    });
  });

  describe(`stream connections and outbox lag with running workers (${dialect})`, () => {
    let t: StreamTestApp;
    before(async () => {
      t = await startStreamTestApp({ dialect });
    });
    after(() => t.close());

    it('counts open stream connections per resource, and forgets a closed one', async () => {
      const admin = adminAuthorization(t.config);
      const connections = async () =>
        sampleValue(await scrape(t.app, admin), 'svc_stream_connections', { resource: 'posts' });
      assert.equal(await connections(), 0);
      const a = await SseClient.connect(`${t.baseUrl}/v1/posts/stream`, {
        headers: { authorization: t.editor.authorization },
      });
      const b = await SseClient.connect(`${t.baseUrl}/v1/posts/stream`, {
        headers: { authorization: t.editor.authorization },
      });
      assert.equal(a.status, 200);
      await eventually(async () => (await connections()) === 2, 'two connections are counted');
      a.close();
      await eventually(async () => (await connections()) === 1, 'one connection is left');
      b.close();
      await eventually(async () => (await connections()) === 0, 'no connection is left');
    });

    it('times each stream flush and counts one socket write per connection it reached', async () => {
      const admin = adminAuthorization(t.config);
      const read = async () => {
        const families = await scrape(t.app, admin);
        return {
          flushes: sampleValue(families, 'svc_stream_flush_seconds_count') ?? 0,
          seconds: sampleValue(families, 'svc_stream_flush_seconds_sum') ?? 0,
          writes: sampleValue(families, 'svc_stream_flush_writes_total') ?? 0,
        };
      };
      const clients = await Promise.all(
        Array.from({ length: 3 }, () =>
          SseClient.connect(`${t.baseUrl}/v1/posts/stream`, { headers: { authorization: t.editor.authorization } }),
        ),
      );
      try {
        await eventually(
          async () => sampleValue(await scrape(t.app, admin), 'svc_stream_connections', { resource: 'posts' }) === 3,
          'three connections are live',
        );
        const before = await read();
        await t.createPost({ title: 'fanned out' });
        await Promise.all(clients.map((client) => client.waitForEvents(1)));
        const after = await read();
        // One event, three clients of one view: one flush, one write to each.
        assert.equal(after.writes - before.writes, 3);
        assert.ok(after.flushes - before.flushes >= 1, 'the flush was counted');
        assert.ok(after.seconds > before.seconds, 'and its time');
      } finally {
        for (const client of clients) client.close();
      }
    });

    it('brings the outbox lag back to 0 after writes, once the reader has read them', async () => {
      const admin = adminAuthorization(t.config);
      for (let i = 0; i < 3; i++) await t.createPost({ title: `lag ${i}` });
      await eventually(
        async () => sampleValue(await scrape(t.app, admin), 'svc_outbox_lag_seconds') === 0,
        'the reader caught up',
      );
    });
  });
}
