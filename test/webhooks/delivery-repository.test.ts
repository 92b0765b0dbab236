// Claiming delivery attempts: atomic across connections, leases that expire, claims that are lost.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { uuidv7 } from '../../src/store/uuid-v7.ts';
import { DeliveryRepository, type QueuedAttempt } from '../../src/webhooks/delivery/delivery-repository.ts';
import { createWebhookTables, DELIVERIES_TABLE } from '../../src/webhooks/webhook-tables.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';

const success = {
  status: 'success',
  deliveredAt: new Date().toISOString(),
  httpStatus: 200,
  responseHeaders: {},
  responseBody: 'ok',
} as const;

function attempts(count: number, webhookId: string, url = 'http://receiver.test/hook'): QueuedAttempt[] {
  const dueAt = new Date(Date.now() - 1000).toISOString();
  return Array.from({ length: count }, () => {
    const id = uuidv7();
    return {
      id,
      webhookId,
      eventId: uuidv7(),
      eventType: 'posts.created',
      attemptNumber: 1,
      requestPayload: JSON.stringify({ delivery: { id, attempt: 1 } }),
      targetUrl: url,
      dueAt,
    };
  });
}

for (const dialect of testDialects()) {
  describe(`DeliveryRepository (${dialect})`, () => {
    let database: TestDatabase;
    let stores: Store[];
    let one: DeliveryRepository;
    let two: DeliveryRepository;
    before(async () => {
      database = await createTestDatabase(dialect);
      // Two connections (pools), as two processes would have.
      stores = [createStore(database.url), createStore(database.url)];
      await createWebhookTables(stores[0]!.db, stores[0]!.dialect);
      one = new DeliveryRepository(stores[0]!);
      two = new DeliveryRepository(stores[1]!);
    });
    after(async () => {
      for (const store of stores) await store.close();
      await database.drop();
    });

    it('never hands one attempt to two concurrent claimers', async () => {
      const webhookId = uuidv7();
      const queued = attempts(300, webhookId);
      await one.queue(queued);
      const claimed: string[] = [];
      const claimer = async (repository: DeliveryRepository) => {
        for (;;) {
          const batch = await repository.claim({ limit: 7, leaseMs: 60_000, excludeTargets: [] });
          if (batch.length === 0) return;
          claimed.push(...batch.map((a) => a.id));
        }
      };
      await Promise.all([claimer(one), claimer(two), claimer(one), claimer(two)]);
      assert.equal(claimed.length, queued.length);
      assert.deepEqual([...claimed].sort(), queued.map((a) => a.id).sort());
    });

    it('claims an attempt again once its lease has expired, and a lost claim cannot settle it', async () => {
      const [attempt] = attempts(1, uuidv7(), 'http://lease.test/');
      await one.queue([attempt!]);
      const [first] = await one.claim({ limit: 10, leaseMs: 150, excludeTargets: [] });
      assert.equal(first?.id, attempt!.id);
      assert.deepEqual(await two.claim({ limit: 10, leaseMs: 150, excludeTargets: [] }), [], 'held under a live lease');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const [second] = await two.claim({ limit: 10, leaseMs: 60_000, excludeTargets: [] });
      assert.equal(second?.id, attempt!.id);
      assert.equal(await one.settle(first!, success), false, 'the first claimer lost the attempt');
      assert.equal(await one.renewLease(first!, 60_000), false);
      assert.equal(await two.settle(second!, success), true);
      assert.deepEqual(
        await one.claim({ limit: 10, leaseMs: 60_000, excludeTargets: [] }),
        [],
        'a settled attempt is not claimed again',
      );
    });

    it('releases unsent claims for immediate reclaiming, and skips excluded targets', async () => {
      const webhookId = uuidv7();
      await one.queue([
        ...attempts(2, webhookId, 'http://busy.test/'),
        ...attempts(1, webhookId, 'http://idle.test:8080/'),
      ]);
      const idleOnly = await one.claim({ limit: 10, leaseMs: 60_000, excludeTargets: ['busy.test:80'] });
      assert.deepEqual(
        idleOnly.map((a) => a.targetHost),
        ['idle.test:8080'],
      );
      const busy = await two.claim({ limit: 10, leaseMs: 60_000, excludeTargets: [] });
      assert.deepEqual(
        busy.map((a) => a.targetHost),
        ['busy.test:80', 'busy.test:80'],
      );
      await two.release(busy);
      assert.equal((await one.claim({ limit: 10, leaseMs: 60_000, excludeTargets: [] })).length, 2);
    });

    it('claims with its compiled statement whatever the excluded targets, limit and lease of each call', async () => {
      const webhookId = uuidv7();
      await one.queue([
        ...attempts(2, webhookId, 'http://a.test/'),
        ...attempts(2, webhookId, 'http://b.test/'),
        ...attempts(2, webhookId, 'http://c.test/'),
      ]);
      const onlyC = await one.claim({ limit: 1, leaseMs: 60_000, excludeTargets: ['a.test:80', 'b.test:80'] });
      assert.deepEqual(
        onlyC.map((a) => a.targetHost),
        ['c.test:80'],
      );
      // The same shape (two exclusions) with other values: the first call's are not kept.
      const onlyB = await one.claim({ limit: 5, leaseMs: 150, excludeTargets: ['a.test:80', 'c.test:80'] });
      assert.deepEqual(
        onlyB.map((a) => a.targetHost),
        ['b.test:80', 'b.test:80'],
      );
      assert.ok(onlyB.every((a) => a.claimToken !== onlyC[0]!.claimToken));
      const rest = await two.claim({ limit: 10, leaseMs: 60_000, excludeTargets: [] });
      assert.deepEqual(rest.map((a) => a.targetHost).sort(), ['a.test:80', 'a.test:80', 'c.test:80']);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const expired = await two.claim({ limit: 10, leaseMs: 60_000, excludeTargets: ['a.test:80'] });
      assert.deepEqual(
        expired.map((a) => a.id).sort(),
        onlyB.map((a) => a.id).sort(),
        'the short lease of the second call has expired',
      );
    });

    it('records a batch of successes in one statement, leaving out attempts whose claim was lost', async () => {
      const webhookId = uuidv7();
      await one.queue(attempts(3, webhookId, 'http://batch.test/'));
      const claimed = await one.claim({ limit: 10, leaseMs: 60_000, excludeTargets: [] });
      assert.equal(claimed.length, 3);
      const [lost, ...held] = claimed;
      const deliveredAt = new Date().toISOString();
      const outcome = {
        status: 'success',
        deliveredAt,
        httpStatus: 201,
        responseHeaders: { 'x-receipt': 'r1' },
        responseBody: 'stored',
      } as const;
      const recorded = await one.settleSuccesses(
        claimed.map((attempt) => ({
          attempt: attempt === lost ? { ...attempt, claimToken: 'stale' } : attempt,
          outcome,
        })),
      );
      assert.deepEqual([...recorded].sort(), held.map((a) => a.id).sort());
      const { items } = await one.list(webhookId, { limit: 10, offset: 0, status: 'success' });
      assert.equal(items.length, 2);
      for (const item of items) {
        assert.deepEqual(
          [item.httpStatus, item.responseHeaders, item.responseBody, item.deliveredAt, item.nextRetryAt, item.error],
          [201, { 'x-receipt': 'r1' }, 'stored', deliveredAt, null, null],
        );
      }
    });

    it('keeps a retried attempt pending with nextRetryAt and queues the next attempt as its own record', async () => {
      const webhookId = uuidv7();
      const [attempt] = attempts(1, webhookId, 'http://retry.test/');
      await one.queue([attempt!]);
      const [claimed] = await one.claim({ limit: 1, leaseMs: 60_000, excludeTargets: [] });
      const nextRetryAt = new Date(Date.now() + 60_000).toISOString();
      assert.equal(
        await one.settle(claimed!, {
          status: 'retry',
          error: 'The receiver answered 503',
          nextRetryAt,
          httpStatus: 503,
          responseHeaders: { 'retry-after': '60' },
          responseBody: 'busy',
        }),
        true,
      );
      const { items, total } = await one.list(webhookId, { limit: 10, offset: 0 });
      assert.equal(total, 2);
      const [next, retried] = items; // newest first
      assert.deepEqual(
        [retried?.status, retried?.attemptNumber, retried?.nextRetryAt, retried?.httpStatus],
        ['pending', 1, nextRetryAt, 503],
      );
      assert.deepEqual([next?.status, next?.attemptNumber, next?.nextRetryAt], ['pending', 2, nextRetryAt]);
      assert.deepEqual(JSON.parse(next?.requestPayload ?? '').delivery, { id: next?.id, attempt: 2 });
      assert.deepEqual(await one.claim({ limit: 10, leaseMs: 60_000, excludeTargets: [] }), [], 'neither is due now');
      const rows = await stores[0]!.db
        .selectFrom(DELIVERIES_TABLE)
        .select('id')
        .where('webhook_id', '=', webhookId)
        .where('due_at', 'is not', null)
        .execute();
      assert.deepEqual(
        rows.map((r) => r.id),
        [next?.id],
        'only the next attempt is still to be sent',
      );
    });
  });
}
