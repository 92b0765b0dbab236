// Attempts queued by this process's own writes are leased to its worker as they are written and sent
// after the commit without a claim statement; the lease keeps other workers off them, and one whose
// write never commits stops counting against the worker's room after its lease time.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyBaseLogger } from 'fastify';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { uuidv7 } from '../../src/store/uuid-v7.ts';
import {
  DeliveryRepository,
  targetHostOf,
  type QueuedAttempt,
} from '../../src/webhooks/delivery/delivery-repository.ts';
import { DeliveryWorker, type DeliveryWorkerOptions } from '../../src/webhooks/delivery/delivery-worker.ts';
import { SubscriptionCache } from '../../src/webhooks/subscriptions/subscription-cache.ts';
import { SubscriptionRepository } from '../../src/webhooks/subscriptions/subscription-repository.ts';
import { webhookSecretBox } from '../../src/webhooks/subscriptions/webhook-secret-box.ts';
import { createWebhookTables } from '../../src/webhooks/webhook-tables.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { startReceiver, type Receiver } from './fixtures/receiver.ts';

const log = { error() {}, warn() {} } as unknown as FastifyBaseLogger;

for (const dialect of testDialects()) {
  describe(`deliveries leased as they are queued (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;
    let deliveries: DeliveryRepository;
    let subscriptions: SubscriptionRepository;
    let claims = 0;
    before(async () => {
      database = await createTestDatabase(dialect);
      store = createStore(database.url);
      await createWebhookTables(store.db, store.dialect);
      deliveries = new DeliveryRepository(store);
      const claim = deliveries.claim.bind(deliveries);
      deliveries.claim = (options) => {
        claims++;
        return claim(options);
      };
      subscriptions = new SubscriptionRepository(
        store,
        webhookSecretBox('a test service secret of at least 32 characters'),
      );
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    async function setUp(receiver: Receiver, options: Partial<DeliveryWorkerOptions> = {}) {
      const subscription = await subscriptions.insert({ name: 'leased', url: receiver.url(), eventPattern: '*' });
      const cache = new SubscriptionCache(subscriptions, log);
      await cache.reload();
      // No polling: a claim here can only come from a wake.
      const worker = new DeliveryWorker(
        { deliveries, subscriptions: cache, log },
        { pollIntervalMs: 600_000, timeoutMs: 5000, allowPrivateTargets: true, ...options },
      );
      const attempt = (n: number) => ({
        id: uuidv7(),
        webhookId: subscription.id,
        eventId: uuidv7(),
        eventType: 'posts.created',
        attemptNumber: 1,
        requestPayload: `{"n":${n}}`,
        targetUrl: receiver.url(),
      });
      /** What the queue hook does: lease, then write the row (claimed when leased). */
      const queue = async (n: number) => {
        const queued = attempt(n);
        const leased = worker.leaseQueued(queued, targetHostOf(queued.targetUrl));
        const row: QueuedAttempt = {
          ...queued,
          dueAt: new Date().toISOString(),
          ...(leased && { claim: { token: leased.claimToken, until: leased.claimedUntil } }),
        };
        await deliveries.queue([row]);
        return { eventId: queued.eventId, leased };
      };
      const cleanUp = async () => {
        await worker.close();
        await subscriptions.delete(subscription.id);
      };
      return { worker, webhookId: subscription.id, queue, cleanUp };
    }

    it('sends a leased attempt after its commit without claiming it, and other workers cannot claim it meanwhile', async (ctx) => {
      const receiver = await startReceiver();
      const { worker, webhookId, queue, cleanUp } = await setUp(receiver);
      ctx.after(async () => {
        await cleanUp();
        await receiver.close();
      });
      worker.start();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const claimsBefore = claims;
      const { eventId, leased } = await queue(1);
      assert.ok(leased, 'a started worker with room leases the attempt');
      assert.deepEqual(
        await deliveries.claim({ limit: 10, leaseMs: 60_000, excludeTargets: [] }),
        [],
        'the written row is already claimed',
      );
      worker.holdCommitted([eventId]);
      await receiver.waitForRequests(1);
      assert.equal(receiver.requests[0]?.body, '{"n":1}');
      // The one claim counted is this test's own, above.
      assert.equal(claims - claimsBefore, 1);
      await waitFor(
        async () => (await deliveries.list(webhookId, { limit: 10, offset: 0 })).items[0]?.status === 'success',
      );
    });

    it('leases nothing before start, and has an unleased attempt claimed after its commit', async (ctx) => {
      const receiver = await startReceiver();
      const { worker, queue, cleanUp } = await setUp(receiver);
      ctx.after(async () => {
        await cleanUp();
        await receiver.close();
      });
      const { eventId, leased } = await queue(2);
      assert.equal(leased, undefined);
      worker.holdCommitted([eventId]);
      worker.start();
      await receiver.waitForRequests(1);
      const claimsBefore = claims;
      const second = await queue(3);
      assert.ok(second.leased);
      worker.holdCommitted([second.eventId]);
      await receiver.waitForRequests(2);
      assert.deepEqual(
        receiver.requests.map((r) => r.body),
        ['{"n":2}', '{"n":3}'],
      );
      assert.equal(claims, claimsBefore, 'nothing was left unleased since the first claim');
    });

    it('leases no more per target than it may hold, and claims the rest once there is room', async (ctx) => {
      const held: (() => void)[] = [];
      const receiver = await startReceiver((_request, response) => void held.push(() => response.end('ok')));
      const { worker, queue, cleanUp } = await setUp(receiver, { perTargetConcurrency: 1, perTargetHeld: 2 });
      ctx.after(async () => {
        for (const release of held) release();
        await cleanUp();
        await receiver.close();
      });
      worker.start();
      const queued = [await queue(1), await queue(2), await queue(3)];
      assert.deepEqual(
        queued.map((q) => Boolean(q.leased)),
        [true, true, false],
      );
      const claimsBefore = claims;
      worker.holdCommitted(queued.map((q) => q.eventId));
      await waitFor(() => claims > claimsBefore);
      // One in flight, one waiting for the slot: the target is full, so the third stays in the table.
      while (receiver.requests.length < 3) {
        await waitFor(() => held.length > 0);
        held.shift()!();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.deepEqual(receiver.requests.map((r) => r.body).sort(), ['{"n":1}', '{"n":2}', '{"n":3}']);
    });

    it('stops counting a sent attempt against its target while its success waits for the batched write', async (ctx) => {
      const receiver = await startReceiver();
      // The success write lingers for a second; the target may hold one attempt.
      const { worker, webhookId, queue, cleanUp } = await setUp(receiver, { perTargetHeld: 1, successLingerMs: 1000 });
      ctx.after(async () => {
        await cleanUp();
        await receiver.close();
      });
      worker.start();
      const first = await queue(1);
      assert.ok(first.leased);
      assert.equal((await queue(2)).leased, undefined, 'the target is full while the first is being sent');
      worker.holdCommitted([first.eventId]);
      // The second is claimed once the first's request is over, not once its success is written.
      await receiver.waitForRequests(2, { timeoutMs: 900 });
      // Both answered (the answers take a moment to come back), and the first's success not written yet.
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(
        (await deliveries.list(webhookId, { limit: 10, offset: 0 })).items.find((d) => d.requestPayload === '{"n":1}')
          ?.status,
        'pending',
      );
      const third = await queue(3);
      assert.ok(third.leased, 'the target has room again once the first request is over');
      worker.holdCommitted([third.eventId]);
      await receiver.waitForRequests(3);
      assert.deepEqual(receiver.requests.map((r) => r.body).sort(), ['{"n":1}', '{"n":2}', '{"n":3}']);
    });

    it('gives the room of a rolled-back write’s leases back at once, and sends nothing for them', async (ctx) => {
      const receiver = await startReceiver();
      const { worker, webhookId, queue, cleanUp } = await setUp(receiver, { perTargetHeld: 1 });
      ctx.after(async () => {
        await cleanUp();
        await receiver.close();
      });
      worker.start();
      // Leased as the queue hook does, but its write is rolled back: no row is ever stored.
      const eventId = uuidv7();
      const rolledBack = worker.leaseQueued(
        {
          id: uuidv7(),
          webhookId,
          eventId,
          eventType: 'posts.created',
          attemptNumber: 1,
          requestPayload: '{"n":0}',
          targetUrl: receiver.url(),
        },
        targetHostOf(receiver.url()),
      );
      assert.ok(rolledBack);
      assert.equal((await queue(1)).leased, undefined, 'the target is full while that lease stands');
      worker.dropLeases([eventId]);
      const later = await queue(2);
      assert.ok(later.leased, 'the dropped lease takes no room');
      const refused = await queue(3);
      assert.equal(refused.leased, undefined, 'the later lease holds the target now');
      worker.holdCommitted([eventId, later.eventId]);
      // The stored attempts go out (the unleased ones claimed); the dropped lease had no row and is not sent.
      await receiver.waitForRequests(3);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(receiver.requests.map((r) => r.body).sort(), ['{"n":1}', '{"n":2}', '{"n":3}']);
    });

    it('forgets a lease whose write never committed once its lease time has passed', async (ctx) => {
      const receiver = await startReceiver();
      // timeoutMs 100: a lease of 2 × 100 ms plus the 1 s margin.
      const { worker, queue, cleanUp } = await setUp(receiver, { timeoutMs: 100, perTargetHeld: 1 });
      ctx.after(async () => {
        await cleanUp();
        await receiver.close();
      });
      worker.start();
      const rolledBack = await queue(1);
      assert.ok(rolledBack.leased);
      assert.equal((await queue(2)).leased, undefined, 'the target is full while the first lease stands');
      await new Promise((resolve) => setTimeout(resolve, 1300));
      const later = await queue(3);
      assert.ok(later.leased, 'the stale lease no longer takes room');
      worker.holdCommitted([rolledBack.eventId, later.eventId]);
      // The forgotten lease is not sent from memory; its row (written here after all) is claimed like
      // any other once its lease has expired, with the unleased one: each is sent once.
      await receiver.waitForRequests(3);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(receiver.requests.map((r) => r.body).sort(), ['{"n":1}', '{"n":2}', '{"n":3}']);
    });
  });
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
