// The worker's shutdown: in-flight attempts get a bounded grace period, and every claim it does not
// finish is given back, so another worker (or this one after a restart) sends it without waiting for a lease.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyBaseLogger } from 'fastify';
import type { ServerResponse } from 'node:http';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { uuidv7 } from '../../src/store/uuid-v7.ts';
import { DeliveryRepository } from '../../src/webhooks/delivery/delivery-repository.ts';
import { DeliveryWorker } from '../../src/webhooks/delivery/delivery-worker.ts';
import { SubscriptionCache } from '../../src/webhooks/subscriptions/subscription-cache.ts';
import { SubscriptionRepository } from '../../src/webhooks/subscriptions/subscription-repository.ts';
import { webhookSecretBox } from '../../src/webhooks/subscriptions/webhook-secret-box.ts';
import { createWebhookTables } from '../../src/webhooks/webhook-tables.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { startReceiver, type Receiver } from './fixtures/receiver.ts';

// The worker only logs failures, which these tests assert through the records instead.
const log = { error() {}, warn() {} } as unknown as FastifyBaseLogger;

for (const dialect of testDialects()) {
  describe(`DeliveryWorker.close (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;
    let deliveries: DeliveryRepository;
    let subscriptions: SubscriptionRepository;
    before(async () => {
      database = await createTestDatabase(dialect);
      store = createStore(database.url);
      await createWebhookTables(store.db, store.dialect);
      deliveries = new DeliveryRepository(store);
      subscriptions = new SubscriptionRepository(
        store,
        webhookSecretBox('a test service secret of at least 32 characters'),
      );
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    /** Three due attempts to the receiver and a worker sending one at a time to it. */
    async function setUp(receiver: Receiver, closeGraceMs: number) {
      const subscription = await subscriptions.insert({ name: 'close', url: receiver.url(), eventPattern: '*' });
      const cache = new SubscriptionCache(subscriptions, log);
      await cache.reload();
      const dueAt = new Date().toISOString();
      await deliveries.queue(
        Array.from({ length: 3 }, (_, i) => ({
          id: uuidv7(),
          webhookId: subscription.id,
          eventId: uuidv7(),
          eventType: 'posts.created',
          attemptNumber: 1,
          requestPayload: `{"n":${i}}`,
          targetUrl: receiver.url(),
          dueAt,
        })),
      );
      const worker = new DeliveryWorker(
        { deliveries, subscriptions: cache, log },
        { pollIntervalMs: 20, timeoutMs: 5000, allowPrivateTargets: true, perTargetConcurrency: 1, closeGraceMs },
      );
      return { worker, webhookId: subscription.id };
    }

    it('aborts an attempt still in flight after the grace period and gives every unfinished claim back', async (ctx) => {
      const held: ServerResponse[] = [];
      const receiver = await startReceiver((_request, response) => void held.push(response));
      ctx.after(() => receiver.close());
      const { worker, webhookId } = await setUp(receiver, 200);
      worker.start();
      await receiver.waitForRequests(1);
      const started = Date.now();
      await worker.close();
      assert.ok(Date.now() - started < 1500, `close took ${Date.now() - started} ms`);
      const { items } = await deliveries.list(webhookId, { limit: 10, offset: 0 });
      assert.deepEqual(
        items.map((d) => [d.status, d.error]),
        [
          ['pending', null],
          ['pending', null],
          ['pending', null],
        ],
      );
      const reclaimed = await deliveries.claim({ limit: 10, leaseMs: 60_000, excludeTargets: [] });
      assert.equal(
        reclaimed.filter((a) => a.webhookId === webhookId).length,
        3,
        'all three can be claimed at once by another worker',
      );
      assert.equal(receiver.requests.length, 1);
      // The attempts must not outlive the test: a later receiver may be given this one's port.
      await subscriptions.delete(webhookId);
    });

    it('lets the attempt in flight finish within the grace period', async (ctx) => {
      const receiver = await startReceiver((_request, response) => void setTimeout(() => response.end('ok'), 150));
      ctx.after(() => receiver.close());
      const { worker, webhookId } = await setUp(receiver, 5000);
      worker.start();
      await receiver.waitForRequests(1);
      await worker.close();
      const { items } = await deliveries.list(webhookId, { limit: 10, offset: 0 });
      const statuses = items.map((d) => d.status).sort();
      assert.equal(statuses.filter((s) => s === 'success').length, receiver.requests.length);
      assert.ok(receiver.requests.length >= 1 && receiver.requests.length < 3);
      const reclaimed = await deliveries.claim({ limit: 10, leaseMs: 60_000, excludeTargets: [] });
      assert.equal(
        reclaimed.filter((a) => a.webhookId === webhookId).length,
        3 - receiver.requests.length,
        'the unsent ones were given back',
      );
      await subscriptions.delete(webhookId);
    });
  });
}
