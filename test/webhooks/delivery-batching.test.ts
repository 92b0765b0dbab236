// While deliveries keep arriving, the worker claims and records them in batches: at most one claim
// per claim interval however many commits wake it, and successes written together, not one statement
// per delivery. Every attempt is still sent once and recorded once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { uuidv7 } from '../../src/store/uuid-v7.ts';
import type { SuccessOutcome } from '../../src/webhooks/delivery/attempt-outcome.ts';
import { CoalescingTrigger } from '../../src/webhooks/delivery/coalescing-trigger.ts';
import { DeliveryRepository, type ClaimedAttempt } from '../../src/webhooks/delivery/delivery-repository.ts';
import { DeliveryWorker } from '../../src/webhooks/delivery/delivery-worker.ts';
import { SubscriptionCache } from '../../src/webhooks/subscriptions/subscription-cache.ts';
import { SubscriptionRepository } from '../../src/webhooks/subscriptions/subscription-repository.ts';
import { webhookSecretBox } from '../../src/webhooks/subscriptions/webhook-secret-box.ts';
import { SuccessBatcher } from '../../src/webhooks/delivery/success-batcher.ts';
import { createWebhookTables } from '../../src/webhooks/webhook-tables.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { startReceiver } from './fixtures/receiver.ts';

const log = { error() {}, warn() {} } as unknown as FastifyBaseLogger;

/** Resolves after `n` check phases of the event loop (pending promise reactions run in between). */
async function loopTurns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('CoalescingTrigger', () => {
  it('folds requests made before a run starts, and those made during it, into one run each', async () => {
    let runs = 0;
    let finish!: () => void;
    const trigger = new CoalescingTrigger(async () => {
      runs += 1;
      await new Promise<void>((resolve) => (finish = resolve));
    }, 0);
    for (let i = 0; i < 50; i++) trigger.request();
    // A run starts on the next check phase; a fixed sleep could end first on a busy loop (its timer
    // phase comes first when the loop is late), so wait for loop turns instead.
    await loopTurns(2);
    assert.equal(runs, 1);
    for (let i = 0; i < 50; i++) trigger.request();
    finish();
    await loopTurns(3);
    assert.equal(runs, 2, 'one more run for all the requests made while the first ran');
    finish();
    await trigger.stop();
  });

  it('starts runs at least the interval apart, and none after stop', async () => {
    const starts: number[] = [];
    const trigger = new CoalescingTrigger(async () => void starts.push(performance.now()), 40);
    trigger.request();
    // Waits for conditions, bounded, not for fixed times: a busy loop runs timers late.
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 400 && !done(); i++) await sleep(5);
    };
    await until(() => starts.length === 1);
    trigger.request();
    await until(() => starts.length === 2);
    assert.equal(starts.length, 2);
    assert.ok(starts[1]! - starts[0]! >= 39, `runs ${starts[1]! - starts[0]!} ms apart`);
    trigger.request();
    await trigger.stop();
    await sleep(60);
    assert.equal(starts.length, 2);
  });
});

describe('SuccessBatcher', () => {
  const outcome: SuccessOutcome = {
    status: 'success',
    deliveredAt: new Date().toISOString(),
    httpStatus: 200,
    responseHeaders: {},
    responseBody: 'ok',
  };
  const attempt = (id: string) => ({ id }) as ClaimedAttempt;

  it('lets the first success wait for company, then writes those that came during a write together', async () => {
    const batches: string[][] = [];
    let release!: () => void;
    const batcher = new SuccessBatcher(
      async (settled) => {
        batches.push(settled.map((s) => s.attempt.id));
        if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return new Set(settled.filter((s) => s.attempt.id !== 'lost').map((s) => s.attempt.id));
      },
      { lingerMs: 20 },
    );
    const first = [batcher.record(attempt('a'), outcome)];
    await sleep(5);
    first.push(batcher.record(attempt('b'), outcome));
    await sleep(30);
    const second = ['c', 'lost', 'd'].map((id) => batcher.record(attempt(id), outcome));
    release();
    assert.deepEqual(await Promise.all(first), [true, true]);
    assert.deepEqual(await Promise.all(second), [true, false, true]);
    assert.deepEqual(batches, [
      ['a', 'b'],
      ['c', 'lost', 'd'],
    ]);
  });
});

/** Counts the statements the worker cares about. */
class CountingRepository extends DeliveryRepository {
  claims = 0;
  successWrites = 0;
  override claim(options: Parameters<DeliveryRepository['claim']>[0]): ReturnType<DeliveryRepository['claim']> {
    this.claims += 1;
    return super.claim(options);
  }
  override settleSuccesses(
    settled: Parameters<DeliveryRepository['settleSuccesses']>[0],
  ): ReturnType<DeliveryRepository['settleSuccesses']> {
    this.successWrites += 1;
    return super.settleSuccesses(settled);
  }
}

for (const dialect of testDialects()) {
  describe(`DeliveryWorker batching (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;
    before(async () => {
      database = await createTestDatabase(dialect);
      store = createStore(database.url);
      await createWebhookTables(store.db, store.dialect);
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    it('claims at most once per interval while commits keep waking it, and sends and records each attempt once', async (ctx) => {
      const receiver = await startReceiver();
      ctx.after(() => receiver.close());
      const subscriptions = new SubscriptionRepository(
        store,
        webhookSecretBox('a test service secret of at least 32 characters'),
      );
      const subscription = await subscriptions.insert({ name: 'batching', url: receiver.url(), eventPattern: '*' });
      const cache = new SubscriptionCache(subscriptions, log);
      await cache.reload();
      const deliveries = new CountingRepository(store);
      const claimIntervalMs = 50;
      const worker = new DeliveryWorker(
        { deliveries, subscriptions: cache, log },
        { pollIntervalMs: 60_000, timeoutMs: 5000, allowPrivateTargets: true, claimIntervalMs, successLingerMs: 20 },
      );
      worker.start();
      ctx.after(() => worker.close());
      await sleep(20);
      const claimsBefore = deliveries.claims;

      // One delivery per commit, each commit waking the worker, as record writes do.
      const started = performance.now();
      const count = 40;
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const id = uuidv7();
        ids.push(id);
        await deliveries.queue([
          {
            id,
            webhookId: subscription.id,
            eventId: uuidv7(),
            eventType: 'posts.created',
            attemptNumber: 1,
            requestPayload: `{"n":${i}}`,
            targetUrl: receiver.url(),
            dueAt: new Date().toISOString(),
          },
        ]);
        worker.wake();
      }
      await receiver.waitForRequests(count, { timeoutMs: 10_000 });
      const elapsed = performance.now() - started;
      const claims = deliveries.claims - claimsBefore;
      assert.ok(claims <= Math.ceil(elapsed / claimIntervalMs) + 1, `${claims} claims in ${Math.round(elapsed)} ms`);

      let listed = await deliveries.list(subscription.id, { limit: 100, offset: 0 });
      const deadline = Date.now() + 5000;
      while (listed.items.some((d) => d.status !== 'success') && Date.now() < deadline) {
        await sleep(20);
        listed = await deliveries.list(subscription.id, { limit: 100, offset: 0 });
      }
      assert.equal(listed.total, count, 'one record per attempt');
      assert.deepEqual(new Set(listed.items.map((d) => d.status)), new Set(['success']));
      assert.deepEqual(receiver.requests.map((r) => r.headers['x-service-delivery-id']).sort(), [...ids].sort());
      assert.ok(deliveries.successWrites < count, `${deliveries.successWrites} success writes for ${count} deliveries`);
      await subscriptions.delete(subscription.id);
    });
  });
}
